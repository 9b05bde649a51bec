//===- TangentBuilder.cpp - Tangent (forward-mode) code --------------------===//
#include "fluxion/engine/TangentBuilder.h"
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/ReverseBuilder.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace fluxion {
using namespace ir;

TangentBuilder::TangentBuilder(Function &F, ASTContext &Ctx,
                               const ActivityInfo &Activity,
                               TangentOracle &Oracle, DiagReporter &Diags,
                               llvm::DenseMap<Var *, Var *> &Tangents)
    : F(F), Ctx(Ctx), Activity(Activity), Oracle(Oracle), Diags(Diags),
      Tangents(Tangents) {}

std::optional<Block> TangentBuilder::build(const Block *Body) {
  Block Out;
  if (!stmts(Body ? *Body : F.Body, Out))
    return std::nullopt;
  return Out;
}

bool TangentBuilder::isSink(const Expr &E) const {
  const Var *Root = E.rootVar();
  return Root && Sinks.count(Root);
}

bool TangentBuilder::carriesTangent(QualType T) const {
  if (T->isArrayType())
    T = Ctx.getBaseElementType(T);
  // An object of a struct of reals carries the tangents of its members (a
  // callee's split pair hands a struct local from its forward function to
  // its backward one as a whole).
  return T->isRealFloatingType() || isDifferentiableRecord(T);
}

Var *TangentBuilder::tangentVar(Var *V) {
  auto It = Tangents.find(V);
  if (It != Tangents.end())
    return It->second;
  std::string Name = V->Name.front() == '_' ? "_t" + V->Name : "_t_" + V->Name;
  Var *T = F.makeVar(Var::Kind::Local, Name, V->Type.getUnqualifiedType());
  T->Primal = V;
  T->ZeroInit = true;
  F.Locals.push_back(T);
  Tangents[V] = T;
  return T;
}

ExprP TangentBuilder::zero(QualType T) {
  return floatConst(T.getUnqualifiedType(), 0);
}

ExprP TangentBuilder::tangentOf(const Expr &E) {
  if (ExprP T = shadowOf(E, Ctx, [&](Var *V) { return tangentVar(V); }))
    return T;
  Diags.report(E.Loc, Diag::InternalError) << "tangent of a non-lvalue";
  return zero(Ctx.DoubleTy);
}

ExprP TangentBuilder::tangent(const Expr &E) {
  if (!Activity.isActive(E))
    return nullptr;
  QualType Ty = E.Ty;
  switch (E.K) {
  case ExprKind::VarRef:
  case ExprKind::Index:
  case ExprKind::Member:
    return tangentOf(E);
  case ExprKind::Unary: {
    ExprP T = tangent(*E.Ops[0]);
    if (!T || E.UOp == UO_Plus)
      return T;
    return E.UOp == UO_Minus ? neg(T, Ty) : nullptr;
  }
  case ExprKind::Cast: {
    ExprP T = tangent(*conversionSource(E));
    return T && Ty->isRealFloatingType() ? cast(Ty, T) : nullptr;
  }
  case ExprKind::Cond: {
    ExprP A = tangent(*E.Ops[1]), B = tangent(*E.Ops[2]);
    return cond(E.Ops[0], A ? A : zero(Ty), B ? B : zero(Ty), Ty);
  }
  case ExprKind::Binary: {
    const ExprP &L = E.Ops[0], &R = E.Ops[1];
    ExprP TL = tangent(*L), TR = tangent(*R);
    switch (E.BOp) {
    case BO_Add:
      return !TL ? TR : !TR ? TL : add(TL, TR, Ty);
    case BO_Sub:
      return !TR ? TL : !TL ? neg(TR, Ty) : sub(TL, TR, Ty);
    case BO_Mul: {
      ExprP A = TL ? mul(TL, R, Ty) : nullptr;
      ExprP B = TR ? mul(L, TR, Ty) : nullptr;
      return !A ? B : !B ? A : add(A, B, Ty);
    }
    case BO_Div: {
      // d(l/r) = dl/r - l*dr/(r*r)
      ExprP A = TL ? div(TL, R, Ty) : nullptr;
      ExprP B = TR ? div(mul(L, TR, Ty), mul(R, R, Ty), Ty) : nullptr;
      return !A ? (B ? neg(B, Ty) : nullptr) : !B ? A : sub(A, B, Ty);
    }
    default:
      return nullptr;
    }
  }
  case ExprKind::Call:
    // See ReverseBuilder::propagate: never a silent zero.
    Diags.report(E.Loc, Diag::InternalError)
        << "a call inside an expression reached the tangent sweep";
    return nullptr;
  default:
    return nullptr;
  }
}

bool TangentBuilder::stmts(const Block &B, Block &Out) {
  bool OK = true;
  for (const StmtP &S : B) {
    size_t First = Out.size();
    OK &= stmt(*S, Out);
    placeUnplaced(llvm::MutableArrayRef<StmtP>(Out).drop_front(First),
                  S->Loc);
  }
  return OK;
}

bool TangentBuilder::stmt(const ir::Stmt &S, Block &Out) {
  switch (S.K) {
  case StmtKind::Assign: {
    if (S.RHS->K == ExprKind::Call)
      return callSite(S, Out);
    if (S.RHS->K == ExprKind::Pop && carriesTangent(S.LHS->Ty)) {
      // The tangent was pushed after the value: it comes off first.
      Out.push_back(assign(tangentOf(*S.LHS), pop(S.RHS->V)));
      Out.push_back(assign(S.LHS, S.RHS, S.Op, S.Loc));
      return true;
    }
    Var *Root = S.LHS->rootVar();
    if (Root && Activity.isActive(Root) &&
        isDifferentiableScalar(S.LHS->Ty)) {
      // The tangent first: it reads the values the primal overwrites.
      ExprP T = tangent(*S.RHS);
      if (T || S.Op == BO_Assign)
        Out.push_back(assign(tangentOf(*S.LHS),
                             T ? cast(S.LHS->Ty, T) : zero(S.LHS->Ty), S.Op));
    }
    if (!isSink(*S.LHS))
      Out.push_back(assign(S.LHS, S.RHS, S.Op, S.Loc));
    return true;
  }
  case StmtKind::Push: {
    // Floating values travel with their tangents (pushed after them).
    Out.push_back(push(S.V, S.RHS));
    if (carriesTangent(S.RHS->Ty)) {
      ExprP T = S.RHS->Ty->isArrayType() || S.RHS->Ty->isRecordType()
                    ? tangentOf(*S.RHS)
                    : tangent(*S.RHS);
      Out.push_back(push(S.V, T ? T : zero(S.RHS->Ty)));
    }
    return true;
  }
  case StmtKind::PushRange:
    // A callee's pair built for first order can save ranges; their tangents
    // travel with them (pushed after them, popped first).
    Out.push_back(pushRange(S.V, S.RHS, S.Cond));
    if (carriesTangent(S.RHS->Ty->getPointeeType()))
      Out.push_back(pushRange(S.V, tangentOf(*S.RHS), S.Cond));
    return true;
  case StmtKind::PopRange:
    if (carriesTangent(S.LHS->Ty->getPointeeType()))
      Out.push_back(popRange(S.V, tangentOf(*S.LHS), S.Cond));
    Out.push_back(popRange(S.V, S.LHS, S.Cond));
    return true;
  case StmtKind::Decl: {
    if (S.RHS && carriesTangent(S.V->Type) && Activity.isActive(S.V)) {
      ExprP T = tangent(*S.RHS);
      Var *TV = tangentVar(S.V);
      // A block-local tangent: declared where its primal is.
      llvm::erase(F.Locals, TV);
      Out.push_back(decl(TV, T ? cast(S.V->Type, T) : zero(S.V->Type)));
    }
    Out.push_back(decl(S.V, S.RHS));
    return true;
  }
  case StmtKind::Resize:
    // An inactive container's tangent is sized too: a range of it that the
    // sweep saves (PushRange) travels with its tangent, zeros then.
    if (Var *C = S.LHS->rootVar();
        C && (Activity.isActive(C) ||
              carriesTangent(S.LHS->Ty->getPointeeType())))
      Out.push_back(resize(ref(tangentVar(C)), S.RHS, S.Loc, S.Cond, S.Keep));
    Out.push_back(clone(S));
    return true;
  case StmtKind::Repeat: {
    auto R = std::make_unique<ir::Stmt>(StmtKind::Repeat, S.Loc);
    R->V = S.V;
    R->Cond = S.Cond;
    bool OK = stmts(S.body(), R->body());
    Out.push_back(std::move(R));
    return OK;
  }
  case StmtKind::Eval:
    if (S.RHS->K == ExprKind::Call)
      return callSite(S, Out);
    Out.push_back(eval(S.RHS, S.Loc));
    return true;
  case StmtKind::If: {
    Block Then, Else;
    bool OK = stmts(S.Then, Then);
    OK &= stmts(S.Else, Else);
    Out.push_back(ir::ifStmt(S.Cond, std::move(Then), std::move(Else), S.Loc));
    return OK;
  }
  case StmtKind::Loop: {
    auto L = std::make_unique<ir::Stmt>(StmtKind::Loop, S.Loc);
    L->TestFirst = S.TestFirst;
    L->Cond = S.Cond;
    bool OK = stmts(S.body(), L->body());
    OK &= stmts(S.inc(), L->body());
    Out.push_back(std::move(L));
    return OK;
  }
  case StmtKind::Block: {
    Block Inner;
    bool OK = stmts(S.Then, Inner);
    Out.push_back(block(std::move(Inner)));
    return OK;
  }
  case StmtKind::Return:
    return true;
  default:
    Diags.report(S.Loc, Diag::InternalError) << "unexpected statement";
    return false;
  }
}

bool TangentBuilder::callSite(const ir::Stmt &S, Block &Out) {
  const Expr &C = *S.RHS;
  ExprP LHS = S.K == StmtKind::Assign ? S.LHS : nullptr;
  llvm::SmallVector<bool, 4> ArgActive;
  bool AnyActive = false;
  for (const ExprP &A : C.Ops) {
    ArgActive.push_back(Activity.isActive(*A));
    AnyActive |= ArgActive.back();
  }
  bool ResultActive = LHS && LHS->rootVar() &&
                      Activity.isActive(LHS->rootVar()) &&
                      isDifferentiableScalar(LHS->Ty);
  // A call whose result carries no derivative and that writes no
  // floating memory (a predicate, an index computation) needs none.
  bool WritesFloats = false;
  for (const ExprP &A : C.Ops)
    WritesFloats |= A->Ty->isPointerType() && isDifferentiableType(A->Ty) &&
                    !A->Ty->getPointeeType().isConstQualified();
  if (!ResultActive && !WritesFloats && !isDifferentiableScalar(C.Ty))
    AnyActive = false;
  if (!AnyActive) {
    if (ResultActive)
      Out.push_back(assign(tangentOf(*LHS), zero(LHS->Ty)));
    Out.push_back(LHS ? assign(LHS, S.RHS, BO_Assign, S.Loc)
                      : eval(S.RHS, S.Loc));
    return true;
  }
  llvm::SmallVector<bool, 4> ArgSink;
  for (const ExprP &A : C.Ops)
    ArgSink.push_back(A->Ty->isPointerType() && isSink(*A));
  std::optional<CallTangent> D = Oracle.tangentOf(C, ArgActive, ArgSink);
  if (!D)
    return false;
  // The arguments' tangents; values are evaluated before the call, so a
  // call that overwrites its own argument still sees the old tangent.
  llvm::SmallVector<ExprP, 8> Args(C.Ops.begin(), C.Ops.end());
  for (unsigned I = 0; I < Args.size(); ++I)
    if (ArgSink[I]) // the rule writes nothing through it
      Args[I] = intConst(Args[I]->Ty, 0);
  for (unsigned I = 0; I < C.Ops.size() && I < D->TangentSlot.size(); ++I) {
    if (!D->TangentSlot[I])
      continue;
    const ExprP &A = C.Ops[I];
    if (A->Ty->isPointerType()) {
      QualType Elem = A->Ty->getPointeeType().getUnqualifiedType();
      QualType TP = Ctx.getPointerType(Elem);
      if (ArgActive[I]) {
        Args.push_back(tangentOf(*A));
        continue;
      }
      // A reference parameter: a const T& takes its tangent by value (0);
      // a T& gets a zeroed tangent it may write.
      QualType PT = I < C.Callee->getNumParams()
                        ? C.Callee->getParamDecl(I)->getType()
                        : QualType();
      if (!PT.isNull() && PT->isReferenceType()) {
        if (PT->getPointeeType().isConstQualified()) {
          Args.push_back(zero(Elem));
          continue;
        }
        Var *T = F.makeVar(Var::Kind::Local, "_t_arg", Elem);
        T->ZeroInit = true;
        F.Locals.push_back(T);
        Out.push_back(assign(ref(T), zero(Elem)));
        Args.push_back(addrOf(ref(T), TP));
        continue;
      }
      Args.push_back(intConst(TP, 0));
      continue;
    }
    ExprP T = ArgActive[I] ? tangent(*A) : nullptr;
    Args.push_back(T ? T : zero(A->Ty));
  }
  if (D->K == CallTangent::Kind::Custom) {
    // The rule gives the result's tangent and writes the tangents of the
    // outputs it is passed, from the arguments as they are before the call;
    // the call itself computes the values.
    if (ResultActive)
      Out.push_back(assign(tangentOf(*LHS),
                           cast(LHS->Ty, call(D->Rule, Args, C.Ty, C.Loc))));
    else if (WritesFloats)
      Out.push_back(eval(call(D->Rule, Args, C.Ty, C.Loc), S.Loc));
    Out.push_back(LHS ? assign(LHS, S.RHS, BO_Assign, S.Loc)
                      : eval(S.RHS, S.Loc));
    return true;
  }
  // value = g_dual(args..., tangents..., &t)
  if (hasSeed(C.Callee)) {
    Var *T = F.makeVar(Var::Kind::Local, "_t_result",
                       C.Callee->getReturnType().getUnqualifiedType());
    T->ZeroInit = true;
    F.Locals.push_back(T);
    Args.push_back(addrOf(ref(T), Ctx.getPointerType(T->Type)));
    ExprP Value = call(D->Rule, Args, C.Ty, C.Loc);
    if (LHS) {
      Out.push_back(assign(LHS, Value, BO_Assign, S.Loc));
      if (ResultActive)
        Out.push_back(assign(tangentOf(*LHS), cast(LHS->Ty, ref(T))));
    } else {
      Out.push_back(eval(Value, S.Loc));
    }
    return true;
  }
  ExprP Value = call(D->Rule, Args, C.Ty, C.Loc);
  Out.push_back(LHS ? assign(LHS, Value, BO_Assign, S.Loc)
                    : eval(Value, S.Loc));
  return true;
}

} // namespace fluxion
