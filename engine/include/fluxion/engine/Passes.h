//===- Passes.h - Analyses and rewrites on Fluxion IR -----------*- C++ -*-===//
#ifndef FLUXION_ENGINE_PASSES_H
#define FLUXION_ENGINE_PASSES_H

#include "fluxion/engine/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace clang {
class ASTContext;
}

namespace fluxion {

/// Removes break, continue, switch and early returns (JumpElimination.cpp).
void eliminateJumps(ir::Function &F, clang::ASTContext &Ctx);

/// Which variables carry derivatives ("varied" in Tapenade's terms): those
/// that depend on an active input. Pointer and array variables stand for
/// the memory they designate. Flow-insensitive fixpoint (Activity.cpp).
class ActivityInfo {
public:
  /// ActiveParams: the differentiable parameters the derivative is taken
  /// with respect to (output pointers included).
  ActivityInfo(const ir::Function &F, llvm::ArrayRef<ir::Var *> ActiveParams);
  /// The same over an arbitrary body (generated sweeps included).
  ActivityInfo(const ir::Block &Body, llvm::ArrayRef<ir::Var *> ActiveParams);

  bool isActive(const ir::Var *V) const { return Active.count(V); }
  /// True if the value (or, for pointers, the memory) of E depends on an
  /// active input.
  bool isActive(const ir::Expr &E) const;
  /// True if a call passes an active value or active memory.
  bool isActiveCall(const ir::Expr &Call) const;

private:
  void markOutputs(const ir::Expr &Call, bool &Changed);
  llvm::DenseSet<const ir::Var *> Active;
};

/// Assignment sites of each variable (memory of arrays and pointers
/// included): a variable assigned at most once, outside every loop, keeps
/// its value for the rest of the function and is never recorded.
class AssignmentInfo {
public:
  explicit AssignmentInfo(const ir::Function &F);
  /// Never overwritten once set.
  bool isConstant(const ir::Var *V) const;
  bool isAssigned(const ir::Var *V) const { return Sites.count(V); }

private:
  void visit(const ir::Block &B, unsigned LoopDepth);
  void note(const ir::Var *V, unsigned LoopDepth);
  llvm::DenseMap<const ir::Var *, unsigned> Sites;
  llvm::DenseSet<const ir::Var *> InLoop;
};

/// True if the iterations of a counted loop's reverse body (RevBody, its
/// counter's decrement left out) may run in any order, so that the reverse
/// sweep can count Counter up like the primal loop (ReverseLoopOrder.cpp).
/// PrimalBody is the loop's primal body. Calls keep the order unless
/// OrderFree says the callee neither records nor keeps state (the runtime's
/// rules, <cmath>).
bool reverseIterationsCommute(
    const ir::Block &PrimalBody, llvm::ArrayRef<ir::StmtP> RevBody,
    const ir::Var *Counter, clang::ASTContext &Ctx,
    llvm::function_ref<bool(const clang::FunctionDecl *)> OrderFree);

} // namespace fluxion

#endif
