//===- ReverseLoopOrder.cpp - Reverse sweeps that may run forward ---------===//
//
// The reverse sweep of a loop runs its iterations backwards, because each
// iteration's reverse may need what a later iteration overwrote, or an
// adjoint a later iteration produced. Many loops need neither: sqnorm's
// `s += v[i] * v[i]` has the reverse `d_v[i] += 2 * d_s * v[i]`, whose
// iterations touch disjoint elements. Such a reverse loop can count up like
// the primal: the optimiser then sees an ordinary forward loop (no reversed
// vector shuffles, simpler induction variables), which compiles faster and
// streams through memory the way hardware prefetchers expect.
//
// The check is on the reverse body itself. Its iterations commute when
//  - nothing is popped from a tape (pops come back in LIFO order only);
//  - every scalar it writes is either fresh in each iteration (declared in
//    the reverse body, or the primal body's own locals, temporaries and
//    inner counters, and their adjoints), or only accumulated (+=, -=) and
//    read nowhere else in the body;
//  - every array it writes is either only accumulated into, or accessed
//    (read and written) at a single index that differs from iteration to
//    iteration (`c`, `c + k`, `k + c`, `c - k` with k unchanged in the
//    loop);
//  - calls are to functions that keep no state and record nothing (the
//    runtime's rules, <cmath>: not the sweeps of callees, which pop from
//    the tapes), and write only the body's own temporaries (rules' out
//    parameters).
// Distinct pointer and array variables are taken to designate distinct
// memory, as everywhere else in the reverse sweep. Reordering accumulations
// changes only the rounding of sums, as vectorising them does.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Passes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

using namespace clang;

namespace fluxion {
using namespace ir;

namespace {

/// The array or pointer variable an element access indexes directly
/// (`a[i]`, the array decaying to a pointer, or `p[i]`); null for `(p + k)[i]`
/// and `a[i][j]`.
const Var *indexedVar(const Expr &Base) {
  const Expr *E = &Base;
  if (E->K == ExprKind::Cast)
    E = E->Ops[0].get();
  return E->K == ExprKind::VarRef ? E->V : nullptr;
}

class IterationOrder {
public:
  IterationOrder(const Var *Counter, ASTContext &Ctx,
                 llvm::function_ref<bool(const FunctionDecl *)> OrderFree)
      : Counter(Counter), Ctx(Ctx), OrderFree(OrderFree) {}

  bool commute(const Block &PrimalBody, llvm::ArrayRef<StmtP> RevBody);

private:
  /// One access to an element of an array (or memory behind a pointer).
  struct Access {
    const Expr *Index;
    bool Write;
    bool Accumulate;
  };
  struct ScalarUse {
    unsigned Reads = 0;
    bool PlainWrite = false;
    bool AccumulateWrite = false;
  };

  bool stmts(llvm::ArrayRef<StmtP> B);
  bool stmt(const Stmt &S);
  bool call(const Expr &Call, bool IsStatement);
  bool read(const Expr &E);
  bool freshEachIteration(const Var *V) const;
  bool injective(const Expr &Index) const;
  bool invariant(const Expr &E) const;
  bool written(const Var *V) const;

