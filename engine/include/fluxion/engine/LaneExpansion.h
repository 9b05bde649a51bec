//===- LaneExpansion.h - One reverse sweep for several seeds ----*- C++ -*-===//
//
// A dense Jacobian in reverse mode needs one reverse sweep per output. The
// sweeps differ only in their adjoints: the primal values they pop, the
// branches they take and the partial derivatives they compute are the
// same. Lane expansion rewrites a first-order backward function g_bwd into
// g_bwd_lanesM, which runs M seeds at once (vector mode, as a hand-written
// adjoint of a small Jacobian does):
//   - every adjoint variable gets one value per lane: a scalar x becomes
//     x[M] (lane l is x[l]), a local array a[N] becomes a[M * N] (lane l is
//     a[l * N + i]), and so does the storage of a fixed-size container
//     (std::array, Vector3d: a plain array);
//   - an adjoint pointer parameter d_p is followed by a stride ld_d_p (lane
//     l of element i is d_p[l * ld_d_p + i]), and the seed becomes a
//     pointer to M seeds; for a pointer to objects of reals the stride is
//     in bytes (lane l is fluxion::lane(d_p, l, ld_d_p)), so that a member
//     of each lane (`&d_cam->rot`) is passed on with the same stride; an
//     object local x becomes x[M] like a scalar;
//   - each run of adjoint statements is wrapped in one loop over the lanes;
//     pops, restorations and control flow stay outside, run once;
//   - a call of another generated backward function calls its lanes
//     version once; a custom derivative rule is called once per lane.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_LANEEXPANSION_H
#define FLUXION_ENGINE_LANEEXPANSION_H

#include "fluxion/engine/IR.h"

#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace fluxion {

/// What each parameter of a backward function is.
enum class LaneArg { Primal, Seed, Adjoint };

class LaneOracle {
public:
  virtual ~LaneOracle() = default;
  /// The M-lane version of Bwd and the kinds of Bwd's parameters, when
  /// Bwd is a generated backward function; null otherwise (a custom rule,
  /// called once per lane).
  virtual clang::FunctionDecl *
  lanesOf(clang::FunctionDecl *Bwd, unsigned M,
          llvm::SmallVectorImpl<LaneArg> &Kinds) = 0;
  /// The runtime's fluxion::lane for a pointer of type Ptr (an object's
  /// lanes, bytes apart); null when the runtime lacks it.
  virtual clang::FunctionDecl *laneAccessor(clang::QualType Ptr) = 0;
};

/// The backward function to expand: its IR (variables are created in F)
/// and how its parameters map onto the lanes version's.
struct LaneInput {
  ir::Function *F = nullptr;
  std::vector<ir::Var *> Params;
  std::vector<ir::Var *> Locals;
  const ir::Block *Body = nullptr;
};

struct LaneOutput {
  std::vector<ir::Var *> Params;
  std::vector<ir::Var *> Locals;
  ir::Block Body;
};

/// Expands In for M lanes. On failure returns false and says why in Why
/// (something lanes cannot express, such as an adjoint pointer local).
bool expandLanes(const LaneInput &In, unsigned M, clang::ASTContext &Ctx,
                 LaneOracle &Oracle, LaneOutput &Out, std::string &Why);

} // namespace fluxion

#endif
