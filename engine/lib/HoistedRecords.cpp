//===- HoistedRecords.cpp - One record around a loop, not one per write ----===//
//
// An accumulation inside a counted loop, `gate[g] += W[g][j] * x[j]` over
// j, overwrites gate[g] at every iteration. Recording the old value at
// each write costs one tape entry per iteration, yet the reverse sweep of
// the loop's body never reads gate: only what comes before the loop does,
// and it needs gate[g] as it was before the loop. So the value is recorded
// once, before the loop, and restored once, after the loop's reverse.
// Likewise GMM's triangular product `for j, for l > j: qxc[l] += ...`
// records the d - 1 elements it updates once, not d(d - 1) / 2 times.
//
// That is sound when, for the variable V written, at every loop level the
// record moves out of:
//   - the loop is counted (its bounds do not change inside it), and no
//     reverse sweep of its body reads V (BodyReads, a union over the
//     to-be-recorded rounds, so the test only grows stricter);
//   - every write to V in the loop is to the same lvalue, and nothing else
//     can write V there: V's address is never taken, no call in the loop
//     is given V, V is not declared inside it.
// What is recorded must be exactly what the primal touches, or a record
// could read memory the primal never reads:
//   - a scalar (no index) is always safe to read: it moves out of as many
//     levels as qualify;
//   - an element whose index the innermost loop does not change is
//     recorded around that loop, when the write is unconditional in it;
//   - an element indexed by the innermost counter (plus a constant) is
//     recorded as the range of indices that loop covers, or, one level up,
//     the union of those ranges over the enclosing loop, when the inner
//     bounds keep that union contiguous and exact (each bound either fixed
//     in the enclosing loop or its counter plus a constant, not both).
// Records are guarded by the loop running and the range being non-empty;
// ranges use the tape's push_range, which second-order code does not
// follow, so they are first order only.
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

static const Expr &stripCasts(const Expr &E) {
  return E.K == ExprKind::Cast ? stripCasts(*E.Ops[0]) : E;
}

/// E reads only constants and variables outside Written.
static bool invariant(const Expr &E,
                      const llvm::DenseSet<const Var *> &Written) {
  bool OK = true;
  forEachExpr(E, [&](const Expr &Sub) {
    switch (Sub.K) {
    case ExprKind::Const:
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Cast:
      return;
    case ExprKind::VarRef:
      OK &= !Written.count(Sub.V) && !Sub.V->isPointer() && !Sub.V->isArray();
      return;
    default:
      OK = false;
    }
  });
  return OK;
}

bool invariantLValue(const Expr &LV,
                     const llvm::DenseSet<const Var *> &Written) {
  switch (LV.K) {
  case ExprKind::VarRef:
    return true;
  case ExprKind::Member:
    return invariantLValue(*LV.Ops[0], Written);
  case ExprKind::Index:
    return invariantLValue(*LV.Ops[0], Written) &&
           invariant(*LV.Ops[1], Written);
  default:
    return false;
  }
}

static bool hasIndex(const Expr &LV) {
  if (LV.K == ExprKind::Index)
    return true;
  return LV.K == ExprKind::Member && hasIndex(*LV.Ops[0]);
}

/// E is C, C + k, k + C or C - k for the counter C, k a constant: sets K.
static bool counterPlus(const Expr &E, const Var *C, int64_t &K) {
  const Expr &S = stripCasts(E);
  if (S.K == ExprKind::VarRef && S.V == C) {
    K = 0;
    return true;
  }
  if (S.K != ExprKind::Binary || (S.BOp != BO_Add && S.BOp != BO_Sub))
    return false;
  const Expr &A = stripCasts(*S.Ops[0]), &B = stripCasts(*S.Ops[1]);
  auto Value = [](const Expr &X) { return X.IVal.getExtValue(); };
  if (A.K == ExprKind::VarRef && A.V == C && B.K == ExprKind::Const &&
      B.Ty->isIntegerType()) {
    K = S.BOp == BO_Add ? Value(B) : -Value(B);
    return true;
  }
  if (S.BOp == BO_Add && B.K == ExprKind::VarRef && B.V == C &&
      A.K == ExprKind::Const && A.Ty->isIntegerType()) {
    K = Value(A);
    return true;
  }
  return false;
}