  const Var *Counter;
  ASTContext &Ctx;
  llvm::function_ref<bool(const FunctionDecl *)> OrderFree;
  /// Scalars and arrays whose value does not outlive a primal iteration.
  llvm::DenseSet<const Var *> PrimalFresh;
  /// Declared by the reverse body itself.
  llvm::DenseSet<const Var *> Declared;
  llvm::DenseMap<const Var *, ScalarUse> Scalars;
  llvm::DenseMap<const Var *, llvm::SmallVector<Access, 4>> Elements;
  /// Pointers and arrays used as values (pointer arithmetic, arguments).
  llvm::DenseSet<const Var *> PointerUses;
};

bool IterationOrder::commute(const Block &PrimalBody,
                             llvm::ArrayRef<StmtP> RevBody) {
  // What C++ scoping makes fresh in each primal iteration: the body's own
  // declarations, the engine's temporaries for its calls, inner counters.
  forEachStmt(PrimalBody, [&](const Stmt &S) {
    if (S.K == StmtKind::Assign && S.LHS->K == ExprKind::VarRef &&
        (S.IsInit || S.LHS->V->K == Var::Kind::Temp))
      PrimalFresh.insert(S.LHS->V);
    if (S.K == StmtKind::Decl || (S.K == StmtKind::Loop && S.V))
      PrimalFresh.insert(S.V);
  });
  if (!stmts(RevBody))
    return false;

  if (written(Counter))
    return false;
  for (const auto &[V, Use] : Scalars) {
    if (!Use.PlainWrite && !Use.AccumulateWrite)
      continue;
    if (freshEachIteration(V))
      continue;
    // An accumulation nothing in the loop reads: a sum, in any order.
    if (Use.PlainWrite || Use.Reads > 0)
      return false;
  }
  for (const auto &[V, Accesses] : Elements) {
    bool Writes = false, OnlyAccumulates = true;
    for (const Access &A : Accesses) {
      Writes |= A.Write;
      OnlyAccumulates &= A.Write && A.Accumulate;
    }
    if (!Writes || freshEachIteration(V))
      continue;
    if (PointerUses.count(V))
      return false;
    if (OnlyAccumulates)
      continue;
    // Read or overwritten: every access is at the one element that belongs
    // to this iteration alone.
    const Expr &Index = *Accesses.front().Index;
    if (!injective(Index))
      return false;
    for (const Access &A : Accesses)
      if (!sameExpr(*A.Index, Index))
        return false;
  }
  return true;
}

bool IterationOrder::stmts(llvm::ArrayRef<StmtP> B) {
  for (const StmtP &S : B)
    if (!stmt(*S))
      return false;
  return true;
}

bool IterationOrder::stmt(const Stmt &S) {
  switch (S.K) {
  case StmtKind::Block:
    return stmts(S.body());
  case StmtKind::Decl:
    Declared.insert(S.V);
    return !S.RHS || read(*S.RHS);
  case StmtKind::Eval:
    return S.RHS->K == ExprKind::Call && call(*S.RHS, /*IsStatement=*/true);
  case StmtKind::If:
    return read(*S.Cond) && stmts(S.Then) && stmts(S.Else);
  case StmtKind::Loop:
    return read(*S.Cond) && stmts(S.body()) && stmts(S.inc());
  case StmtKind::Assign: {
    if (!read(*S.RHS))
      return false;
    bool Accumulate = S.Op == BO_AddAssign || S.Op == BO_SubAssign;
    const Expr &LHS = *S.LHS;
    if (LHS.K == ExprKind::VarRef) {
      ScalarUse &U = Scalars[LHS.V];
      (Accumulate ? U.AccumulateWrite : U.PlainWrite) = true;
      return true;
    }
    if (LHS.K != ExprKind::Index)
      return false;
    const Var *Root = indexedVar(*LHS.Ops[0]);
    if (!Root) {
      // x[i][j]: fine only for an array that is fresh in each iteration.
      Root = LHS.rootVar();
      Elements[Root].push_back({&LHS, true, false});
      PointerUses.insert(Root);
      return read(*LHS.Ops[0]) && read(*LHS.Ops[1]);
    }
    Elements[Root].push_back({LHS.Ops[1].get(), true, Accumulate});
    return read(*LHS.Ops[1]);
  }
  default:
    // Tape traffic, a nested reverse loop, jumps.
    return false;
  }
}

/// Calls may read anything; they may write only through pointers to, or
/// references of, the reverse body's own declarations.
bool IterationOrder::call(const Expr &Call, bool IsStatement) {
  const FunctionDecl *Callee = Call.Callee;
  if (!Callee || !OrderFree(Callee))
    return false;
  for (unsigned I = 0; I < Call.Ops.size(); ++I) {
    const Expr &Arg = *Call.Ops[I];
    QualType PT = I < Callee->getNumParams()
                      ? Callee->getParamDecl(I)->getType()
                      : QualType();
    bool Writes = !PT.isNull() && (PT->isPointerType() || PT->isReferenceType()) &&
                  !PT->getPointeeType().isConstQualified();
    if (!Writes) {
      if (!read(Arg))
        return false;
      continue;
    }
    const Expr *Target = Arg.K == ExprKind::AddrOf ? Arg.Ops[0].get() : &Arg;
    if (!IsStatement || Target->K != ExprKind::VarRef ||
        !Declared.count(Target->V))
      return false;
  }
  return true;
}

bool IterationOrder::read(const Expr &E) {
  switch (E.K) {
  case ExprKind::Pop:
  case ExprKind::AddrOf:
  case ExprKind::FuncRef:
    return false;
  case ExprKind::Call:
    return call(E, /*IsStatement=*/false);
  case ExprKind::VarRef:
    if (E.V->isArray() || E.V->isPointer())
      PointerUses.insert(E.V);
    else
      ++Scalars[E.V].Reads;
    return true;
  case ExprKind::Index:
    if (const Var *Root = indexedVar(*E.Ops[0])) {
      Elements[Root].push_back({E.Ops[1].get(), false, false});
      return read(*E.Ops[1]);
    }
    return read(*E.Ops[0]) && read(*E.Ops[1]);
  default:
    for (const ExprP &Op : E.Ops)
      if (!read(*Op))
        return false;
    return true;
  }
}

bool IterationOrder::freshEachIteration(const Var *V) const {
  return Declared.count(V) || PrimalFresh.count(V) ||
         (V->Primal && PrimalFresh.count(V->Primal));
}

bool IterationOrder::written(const Var *V) const {
  if (Declared.count(V))
    return true;
  auto S = Scalars.find(V);
  if (S != Scalars.end() && (S->second.PlainWrite || S->second.AccumulateWrite))
    return true;
  auto A = Elements.find(V);
  if (A != Elements.end())
    for (const Access &X : A->second)
      if (X.Write)
        return true;
  return false;
}

/// No variable the loop changes, the counter included.
bool IterationOrder::invariant(const Expr &E) const {
  bool OK = true;
  forEachExpr(E, [&](const Expr &Sub) {
    if (Sub.K == ExprKind::Pop || Sub.K == ExprKind::Call)
      OK = false;
    else if (Sub.K == ExprKind::VarRef)
      OK &= Sub.V != Counter && !written(Sub.V);
  });
  return OK;
}

/// A different value in every iteration: the counter, plus or minus
/// something the loop does not change, through widening casts.
bool IterationOrder::injective(const Expr &Index) const {
  switch (Index.K) {
  case ExprKind::VarRef:
    return Index.V == Counter;
  case ExprKind::Cast:
    return Index.Ty->isIntegerType() &&
           Ctx.getTypeSize(Index.Ty) >= Ctx.getTypeSize(Counter->Type) &&
           injective(*Index.Ops[0]);
  case ExprKind::Binary:
    if (Index.BOp == BO_Add)
      return (injective(*Index.Ops[0]) && invariant(*Index.Ops[1])) ||
             (invariant(*Index.Ops[0]) && injective(*Index.Ops[1]));
    if (Index.BOp == BO_Sub)
      return injective(*Index.Ops[0]) && invariant(*Index.Ops[1]);
    return false;
  default:
    return false;
  }
}

} // namespace

bool reverseIterationsCommute(
    const Block &PrimalBody, llvm::ArrayRef<StmtP> RevBody, const Var *Counter,
    ASTContext &Ctx, llvm::function_ref<bool(const FunctionDecl *)> OrderFree) {
  return IterationOrder(Counter, Ctx, OrderFree).commute(PrimalBody, RevBody);
}

} // namespace fluxion
