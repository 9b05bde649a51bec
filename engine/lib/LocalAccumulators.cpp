//===- LocalAccumulators.cpp - Adjoint sums kept in a local ----------------===//
//
// The reverse of `for (j ...) out[j] += l[j] * x[i]` adds into d_x[i] at
// every iteration. Written as `d_x[i] += ...` inside the loop, the sum
// lives in memory: unless the optimiser can prove that d_x does not alias
// the other arrays the loop touches (it can for a local array, not for a
// std::vector's storage or a pointer parameter), each iteration loads and
// stores it, a chain of store-to-load latencies. A hand-written adjoint
// sums into a local and adds it once; so does this pass, on the reverse
// body of a counted loop:
//
//   double _acc = 0;  while (...) { ...; _acc += e; ... }  if (runs) d_x[i] += _acc;
//
// An adjoint element qualifies when every mention of its variable in the
// body is that element accumulated (`+=` or `-=`, same lvalue), and its
// indices read nothing the body writes. Distinct adjoint variables are
// distinct memory, as everywhere in the reverse sweep. The final add is
// guarded by the loop running, like the loop's own accesses. Only the order
// of the additions changes (rounding, as vectorisation changes it).
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/ReverseBuilder.h"

#include "clang/AST/ASTContext.h"

#include <functional>

using namespace clang;

namespace fluxion {
using namespace ir;

static void forEachStmtIn(Block &B, const std::function<void(Stmt &)> &F) {
  for (StmtP &S : B) {
    F(*S);
    forEachStmtIn(S->Then, F);
    forEachStmtIn(S->Else, F);
    for (SwitchSection &Sec : S->Sections)
      forEachStmtIn(Sec.Body, F);
  }
}

void ReverseBuilder::accumulateInLocals(const CountedFor &CL, Block &Body,
                                        Block &Before, Block &After) {
  llvm::DenseSet<const Var *> Written;
  Written.insert(CL.Counter);
  llvm::DenseMap<const Var *, unsigned> Mentions;
  forEachStmt(Body, [&](const Stmt &S) {
    if (S.K == StmtKind::Decl || ((S.K == StmtKind::Loop ||
                                   S.K == StmtKind::Repeat) && S.V))
      Written.insert(S.V);
    if (S.LHS)
      Written.insert(S.LHS->rootVar());
  });
  forEachExpr(Body, [&](const Expr &E) {
    if (E.K == ExprKind::VarRef)
      ++Mentions[E.V];
  });
  // Per candidate variable: its one lvalue, and how many accumulations.
  llvm::MapVector<const Var *, std::pair<ExprP, unsigned>> Sums;
  llvm::DenseSet<const Var *> Rejected;
  forEachStmt(Body, [&](const Stmt &S) {
    if (S.K != StmtKind::Assign ||
        (S.Op != BO_AddAssign && S.Op != BO_SubAssign) ||
        S.LHS->K != ExprKind::Index || !S.LHS->Ty->isRealFloatingType())
      return;
    const Var *V = S.LHS->rootVar();
    if (!V || !V->Adjoint || Rejected.count(V))
      return;
    auto &Entry = Sums[V];
    if (!Entry.first) {
      if (!invariantLValue(*S.LHS, Written)) {
        Rejected.insert(V);
        return;
      }
      Entry.first = S.LHS;
    } else if (!sameExpr(*Entry.first, *S.LHS)) {
      Rejected.insert(V);
      return;
    }
    ++Entry.second;
  });
  QualType T = CL.Counter->Type;
  for (auto &[V, Entry] : Sums) {
    // Each accumulation mentions V once (its lvalue's root); any other
    // mention reads or writes V some other way.
    if (Rejected.count(V) || Mentions.lookup(V) != Entry.second)
      continue;
    ExprP LV = Entry.first;
    const Var *Root = V;
    Var *Acc = adjointTemp("_acc", LV->Ty);
    forEachStmtIn(Body, [&](Stmt &S) {
      if (S.K == StmtKind::Assign && S.LHS && S.LHS->rootVar() == Root &&
          (S.Op == BO_AddAssign || S.Op == BO_SubAssign))
        S.LHS = ref(Acc);
    });
    Before.push_back(decl(Acc, floatConst(LV->Ty, 0)));
    Block Add;
    Add.push_back(assign(LV, ref(Acc), BO_AddAssign));
    ExprP Runs = binary(CL.Inclusive ? BO_LE : BO_LT, cast(T, CL.Begin),
                        cast(T, CL.End), Ctx.BoolTy);
    After.push_back(fluxion::ifStmt(Runs, std::move(Add)));
  }
}

} // namespace fluxion