/// What a loop writes: every assigned root, declared variable and counter.
static llvm::DenseSet<const Var *> writtenIn(const ir::Stmt &L) {
  llvm::DenseSet<const Var *> Written;
  Written.insert(L.V);
  forEachStmt(L.body(), [&](const ir::Stmt &W) {
    if (W.K == StmtKind::Decl || (W.K == StmtKind::Loop && W.V))
      Written.insert(W.V);
    if (W.LHS)
      Written.insert(W.LHS->rootVar());
  });
  return Written;
}

/// S is the only kind of write to V in L: every write to V is to S's
/// lvalue, V is not declared in L, and no call in L is given V.
static bool onlyWriter(const ir::Stmt &L, const Var *V, const ir::Stmt &S) {
  bool OK = true;
  forEachStmt(L.body(), [&](const ir::Stmt &W) {
    if (W.K == StmtKind::Decl)
      OK &= W.V != V;
    for (const ExprP *E : {&W.RHS, &W.Cond})
      if (*E)
        forEachExpr(**E, [&](const Expr &Sub) {
          if (Sub.K == ExprKind::Call)
            for (const ExprP &Arg : Sub.Ops)
              OK &= !reads(*Arg, V);
        });
    if (W.LHS && W.LHS->rootVar() == V)
      OK &= W.K == StmtKind::Assign && sameExpr(*W.LHS, *S.LHS);
  });
  return OK;
}

std::optional<ReverseBuilder::HoistedRecord>
ReverseBuilder::elementRange(const ExprP &LV, size_t Level) const {
  // Ranges are saved with push_range: first order only.
  if (!Oracle.checkpointsEnabled() || LV->K != ExprKind::Index ||
      stripCasts(*LV->Ops[0]).K != ExprKind::VarRef ||
      !LV->Ty->isScalarType())
    return std::nullopt;
  const size_t Innermost = LoopStack.size() - 1;
  if (Level != Innermost && Level + 1 != Innermost)
    return std::nullopt;
  const CountedFor &In = Counted.find(LoopStack[Innermost])->second;
  int64_t K;
  if (!counterPlus(*LV->Ops[1], In.Counter, K))
    return std::nullopt;
  QualType T = In.Counter->Type;
  // E + By, folded when E is a constant (readable generated code).
  auto Plus = [&](ExprP E, int64_t By) {
    const Expr &Bare = stripCasts(*E);
    if (Bare.K == ExprKind::Const && Bare.Ty->isIntegerType())
      return intConst(T, Bare.IVal.getExtValue() + By);
    E = cast(T, std::move(E));
    if (By == 0)
      return E;
    return binary(By > 0 ? BO_Add : BO_Sub, std::move(E),
                  intConst(T, By > 0 ? By : -By), T);
  };
  // The inner loop's counter covers [Begin, End), End exclusive.
  ExprP Begin = In.Begin, End = Plus(In.End, In.Inclusive ? 1 : 0);
  if (Level + 1 == Innermost) {
    const ir::Stmt *Outer = LoopStack[Level];
    const CountedFor &Out = Counted.find(Outer)->second;
    llvm::DenseSet<const Var *> Written = writtenIn(*Outer);
    int64_t BK = 0, EK = 0;
    bool BeginMoves = counterPlus(*In.Begin, Out.Counter, BK);
    bool EndMoves = counterPlus(*In.End, Out.Counter, EK);
    if ((BeginMoves && EndMoves) ||
        (!BeginMoves && !invariant(*In.Begin, Written)) ||
        (!EndMoves && !invariant(*In.End, Written)))
      return std::nullopt;
    // Over the outer iterations the union of [Begin, End) is
    // [min Begin, max End), all of it covered: by the first outer
    // iteration when Begin moves, by the last when End does.
    if (BeginMoves)
      Begin = Plus(Out.Begin, BK);
    if (EndMoves) {
      QualType OT = Out.Counter->Type;
      ExprP Last = Out.Inclusive ? cast(OT, Out.End)
                                 : binary(BO_Sub, cast(OT, Out.End),
                                          intConst(OT, 1), OT);
      End = Plus(std::move(Last), EK + (In.Inclusive ? 1 : 0));
    }
  }
  HoistedRecord R;
  R.LV = LV;
  R.OwnCounter = Level == Innermost;
  ExprP Start = Plus(Begin, K);
  R.First = addrOf(index(LV->Ops[0], Start, LV->Ty),
                   Ctx.getPointerType(LV->Ty));
  R.NonEmpty = binary(BO_LT, Plus(Begin, 0), End, Ctx.BoolTy);
  const Expr &B = stripCasts(*Start);
  R.Count = B.K == ExprKind::Const && B.IVal == 0 && K == 0
                ? End
                : binary(BO_Sub, End, Plus(Begin, 0), T);
  return R;
}

