//===- RevolveLoop.cpp - Binomial checkpointing of a time-stepping loop ----===//
//
// A counted loop marked `#pragma fluxion revolve(s)` is not recorded step
// by step. Its forward sweep runs the steps as plain primal code, letting
// the runtime's schedule (Griewank-Walther revolve) snapshot the loop state
// into at most s slots, and records only the last step. Its reverse sweep
// lets the schedule restore snapshots and advance from them, and reverses
// one step at a time by running that step recorded and reversing it at
// once. The loop state is everything the body overwrites: scalars and
// local arrays by their size, memory behind pointers by the length the
// pragma's state(pointer, length) clause gives.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/ReverseBuilder.h"

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

using namespace clang;

namespace fluxion {
using namespace ir;

namespace {
/// The shape `for (i = a; i OP b; i = i +- 1)` after jump elimination: the
/// increment is the last statement of the body.
struct CountedLoop {
  Var *Counter = nullptr;
  ExprP Steps; ///< number of iterations, from the state at loop entry
};
} // namespace

static bool isUnitStep(const Stmt &S, Var *I, BinaryOperatorKind &Dir) {
  if (S.K != StmtKind::Assign || S.LHS->K != ExprKind::VarRef ||
      S.LHS->V != I)
    return false;
  const Expr &R = *S.RHS;
  if (R.K != ExprKind::Binary || (R.BOp != BO_Add && R.BOp != BO_Sub))
    return false;
  if (R.Ops[0]->K != ExprKind::VarRef || R.Ops[0]->V != I ||
      R.Ops[1]->K != ExprKind::Const || !R.Ops[1]->isOne())
    return false;
  Dir = R.BOp;
  return true;
}

/// Null after reporting why the loop is not a counted one.
static std::optional<CountedLoop> countedLoop(const Stmt &S,
                                              const RevolveSpec &Spec,
                                              ASTContext &Ctx,
                                              DiagReporter &Diags) {
  auto Fail = [&](const char *Why) -> std::optional<CountedLoop> {
    Diags.report(Spec.Loc, Diag::RevolveNotCounted) << Why;
    return std::nullopt;
  };
  const Expr &C = *S.Cond;
  if (!S.TestFirst || C.K != ExprKind::Binary ||
      C.Ops[0]->K != ExprKind::VarRef ||
      !C.Ops[0]->Ty->isIntegerType())
    return Fail("the condition is not 'counter < bound'");
  Var *I = C.Ops[0]->V;
  BinaryOperatorKind Dir;
  if (S.body().empty() || !isUnitStep(*S.body().back(), I, Dir))
    return Fail("the counter does not step by one at the end of each "
                "iteration");
  // Nothing else in the body may write the counter or the bound.
  llvm::DenseSet<const Var *> BoundVars;
  forEachExpr(*C.Ops[1], [&](const Expr &E) {
    if (E.K == ExprKind::VarRef)
      BoundVars.insert(E.V);
    if (E.K == ExprKind::Call || E.K == ExprKind::Pop)
      BoundVars.insert(nullptr);
  });
  if (BoundVars.count(nullptr))
    return Fail("the bound calls a function");
  bool Bad = false;
  std::function<void(const Block &, bool)> Scan = [&](const Block &B,
                                                      bool Top) {
    for (size_t K = 0; K < B.size(); ++K) {
      const Stmt &St = *B[K];
      if (Top && K + 1 == B.size())
        continue; // the increment
      if (St.K == StmtKind::Assign && St.LHS->rootVar() &&
          (St.LHS->rootVar() == I || BoundVars.count(St.LHS->rootVar())))
        Bad = true;
      Scan(St.Then, false);
      Scan(St.Else, false);
    }
  };
  Scan(S.body(), true);
  if (Bad)
    return Fail("the body writes the counter or the bound");
  QualType Long = Ctx.LongTy;
  ExprP Lo = cast(Long, C.Ops[0]), Hi = cast(Long, C.Ops[1]);
  ExprP One = intConst(Long, 1);
  ExprP Steps;
  switch (C.BOp) {
  case BO_LT:
  case BO_NE:
    if (Dir == BO_Add)
      Steps = binary(BO_Sub, Hi, Lo, Long);
    else if (C.BOp == BO_NE)
      Steps = binary(BO_Sub, Lo, Hi, Long);
    break;
  case BO_LE:
    if (Dir == BO_Add)
      Steps = binary(BO_Add, binary(BO_Sub, Hi, Lo, Long), One, Long);
    break;
  case BO_GT:
    if (Dir == BO_Sub)
      Steps = binary(BO_Sub, Lo, Hi, Long);
    break;
  case BO_GE:
    if (Dir == BO_Sub)
      Steps = binary(BO_Add, binary(BO_Sub, Lo, Hi, Long), One, Long);
    break;
  default:
    break;
  }
  if (!Steps)
    return Fail("the condition and the step do not count towards the bound");
  return CountedLoop{I, Steps};
}

bool ReverseBuilder::revolveLoop(const Stmt &S, const RevolveSpec &Spec,
                                 Sweeps &Out) {
  std::optional<CountedLoop> Counted = countedLoop(S, Spec, Ctx, Diags);
  if (!Counted)
    return false;

  // One step, recorded and reversed.
  Sweeps Step;
  ++LoopDepth;
  LoopStack.push_back(nullptr); // steps reversed out of order: no shortcuts
  bool OK = stmts(S.body(), Step);
  OK &= stmts(S.inc(), Step);
  LoopStack.pop_back();
  --LoopDepth;
  if (!OK)
    return false;
  if (Step.Rev.empty()) // nothing to reverse: the plain loop will do
    return loop(S, Out);

  // The loop state: what the body overwrites, except variables declared in
  // it (they do not outlive an iteration) and the engine's temporaries.
  llvm::SetVector<Var *> Written, Memory;
  llvm::DenseSet<const Var *> DeclaredInside;
  forEachStmt(S.body(), [&](const Stmt &St) {
    if (St.K == StmtKind::Assign && St.IsInit && St.LHS->K == ExprKind::VarRef)
      DeclaredInside.insert(St.LHS->V);
  });
  forEachStmt(S.body(), [&](const Stmt &St) {
    if (St.K == StmtKind::Assign) {
      Var *Root = St.LHS->rootVar();
      if (Root && Root->isPointer() && St.LHS->K == ExprKind::Index)
        Memory.insert(Root);
      else if (Root)
        Written.insert(Root);
    }
    if ((St.K == StmtKind::Assign || St.K == StmtKind::Eval) && St.RHS &&
        St.RHS->K == ExprKind::Call)
      for (const ExprP &A : St.RHS->Ops) {
        if (!A->Ty->isPointerType() ||
            A->Ty->getPointeeType().isConstQualified())
          continue;
        Var *Root = A->rootVar();
        if (!Root)
          continue;
        if (Root->isPointer())
          Memory.insert(Root);
        else
          Written.insert(Root);
      }
  });

  QualType SizeT = Ctx.getSizeType();
  std::vector<std::pair<ExprP, ExprP>> Parts; // pointer, element count
  for (Var *V : Written) {
    if (V->K == Var::Kind::Temp || V->K == Var::Kind::Tape ||
        DeclaredInside.count(V) || Generated.count(V))
      continue;
    // A counter or flag (EffectGlobals.cpp) would be put back and counted
    // again each time the reverse sweep recomputes iterations.
    if (V->K == Var::Kind::Global) {
      Diags.report(Spec.Loc, Diag::NotSupported)
          << ("writing the global '" + V->Name +
              "' in a loop under '#pragma fluxion revolve' (its iterations "
              "are recomputed)")
          << "count or flag outside the loop";
      return false;
    }
    if (const auto *AT = Ctx.getAsConstantArrayType(V->Type)) {
      Parts.push_back({ref(V), intConst(SizeT, AT->getSize().getZExtValue())});
      continue;
    }
    Parts.push_back({addrOf(ref(V), Ctx.getPointerType(V->Type)),
                     intConst(SizeT, 1)});
  }
  for (Var *V : Memory) {
    auto It = llvm::find_if(Spec.State, [&](const auto &P) {
      return P.first->rootVar() == V;
    });
    if (It == Spec.State.end()) {
      Diags.report(Spec.Loc, Diag::RevolveUnknownExtent) << V->Name;
      return false;
    }
    Parts.push_back({It->first, cast(SizeT, It->second)});
  }

  // Runtime entry points.
  QualType Long = Ctx.LongTy;
  FunctionDecl *Begin =
      Oracle.runtimeFunction("revolve_begin", {Long, Ctx.IntTy}, Spec.Loc);
  FunctionDecl *Forward = Oracle.runtimeFunction("revolve_forward", {}, Spec.Loc);
  FunctionDecl *Rebind = Oracle.runtimeFunction("revolve_rebind", {}, Spec.Loc);
  FunctionDecl *Turn = Oracle.runtimeFunction("revolve_turn", {}, Spec.Loc);
  FunctionDecl *Reverse = Oracle.runtimeFunction("revolve_reverse", {}, Spec.Loc);
  if (!Begin || !Forward || !Rebind || !Turn || !Reverse)
    return false;
  auto Register = [&](Block &B) {
    for (auto &[Ptr, Len] : Parts) {
      QualType PtrTy = Ptr->Ty->isArrayType()
                           ? Ctx.getArrayDecayedType(Ptr->Ty)
                           : Ptr->Ty;
      FunctionDecl *State =
          Oracle.runtimeFunction("revolve_state", {PtrTy, SizeT}, Spec.Loc);
      if (!State)
        return false;
      B.push_back(eval(call(State, {Ptr, Len}, Ctx.VoidTy), Spec.Loc));
    }
    return true;
  };
  auto Local = [&](StringRef Name, QualType T) {
    Var *V = temp(Name, T);
    V->K = Var::Kind::Local;
    F.Locals.push_back(V);
    return V;
  };
  Var *K = Local("_rv_k", Long);
  Var *I = Local("_rv_i", Long);
  // while (_rv_i > 0) { <plain step>; _rv_i = _rv_i - 1; } with _rv_i = _rv_k.
  auto PlainSteps = [&]() {
    Block B;
    B.push_back(assign(ref(I), ref(K)));
    auto L = std::make_unique<Stmt>(StmtKind::Loop, S.Loc);
    L->Cond = binary(BO_GT, ref(I), intConst(Long, 0), Ctx.BoolTy);
    L->body() = clone(S.body());
    for (StmtP &St : clone(S.inc()))
      L->body().push_back(std::move(St));
    L->body().push_back(
        assign(ref(I), binary(BO_Sub, ref(I), intConst(Long, 1), Long)));
    B.push_back(std::move(L));
    return B;
  };
  auto Ask = [&](FunctionDecl *Fn) {
    return assign(ref(K), call(Fn, {}, Long), BO_Assign, Spec.Loc);
  };
  auto Positive = [&](BinaryOperatorKind Op) {
    return binary(Op, ref(K), intConst(Long, 0), Ctx.BoolTy);
  };

  // Forward sweep: plain steps between snapshots, the last step recorded.
  Block &Fwd = Out.Fwd;
  Fwd.push_back(eval(call(Begin,
                          {Counted->Steps, cast(Ctx.IntTy, Spec.Snapshots)},
                          Ctx.VoidTy),
                     Spec.Loc));
  if (!Register(Fwd))
    return false;
  Fwd.push_back(Ask(Forward));
  {
    auto L = std::make_unique<Stmt>(StmtKind::Loop, S.Loc);
    L->Cond = Positive(BO_GT);
    L->body() = PlainSteps();
    L->body().push_back(Ask(Forward));
    Fwd.push_back(std::move(L));
  }
  ExprP LastTaped = binary(BO_EQ, ref(K), intConst(Long, 0), Ctx.BoolTy);
  Fwd.push_back(ir::ifStmt(LastTaped, clone(Step.Fwd)));
  // Whether the last step ran recorded travels on the tape rather than
  // through the runtime: a checkpointed loop inside that step is still on
  // the runtime's stack above this one until the step is reversed.
  Var *Flags = tapeFor(Ctx.BoolTy);
  Fwd.push_back(push(Flags, LastTaped));

  // Reverse sweep: the recorded last step first, then what the schedule
  // says until it terminates.
  Block &Rev = Out.Rev;
  Rev.push_back(ir::ifStmt(pop(Flags), clone(Step.Rev)));
  Rev.push_back(eval(call(Rebind, {}, Ctx.VoidTy), Spec.Loc));
  if (!Register(Rev))
    return false;
  Rev.push_back(eval(call(Turn, {}, Ctx.BoolTy), Spec.Loc));
  Rev.push_back(Ask(Reverse));
  auto L = std::make_unique<Stmt>(StmtKind::Loop, S.Loc);
  L->Cond = Positive(BO_GE);
  Block Taped = std::move(Step.Fwd);
  for (StmtP &St : Step.Rev)
    Taped.push_back(std::move(St));
  L->body().push_back(ir::ifStmt(Positive(BO_GT), PlainSteps(), std::move(Taped)));
  L->body().push_back(Ask(Reverse));
  Rev.push_back(std::move(L));
  return true;
}

} // namespace fluxion
