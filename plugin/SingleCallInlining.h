//===- SingleCallInlining.h - Inline sweeps called once -----*- C++ -*-===//
//
// The plugin's one hint to code generation: a generated internal function
// that generated code calls from exactly one place (a callee's forward or
// reverse sweep, its lanes version) is marked always_inline. LLVM inlines
// such a function anyway, but only after optimising it on its own, and then
// optimises it again inside its caller; marked, it is inlined first and
// optimised once.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_PLUGIN_SINGLECALLINLINING_H
#define FLUXION_PLUGIN_SINGLECALLINLINING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace fluxion {

/// Marks those of Generated (every function the engine defined in this
/// translation unit) that are internal, that only generated code calls
/// (MayInline: not an entry point user code may call too), that are
/// referenced exactly once from the bodies of Generated, and that do not
/// call themselves.
void inlineSingleCallSweeps(
    llvm::ArrayRef<clang::FunctionDecl *> Generated,
    llvm::function_ref<bool(const clang::FunctionDecl *)> MayInline,
    clang::ASTContext &Ctx);

} // namespace fluxion

#endif
