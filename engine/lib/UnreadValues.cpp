//===- UnreadValues.cpp - Old values no reverse sweep reads ---------------===//
//
// An accumulator set to a constant and then summed into,
//
//   dot = 0;  for (k...) dot += q[k] * v[k];  norm += dot * dot;
//
// is recorded before the loop (HoistedRecords.cpp) because the reverse
// sweep reads dot (for norm's derivative), and every overwrite of a
// variable the reverse sweep reads is recorded. Yet the value that record
// keeps, the 0, is read by nothing: in the reverse sweep, the restore
// after the loop's reverse is followed by the reverses of the statements
// between `dot = 0` and the loop, none of which reads dot, and then by the
// restore of `dot = 0` itself, which sets dot again. GMM's log-sum-exp
// (`se = 0; for c: se += exp(...)`), an LSTM gate's `acc = 0; acc += ...`
// and Eigen products lowered to dot products all have this shape.
//
// So, walking the statements in order, a local scalar whose current value
// was set by `v = constant`, `v += e` or `v -= e` (e not reading v: the
// reverses of these read nothing of v) is *unread* until a statement whose
// reverse sweep reads v runs, or another write. An overwrite of an unread local records
// nothing when its own reverse does not read the value it destroys (`v =
// e`, `v += e`, `v -= e`, e not reading v); a record hoisted before a
// loop is dropped when the local is unread where the loop starts.
//
// The set is conservative where control flow joins: what a block adds does
// not leave it (each branch starts from what held before the branch), a
// loop's body starts without the variables the loop writes (a later
// iteration sees the last one's values), and whatever a statement writes
// is not unread after it unless that statement is one of the three forms,
// or a loop or branch whose every write of it is, which starts with it
// unread (`dot = 0.5; for k: dot += ...; dot -= v[r];` records nothing
// for either update) and whose reverse does not read it.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/ReverseBuilder.h"

using namespace clang;

namespace fluxion {
using namespace ir;

/// Every variable S (and what it nests) assigns, declares or counts with.
static void collectWrites(const ir::Stmt &S,
                          llvm::DenseSet<const Var *> &Written) {
  auto One = [&](const ir::Stmt &W) {
    if (W.V && (W.K == StmtKind::Decl || W.K == StmtKind::Loop))
      Written.insert(W.V);
    if (W.LHS)
      Written.insert(W.LHS->rootVar());
  };
  One(S);
  for (const Block *B : {&S.Then, &S.Else})
    forEachStmt(*B, One);
  for (const SwitchSection &Sec : S.Sections)
    forEachStmt(Sec.Body, One);
}

/// E reads V.
static bool readsVar(const Expr &E, const Var *V) {
  bool Found = false;
  forEachExpr(E, [&](const Expr &Sub) {
    Found |= Sub.K == ExprKind::VarRef && Sub.V == V;
  });
  return Found;
}

/// E is a constant: no variable, call or tape read in it.
static bool isConstantExpr(const Expr &E) {
  bool OK = true;
  forEachExpr(E, [&](const Expr &Sub) {
    if (Sub.K == ExprKind::VarRef || Sub.K == ExprKind::Call ||
        Sub.K == ExprKind::Pop)
      OK = false;
  });
  return OK;
}

bool ReverseBuilder::unreadCandidate(const Var *V) const {
  return V && (V->K == Var::Kind::Local || V->K == Var::Kind::Temp) &&
         V->Type->isScalarType() && !V->isPointer() &&
         !AddressTaken.count(V) && !Generated.count(V) &&
         !llvm::is_contained(LoopStack, nullptr);
}

/// `v = e`, `v += e`, `v -= e` on the whole variable v, e not reading v:
/// its reverse reads nothing of v. The variable, or null.
static const Var *plainUpdate(const ir::Stmt &S) {
  if (S.K != StmtKind::Assign || !S.LHS || S.LHS->K != ExprKind::VarRef ||
      !S.RHS || S.RHS->K == ExprKind::Call)
    return nullptr;
  if (S.Op != BO_Assign && S.Op != BO_AddAssign && S.Op != BO_SubAssign)
    return nullptr;
  return readsVar(*S.RHS, S.LHS->V) ? nullptr : S.LHS->V;
}

bool ReverseBuilder::overwritesUnread(const ir::Stmt &S) const {
  const Var *V = plainUpdate(S);
  return V && unreadCandidate(V) && Unread.count(V);
}

bool ReverseBuilder::unreadAtLoop(const ir::Stmt &Loop, const Var *V) const {
  auto It = UnreadAtLoop.find(&Loop);
  return unreadCandidate(V) && It != UnreadAtLoop.end() &&
         It->second.count(V);
}

/// Every write of V in S (and what it nests) is `v = c`, `v += e` or
/// `v -= e`, e not reading v.
static bool onlyPlainUpdates(const ir::Stmt &S, const Var *V) {
  bool OK = true;
  auto One = [&](const ir::Stmt &W) {
    if (W.V == V && (W.K == StmtKind::Decl || W.K == StmtKind::Loop))
      OK = false;
    if (!W.LHS || W.LHS->rootVar() != V)
      return;
    OK &= plainUpdate(W) == V &&
          (W.Op != BO_Assign || isConstantExpr(*W.RHS));
  };
  One(S);
  for (const Block *B : {&S.Then, &S.Else})
    forEachStmt(*B, One);
  for (const SwitchSection &Sec : S.Sections)
    forEachStmt(Sec.Body, One);
  return OK;
}

void ReverseBuilder::noteUnreadBefore(const ir::Stmt &S) {
  if (S.K == StmtKind::Assign || S.K == StmtKind::Eval)
    return;
  // Hoisted records save the values where a loop starts (and a statement
  // that only updates an unread local leaves it unread: noteUnreadAfter).
  UnreadAtLoop[&S] = Unread;
  if (S.K != StmtKind::Loop)
    return;
  // A loop's body starts without what the loop writes (a later iteration
  // sees them written).
  llvm::DenseSet<const Var *> Written;
  collectWrites(S, Written);
  for (const Var *V : Written)
    Unread.erase(V);
}

void ReverseBuilder::noteUnreadAfter(const ir::Stmt &S, const Block &Rev) {
  llvm::DenseSet<const Var *> ReadBack;
  forEachExpr(Rev, [&](const Expr &E) {
    if (E.K == ExprKind::VarRef)
      ReadBack.insert(E.V);
  });
  for (const Var *V : ReadBack)
    Unread.erase(V);
  llvm::DenseSet<const Var *> Written;
  collectWrites(S, Written);
  // A loop or branch that only updates a local unread where it starts
  // (also when it runs no update at all) leaves it unread, if its reverse
  // reads none of it.
  llvm::SmallVector<const Var *, 4> Kept;
  if (auto At = UnreadAtLoop.find(&S); At != UnreadAtLoop.end())
    for (const Var *V : Written)
      if (At->second.count(V) && !ReadBack.count(V) && unreadCandidate(V) &&
          onlyPlainUpdates(S, V))
        Kept.push_back(V);
  for (const Var *V : Written)
    Unread.erase(V);
  Unread.insert(Kept.begin(), Kept.end());
  const Var *V = plainUpdate(S);
  if (!V || !unreadCandidate(V))
    return;
  // Their reverses read nothing of v: the value v now holds is read by
  // nothing yet (for `v = e`, only a constant e is taken as certain).
  if (S.Op != BO_Assign || isConstantExpr(*S.RHS))
    Unread.insert(V);
}

} // namespace fluxion
