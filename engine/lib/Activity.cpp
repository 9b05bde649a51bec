//===- Activity.cpp - Activity and assignment analyses ---------------------===//
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/Passes.h"

using namespace clang;

namespace fluxion {
using namespace ir;

static bool carriesDerivative(QualType T) { return isDifferentiableType(T); }

ActivityInfo::ActivityInfo(const Function &F, llvm::ArrayRef<Var *> Params)
    : ActivityInfo(F.Body, Params) {}

ActivityInfo::ActivityInfo(const Block &Body, llvm::ArrayRef<Var *> Params) {
  for (Var *P : Params)
    Active.insert(P);
  bool Changed = true;
  auto Mark = [&](Var *Root) {
    if (Root && !Active.count(Root) && carriesDerivative(Root->Type)) {
      Active.insert(Root);
      Changed = true;
    }
  };
  while (Changed) {
    Changed = false;
    forEachStmt(Body, [&](const Stmt &S) {
      if (S.K == StmtKind::Eval && S.RHS->K == ExprKind::Call) {
        markOutputs(*S.RHS, Changed);
        return;
      }
      // Block-local declarations of generated code initialise like
      // assignments.
      if (S.K == StmtKind::Decl) {
        if (S.RHS && isActive(*S.RHS))
          Mark(S.V);
        return;
      }
      // Likewise a range restored from a tape.
      if (S.K == StmtKind::PopRange) {
        Mark(S.LHS->rootVar());
        return;
      }
      if (S.K != StmtKind::Assign)
        return;
      if (S.RHS->K == ExprKind::Call)
        markOutputs(*S.RHS, Changed);
      // Values restored from a tape carry derivatives whenever their type
      // does: tangents travel with every floating value on the tape, so
      // that the sweeps that push and pop them agree.
      if (S.RHS->K == ExprKind::Pop || isActive(*S.RHS))
        Mark(S.LHS->rootVar());
    });
  }
}

void ActivityInfo::markOutputs(const Expr &Call, bool &Changed) {
  if (!isActiveCall(Call))
    return;
  // An active call may write active values through every non-const
  // floating pointer it receives.
  for (const ExprP &A : Call.Ops) {
    if (!A->Ty->isPointerType() || !carriesDerivative(A->Ty))
      continue;
    if (A->Ty->getPointeeType().isConstQualified())
      continue;
    Var *Root = A->rootVar();
    if (Root && Root->K != Var::Kind::Global && !Active.count(Root)) {
      Active.insert(Root);
      Changed = true;
    }
  }
}

bool ActivityInfo::isActiveCall(const Expr &Call) const {
  for (const ExprP &A : Call.Ops)
    if (isActive(*A))
      return true;
  return false;
}

bool ActivityInfo::isActive(const Expr &E) const {
  if (!carriesDerivative(E.Ty))
    return false;
  switch (E.K) {
  case ExprKind::Const:
  case ExprKind::Pop:
  case ExprKind::StopGrad:
  case ExprKind::FuncRef:
  case ExprKind::Size:
    return false;
  case ExprKind::VarRef:
    return Active.count(E.V);
  case ExprKind::Index:
  case ExprKind::Member:
  case ExprKind::AddrOf:
  case ExprKind::Cast:
  case ExprKind::Unary:
    return isActive(*E.Ops[0]);
  case ExprKind::Binary:
    return isActive(*E.Ops[0]) || isActive(*E.Ops[1]);
  case ExprKind::Cond:
    return isActive(*E.Ops[1]) || isActive(*E.Ops[2]);
  case ExprKind::Call:
    return isActiveCall(E);
  }
  return false;
}

AssignmentInfo::AssignmentInfo(const Function &F) {
  // A parameter is set once on entry, by the caller.
  for (const Var *P : F.Params)
    note(P, 0);
  visit(F.Body, 0);
}

void AssignmentInfo::note(const Var *V, unsigned LoopDepth) {
  if (!V)
    return;
  ++Sites[V];
  if (LoopDepth)
    InLoop.insert(V);
}

void AssignmentInfo::visit(const Block &B, unsigned Depth) {
  for (const StmtP &S : B) {
    switch (S->K) {
    case StmtKind::Assign:
      note(S->LHS->rootVar(), Depth);
      break;
    case StmtKind::Resize:
      // A size change after the first sizing changes elements too.
      if (S->Undo)
        note(S->LHS->rootVar(), Depth);
      break;
    case StmtKind::Loop:
    case StmtKind::Repeat:
      visit(S->body(), Depth + 1);
      visit(S->inc(), Depth + 1);
      continue;
    default:
      break;
    }
    // Calls may write through the pointers they receive.
    const Expr *Call = S->RHS && S->RHS->K == ExprKind::Call ? S->RHS.get()
                                                             : nullptr;
    if (Call)
      for (const ExprP &A : Call->Ops)
        if (A->Ty->isPointerType() &&
            !A->Ty->getPointeeType().isConstQualified())
          note(A->rootVar(), Depth);
    visit(S->Then, Depth);
    visit(S->Else, Depth);
    for (const SwitchSection &Sec : S->Sections)
      visit(Sec.Body, Depth);
  }
}

bool AssignmentInfo::isConstant(const Var *V) const {
  auto It = Sites.find(V);
  if (It == Sites.end())
    return true;
  return It->second == 1 && !InLoop.count(V);
}

} // namespace fluxion