bool ReverseBuilder::hoistRecord(const ir::Stmt &S) {
  Var *V = S.LHS->rootVar();
  if (LoopStack.empty() || !V || V->K == Var::Kind::Global ||
      AddressTaken.count(V) || mustRestore(V))
    return false;
  const bool Indexed = hasIndex(*S.LHS);
  const ir::Stmt *Target = nullptr;
  HoistedRecord Best;
  // From the innermost loop outwards, while each level qualifies.
  for (size_t Level = LoopStack.size(); Level-- > 0;) {
    const ir::Stmt *L = LoopStack[Level];
      if (!L || !Counted.count(L))
      break;
    auto Reads = BodyReads.find(L);
    if (Reads == BodyReads.end() || Reads->second.count(V) ||
        !onlyWriter(*L, V, S))
      break;
    if (!Indexed) { // a scalar or a member of one: always safe to read
      Target = L;
      Best.LV = S.LHS;
      continue;
    }
    // An element is read only where the primal touches it for sure.
    if (CondDepth != CondDepthAt.lookup(L))
      break;
    if (Level + 1 == LoopStack.size() &&
        invariantLValue(*S.LHS, writtenIn(*L))) {
      Target = L;
      Best.LV = S.LHS;
      continue;
    }
    auto Range = elementRange(S.LHS, Level);
    if (!Range)
      break;
    Target = L;
    Best = *Range;
  }
  if (!Target)
    return false;
  // A scalar unread where the loop starts: nothing to keep
  // (UnreadValues.cpp).
  if (!Best.First && Best.LV->K == ExprKind::VarRef &&
      unreadAtLoop(*Target, V))
    return true;
  auto &List = HoistedRecords[Target];
  if (llvm::none_of(List, [&](const HoistedRecord &R) {
        return sameExpr(*R.LV, *S.LHS);
      }))
    List.push_back(std::move(Best));
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
  Block Records, Restores;
  for (const HoistedRecord &R : It->second) {
    if (!R.First) {
      Sweeps One;
      Block Restore;
      record(R.LV, One, Restore);
      Records.push_back(fluxion::ifStmt(Runs(), std::move(One.Fwd)));
      Restores.push_back(fluxion::ifStmt(Runs(), std::move(Restore)));
      continue;
    }
    // A range is read only when it has elements: its start is then one.
    // (Over one loop, that is the loop running; over two, the outer one
    // must run too.)
    Var *Tape = tapeFor(R.LV->Ty);
    auto Guard = [&] {
      if (R.OwnCounter)
        return R.NonEmpty;
      return binary(BO_LAnd, Runs(), R.NonEmpty, Ctx.BoolTy);
    };
    Block Push, Pop;
    Push.push_back(pushRange(Tape, R.First, cast(Ctx.LongTy, R.Count)));
    Pop.push_back(popRange(Tape, R.First, cast(Ctx.LongTy, R.Count)));
    Records.push_back(fluxion::ifStmt(Guard(), std::move(Push)));
    Restores.push_back(fluxion::ifStmt(Guard(), std::move(Pop)));
  }
  // Restored in the opposite order of the records.
  std::reverse(Restores.begin(), Restores.end());
  for (StmtP &S : Records)
    Before.Fwd.push_back(std::move(S));
  for (StmtP &S : Restores)
    After.push_back(std::move(S));
}

} // namespace fluxion
