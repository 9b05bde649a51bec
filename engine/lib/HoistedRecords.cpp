//===- HoistedRecords.cpp - One record around a loop, not one per write ----===//
//
// An accumulation inside a counted loop, `gate[g] += W[g][j] * x[j]` over
// j, overwrites gate[g] at every iteration. Recording the old value at
// each write costs one tape entry per iteration, yet the reverse sweep of
// the loop's body never reads gate: only what comes before the loop does,
// and it needs gate[g] as it was before the loop. So the value is recorded
// once, before the loop, and restored once, after the loop's reverse.
//
// That is sound when, for the variable V written:
//   - no reverse sweep of the loop's body reads V (BodyReads, a union over
//     the to-be-recorded rounds, so the test only grows stricter);
//   - every write to V in the loop is to the same lvalue, whose indices
//     read nothing the loop writes (it names one location, the same before
//     the loop and after its reverse);
//   - nothing else can write V inside the loop: V's address is never
//     taken, no call in the loop is given V, V is not declared inside it.
// The record is guarded by the loop's own bounds (invariant in a counted
// loop): a loop that runs no iteration never evaluated the lvalue, and
// neither does its record.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/ReverseBuilder.h"

#include "clang/AST/ASTContext.h"

#include <algorithm>

using namespace clang;

namespace fluxion {
using namespace ir;

/// True if E mentions V anywhere.
static bool reads(const Expr &E, const Var *V) {
  bool Found = false;
  forEachExpr(E, [&](const Expr &Sub) {
    Found |= Sub.K == ExprKind::VarRef && Sub.V == V;
  });
  return Found;
}

/// LV names one location for the whole loop: a variable, its members and
/// elements, with indices built from variables the loop does not write.
static bool invariantLValue(const Expr &LV,
                            const llvm::DenseSet<const Var *> &Written) {
  switch (LV.K) {
  case ExprKind::VarRef:
    return true;
  case ExprKind::Member:
    return invariantLValue(*LV.Ops[0], Written);
  case ExprKind::Index: {
    if (!invariantLValue(*LV.Ops[0], Written))
      return false;
    bool OK = true;
    forEachExpr(*LV.Ops[1], [&](const Expr &Sub) {
      switch (Sub.K) {
      case ExprKind::Const:
      case ExprKind::Unary:
      case ExprKind::Binary:
      case ExprKind::Cast:
        return;
      case ExprKind::VarRef:
        OK &= !Written.count(Sub.V) && !Sub.V->isPointer() &&
              !Sub.V->isArray();
        return;
      default:
        OK = false;
      }
    });
    return OK;
  }
  default:
    return false;
  }
}

bool ReverseBuilder::hoistRecord(const ir::Stmt &S) {
  if (LoopStack.empty() || !LoopStack.back())
    return false;
  const ir::Stmt &L = *LoopStack.back();
  if (!Counted.count(&L))
    return false;
  Var *V = S.LHS->rootVar();
  if (!V || V->K == Var::Kind::Global || AddressTaken.count(V) ||
      mustRestore(V))
    return false;
  auto Reads = BodyReads.find(&L);
  if (Reads == BodyReads.end() || Reads->second.count(V))
    return false;

  llvm::DenseSet<const Var *> Written;
  Written.insert(L.V);
  bool OK = true;
  forEachStmt(L.body(), [&](const ir::Stmt &W) {
    if (W.K == StmtKind::Decl) {
      Written.insert(W.V);
      OK &= W.V != V;
    }
    if (W.K == StmtKind::Loop && W.V)
      Written.insert(W.V);
    for (const ExprP *E : {&W.RHS, &W.Cond})
      if (*E)
        forEachExpr(**E, [&](const Expr &Sub) {
          if (Sub.K == ExprKind::Call)
            for (const ExprP &Arg : Sub.Ops)
              OK &= !reads(*Arg, V);
        });
    if (!W.LHS)
      return;
    Var *Root = W.LHS->rootVar();
    Written.insert(Root);
    if (Root != V)
      return;
    OK &= W.K == StmtKind::Assign && sameExpr(*W.LHS, *S.LHS);
  });
  if (!OK || !invariantLValue(*S.LHS, Written))
    return false;

  auto &List = HoistedRecords[&L];
  if (llvm::none_of(List, [&](const ExprP &E) { return sameExpr(*E, *S.LHS); }))
    List.push_back(S.LHS);
  return true;
}

void ReverseBuilder::placeHoistedRecords(const ir::Stmt &Loop,
                                         const CountedFor &CL, Sweeps &Before,
                                         Block &After) {
  auto It = HoistedRecords.find(&Loop);
  if (It == HoistedRecords.end() || It->second.empty())
    return;
  QualType T = CL.Counter->Type;
  auto Runs = [&] {
    return binary(CL.Inclusive ? BO_LE : BO_LT, cast(T, CL.Begin),
                  cast(T, CL.End), Ctx.BoolTy);
  };
  Sweeps Records;
  Block Restores;
  for (const ExprP &LV : It->second)
    record(LV, Records, Restores);
  // Restored in the opposite order of the records.
  std::reverse(Restores.begin(), Restores.end());
  Before.Fwd.push_back(fluxion::ifStmt(Runs(), std::move(Records.Fwd), {}, Loop.Loc));
  After.push_back(fluxion::ifStmt(Runs(), std::move(Restores), {}, Loop.Loc));
}

} // namespace fluxion
