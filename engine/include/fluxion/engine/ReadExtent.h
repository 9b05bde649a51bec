//===- ReadExtent.h - How far a function reads through a pointer -*- C++ -*-===//
//
// A caller whose reverse sweep hands a local array to a callee's backward
// function must give that function the values the array held at the call.
// If the callee is known to read only a prefix of the array whose length is
// one of its arguments, the caller can save that prefix once at the call
// instead of recording every write to the array before it (GMM's
// sqnorm(d, qxcentered) after d(d+1)/2 updates of qxcentered).
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_READEXTENT_H
#define FLUXION_ENGINE_READEXTENT_H

#include <cstdint>
#include <optional>

namespace clang {
class FunctionDecl;
}

namespace fluxion {

/// The callee reads elements [0, max(argument CountParam, MinCount)) of the
/// pointer parameter, and nothing else through it.
struct ReadExtent {
  unsigned CountParam = 0;
  int64_t MinCount = 0;
};

/// The extent of what FD's body reads through its ParamIdx-th parameter, a
/// pointer to const: found only when every use of the parameter is p[i]
/// with i the counter of a loop `for (int i = c; i < n; ++i)` (c >= 0 a
/// constant, an enclosing such counter, or their sum; n a by-value integer
/// parameter never assigned; i never assigned in the body) or p[c] with c a
/// constant. Nullopt when anything else is seen. With
/// AnyPointer, p may point to non-const memory: the extent then covers what
/// FD reads and writes through it.
std::optional<ReadExtent> pointerReadExtent(const clang::FunctionDecl *FD,
                                            unsigned ParamIdx,
                                            bool AnyPointer = false);

} // namespace fluxion

#endif
