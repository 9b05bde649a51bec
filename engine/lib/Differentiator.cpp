//===- Differentiator.cpp - Defines derivative functions -------------------===//
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/FunctionViews.h"
#include "AdjointBody.h"
#include "fluxion/engine/Emitter.h"
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/Passes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/TypeLoc.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/Overload.h"
#include "clang/Sema/Scope.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/ScopeExit.h"

using namespace clang;

namespace fluxion {
using ir::Block;
using ir::ExprKind;
using ir::ExprP;
using ir::StmtKind;
using ir::StmtP;
using ir::Var;
using ir::Function;
using ir::call;
using ir::ref;
using ir::eval;
using ir::index;
using ir::assign;
using ir::push;
using ir::pop;
using ir::floatConst;
using ir::intConst;
using ir::addrOf;


Differentiator::Differentiator(Sema &S)
    : S(S), Ctx(S.getASTContext()), Diags(S.getDiagnostics()) {
  // Function views of methods belong to the previous translation unit.
  forgetViews();
}

/// What an adjoint pointer points to, for memory of type T: the floating
/// elements lose const (adjoints are written); pointers inside keep their
/// own const (a `double *const *` of row pointers for `const double *const
/// *A`: the rows' adjoints are written, the row pointers are not).
static QualType shadowPointee(ASTContext &Ctx, QualType T) {
  if (const auto *PT = T->getAs<PointerType>())
    return Ctx.getQualifiedType(
        Ctx.getPointerType(shadowPointee(Ctx, PT->getPointeeType())),
        T.getQualifiers());
  Qualifiers Q;
  return Ctx.getUnqualifiedArrayType(T.getUnqualifiedType(), Q);
}

QualType adjointParamType(ASTContext &Ctx, QualType T) {
  // An Eigen Map or Ref: the object it views (contract v2).
  if (std::optional<EigenShape> S = eigenShape(T); S && S->View)
    return Ctx.getPointerType(eigenViewedType(T, *S));
  if (const auto *RT = T->getAs<ReferenceType>()) // an address, as a T*
    return adjointParamType(Ctx, Ctx.getPointerType(RT->getPointeeType()));
  if (T->isRealFloatingType())
    return Ctx.getPointerType(T.getUnqualifiedType());
  if (const auto *PT = T->getAs<PointerType>())
    return Ctx.getPointerType(shadowPointee(Ctx, PT->getPointeeType()));
  return Ctx.getPointerType(T);
}

void connectLowering(FunctionLowering &Lowering, DerivativeOracle &Oracle) {
  Lowering.Runtime = [&Oracle](StringRef Name, llvm::ArrayRef<QualType> Args,
                               SourceLocation Loc) {
    return Oracle.runtimeFunction(Name, Args, Loc);
  };
  Lowering.RuntimeFor = [&Oracle](StringRef Name, QualType T,
                                  llvm::ArrayRef<QualType> Args,
                                  SourceLocation Loc) {
    return Oracle.runtimeTemplateFunction(Name, T, Args, Loc);
  };
  Lowering.Instantiate = [&Oracle](FunctionDecl *FD, SourceLocation Loc) {
    Oracle.instantiate(FD, Loc);
  };
  Lowering.LambdaCall = [&Oracle](const CXXRecordDecl *Closure,
                                  llvm::ArrayRef<QualType> Args,
                                  SourceLocation Loc) {
    return Oracle.lambdaCallFor(Closure, Args, Loc);
  };
  Lowering.Effects = Oracle.effectGlobals();
  // Sweeps differentiated again (f_hvp) take Eigen's products as loops.
  Lowering.RuleProducts = Oracle.checkpointsEnabled();
}

void reportUndifferentiatedOutput(DiagReporter &Diags,
                                  const FunctionDecl *Def, unsigned I,
                                  bool Tangent) {
  // A method's view: its first parameter is the object.
  if (const FunctionView *View = asView(Def); View && View->Self && I == 0) {
    Diags.report(View->Of->getLocation(), Diag::NotDifferentiable)
        << View->Of
        << "it stores values that depend on its differentiated inputs in "
           "its object (*this), which is not differentiated; name \"this\" "
           "in the annotation ([[fluxion::grad]] and [[fluxion::jvp]] take "
           "it), or keep the value in a local";
    return;
  }
  Diags.report(Def->getParamDecl(I)->getLocation(),
               Diag::UndifferentiatedOutput)
      << Def->getParamDecl(I) << Def << (Tangent ? 1 : 0);
}

bool isFixedSizeOutput(ASTContext &Ctx, const ParmVarDecl *P) {
  QualType T = P->getOriginalType();
  // An object of reals by non-const reference (`Vec2 &err`), or a
  // fixed-size array of them.
  if (T->isLValueReferenceType()) {
    QualType O = T.getNonReferenceType();
    return !O.isConstQualified() && !O->isDependentType() &&
           isDifferentiableRecord(Ctx.getBaseElementType(O)) &&
           !pointsToReals(O) &&
           (!O->isArrayType() || Ctx.getAsConstantArrayType(O));
  }
  const auto *AT = Ctx.getAsConstantArrayType(T);
  if (!AT)
    return false;
  QualType E = Ctx.getBaseElementType(AT);
  return !E.isConstQualified() &&
         (E->isRealFloatingType() ||
          (AT->getElementType()->isRecordType() &&
           isDifferentiableRecord(E) && !pointsToReals(E)));
}

//===----------------------------------------------------------------------===//
// Derivatives of callees
//===----------------------------------------------------------------------===//

std::vector<bool> Differentiator::activeParams(FunctionDecl *Callee,
                                               llvm::ArrayRef<bool> ArgActive,
                                               bool &All) {
  std::vector<bool> Active;
  All = true;
  for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
    bool Diff = isDifferentiableType(Callee->getParamDecl(I)->getType());
    Active.push_back(Diff && I < ArgActive.size() && ArgActive[I]);
    All &= !Diff || Active.back();
  }
  return Active;
}

std::string Differentiator::activeSuffix(FunctionDecl *Callee,
                                         const std::vector<bool> &Active,
                                         bool All) {
  std::string Suffix;
  if (!All)
    for (unsigned I = 0; I < Active.size(); ++I)
      if (Active[I])
        Suffix += "_" + Callee->getParamDecl(I)->getNameAsString();
  return Suffix;
}

bool Differentiator::canGenerate(FunctionDecl *Callee, SourceLocation Loc,
                                 StringRef Rule) {
  if (const FunctionView *View = asView(Callee)) {
    // A member of a class template is instantiated when first used.
    auto *Of = const_cast<FunctionDecl *>(View->Of);
    if (Of->isTemplateInstantiation() && !Of->hasBody())
      S.InstantiateFunctionDefinition(Loc, Of);
    updateViewBodies();
  }
  if (Callee->isTemplateInstantiation() && !Callee->hasBody())
    S.InstantiateFunctionDefinition(Loc, Callee);
  if (Stored.count(Callee) || Callee->hasBody())
    return true;
  // A body may still come later in the translation unit, except for
  // builtins and library functions.
  if (!Callee->getBuiltinID() &&
      !Ctx.getSourceManager().isInSystemHeader(Callee->getLocation()))
    return true;
  Diags.report(Loc, Diag::NoDerivative)
      << Callee << (Callee->getName() + Rule).str();
  // The whole signature, parameter names included: writing the rule is
  // then mechanical.
  Diags.report(Loc, Diag::NoteCustomSignature)
      << expectedSignature(Callee, Rule);
  // The runtime's rules for <cmath> and the standard library (sin_vjp
  // among them) are missing: the file forgot the include, and the way out
  // is one line, not a rule of one's own.
  NamespaceDecl *Custom = customNamespace();
  if (!Custom || Custom->lookup(&Ctx.Idents.get("sin_vjp")).empty())
    Diags.report(Loc, Diag::NoteIncludeRuntime);
  return false;
}

void Differentiator::noteCalls(const ir::Block &Sweep) {
  ir::forEachExpr(Sweep, [&](const ir::Expr &E) {
    if (E.K != ir::ExprKind::Call)
      return;
    auto It = PairOf.find(E.Callee);
    if (It != PairOf.end())
      It->second->Called = true;
  });
}

Differentiator::SplitEntry &
Differentiator::splitPair(FunctionDecl *Callee, const std::vector<bool> &Active,
                          bool All, bool RestoreMemory, SourceLocation UseLoc,
                          FunctionDecl *User) {
  // The pair used by f_hvp differs from the first-order one only when the
  // callee's calls are checkpointed or use residual rules.
  bool Distinct = SecondOrderMode && hasFirstOrderOnlyParts(Callee);
  std::vector<bool> KeyActive = Active;
  KeyActive.push_back(Distinct);
  KeyActive.push_back(RestoreMemory);
  auto Key = std::make_pair(
      static_cast<const Decl *>(Callee->getCanonicalDecl()), KeyActive);
  auto It = Splits.find(Key);
  if (It == Splits.end()) {
    auto E = std::make_unique<SplitEntry>();
    E->Callee = Callee;
    E->Active = Active;
    E->SecondOrder = Distinct;
    E->RestoresMemory = RestoreMemory;
    std::string Suffix = activeSuffix(Callee, Active, All);
    if (Distinct)
      Suffix += "_recorded";
    if (RestoreMemory)
      Suffix += "_restoring";
    std::string Base = Callee->getNameAsString();
    std::vector<std::pair<std::string, QualType>> FwdParams;
    for (ParmVarDecl *P : Callee->parameters())
      FwdParams.push_back({P->getName().empty() ? std::string("_p")
                                                : P->getNameAsString(),
                           P->getType()});
    E->Fwd = declare(Callee, Base + "_fwd" + Suffix, Callee->getReturnType(),
                     FwdParams, true, false);
    E->Bwd = declare(Callee, Base + "_bwd" + Suffix, Ctx.VoidTy,
                     reverseParams(Callee, Active), true, false);
    SplitOrder.push_back(E.get());
    PairOf[E->Fwd] = PairOf[E->Bwd] = E.get();
    It = Splits.emplace(Key, std::move(E)).first;
  }
  // The builder may ask again for the same call (to-be-recorded rounds).
  auto Use = std::make_pair(UseLoc, User);
  if (!llvm::is_contained(It->second->Uses, Use))
    It->second->Uses.push_back(Use);
  return *It->second;
}

/// The local or parameter std::vector of FD whose size changes after it
/// is declared (a parameter first).
static const VarDecl *resizedLocalVector(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def))
    return nullptr;
  for (const ParmVarDecl *P : Def->parameters())
    if (resizedLocal(Def->getBody(), P))
      return P;
  return resizedLocal(Def->getBody());
}

std::optional<CallDerivative>
Differentiator::reverseOf(const ir::Expr &Call, llvm::ArrayRef<bool> ArgActive,
                          bool RestoreMemory) {
  FunctionDecl *Callee = Call.Callee;
  bool Failed = false;
  // A residual rule comes first: it exists to avoid recomputing what the
  // forward part computed (<cmath>'s exp reuses its result). It keeps state
  // across the two sweeps, which the tangent builder cannot follow: second
  // order uses the _vjp rule or the body.
  if (!SecondOrderMode) {
    if (auto Rule = findResidualRule(Callee, Call.Loc, Failed)) {
      CallDerivative D;
      D.Forward = Rule->Fwd;
      D.Reverse = Rule->Bwd;
      D.Residual = Rule->Residual;
      D.ResidualIsResult = Rule->ResidualIsResult;
      for (ParmVarDecl *P : Callee->parameters())
        D.AdjointSlot.push_back(isDifferentiableType(P->getType()));
      return D;
    }
    if (Failed)
      return std::nullopt;
  }
  if (FunctionDecl *Custom = findCustom(Callee, "_vjp", Call.Loc, &Failed)) {
    CallDerivative D;
    D.Forward = Callee;
    D.Reverse = Custom;
    for (ParmVarDecl *P : Callee->parameters())
      D.AdjointSlot.push_back(isDifferentiableType(P->getType()));
    return D;
  }
  if (Failed)
    return std::nullopt;
  if (!canGenerate(Callee, Call.Loc, "_vjp"))
    return std::nullopt;
  // A callee's split pair cannot give a std::vector parameter's adjoint
  // the sizes the caller's container went through (the caller's adjoint
  // does not follow the callee's resizes in the forward sweep).
  if (const VarDecl *Resized = resizedLocalVector(Callee);
      Resized && isa<ParmVarDecl>(Resized)) {
    Diags.report(Call.Loc, Diag::NotSupported)
        << ("calling '" + Callee->getNameAsString() +
            "', which changes the size of its std::vector parameter '" +
            Resized->getNameAsString() + "', from differentiated code")
        << "size the vector before the call and assign its elements in '" +
               Callee->getNameAsString() + "'";
    return std::nullopt;
  }
  // f_hvp differentiates a callee's split pair again, which does not
  // follow a local std::vector whose size changes (push_back) yet.
  if (const VarDecl *Resized = SecondOrderMode ? resizedLocalVector(Callee)
                                               : nullptr) {
    Diags.report(Call.Loc, Diag::NotSupported)
        << ("a second derivative (f_hvp, f_hessian) through '" +
            Callee->getNameAsString() + "', which changes the size of its "
            "local std::vector '" + Resized->getNameAsString() + "'")
        << "size the vector where it is declared ('std::vector<double> "
           "t(n);') and assign its elements, or differentiate once";
    return std::nullopt;
  }
  // A checkpointed callee's undo log gives the memory back anyway.
  if (!SecondOrderMode && isCheckpointed(Callee))
    RestoreMemory = false;
  bool All;
  std::vector<bool> Active = activeParams(Callee, ArgActive, All);
  SplitEntry &Pair = splitPair(Callee, Active, All, RestoreMemory,
                              Call.Loc, Current);
  CallDerivative D;
  D.Forward = Pair.Fwd;
  D.Reverse = Pair.Bwd;
  D.AdjointSlot.assign(Active.begin(), Active.end());
  D.RestoresMemory = RestoreMemory;
  if (!SecondOrderMode && isCheckpointed(Callee)) {
    D.Logged = loggedVersion(Callee, Call.Loc);
    if (!D.Logged)
      return std::nullopt;
  }
  for (unsigned I = 0; I < Callee->getNumParams(); ++I)
    D.ReadExtents.push_back(pointerReadExtent(Callee, I));
  return D;
}

//===----------------------------------------------------------------------===//
// Definitions
//===----------------------------------------------------------------------===//

std::optional<Differentiated>
differentiate(FunctionDecl *Def, const std::vector<bool> &Active, ASTContext &Ctx,
              DiagReporter &Diags, DerivativeOracle &Oracle,
              std::function<void(ReverseBuilder &, Differentiated &)> Extra,
              llvm::ArrayRef<VarDecl *> Globals, bool RestorePointerParams) {
  FunctionLowering Lowering(Ctx, Diags);
  connectLowering(Lowering, Oracle);
  Lowering.NamedGlobals.insert(Globals.begin(), Globals.end());
  Differentiated D;
  D.IR = Lowering.lower(Def);
  if (!D.IR)
    return std::nullopt;
  Function &F = *D.IR;
  eliminateJumps(F, Ctx);
  std::vector<Var *> ActiveParams;
  llvm::DenseMap<Var *, Var *> Adjoints;
  D.ReverseParams = F.Params;
  Var *Seed = nullptr;
  if (F.ReturnVar && hasSeed(Def)) {
    Seed = F.makeVar(Var::Kind::Param, "seed", F.ReturnVar->Type);
    Seed->Primal = F.ReturnVar;
    Seed->Adjoint = true;
    Adjoints[F.ReturnVar] = Seed;
    D.ReverseParams.push_back(Seed);
  }
  for (unsigned I = 0; I < F.Params.size(); ++I) {
    if (!Active[I])
      continue;
    Var *P = F.Params[I];
    ActiveParams.push_back(P);
    Var *A = F.makeVar(Var::Kind::Param, "d_" + P->Name,
                       adjointParamType(Ctx, P->Type));
    A->Primal = P;
    A->Adjoint = true;
    D.ReverseParams.push_back(A);
    // A scalar's adjoint is *_d_x; pointers index their adjoint directly.
    if (P->isPointer()) {
      Adjoints[P] = A;
    } else {
      // The scalar adjoint accumulates in a local, added to *_d_x at exit.
      Var *Local = F.makeVar(Var::Kind::Local, "_d_" + P->Name,
                             P->Type.getUnqualifiedType());
      Local->Primal = P;
      Local->ZeroInit = true;
      Local->Adjoint = true;
      F.Locals.push_back(Local);
      Adjoints[P] = Local;
    }
  }
  // Globals the annotation names: inputs whose adjoints leave through
  // parameters after those of the function's own parameters.
  std::vector<std::pair<Var *, Var *>> GlobalAdjoints;
  for (VarDecl *G : Globals) {
    Var *GV = nullptr;
    for (auto &V : F.Storage)
      if (V->K == Var::Kind::Global && V->Origin == G)
        GV = V.get();
    if (!GV) { // not read here: its gradient stays zero
      GV = F.makeVar(Var::Kind::Global, G->getName(), G->getType(), G);
      GV->Name = G->getNameAsString();
    }
    QualType AdjTy = G->getType()->isArrayType()
                         ? Ctx.getArrayDecayedType(
                               G->getType().getUnqualifiedType())
                         : Ctx.getPointerType(G->getType().getUnqualifiedType());
    Var *A = F.makeVar(Var::Kind::Param, "d_" + G->getNameAsString(), AdjTy);
    A->Primal = GV;
    A->Adjoint = true;
    D.ReverseParams.push_back(A);
    ActiveParams.push_back(GV);
    if (G->getType()->isArrayType()) {
      Adjoints[GV] = A;
      continue;
    }
    Var *Local = F.makeVar(Var::Kind::Local, "_d_" + G->getNameAsString(),
                           G->getType().getUnqualifiedType());
    Local->Primal = GV;
    Local->ZeroInit = true;
    Local->Adjoint = true;
    F.Locals.push_back(Local);
    Adjoints[GV] = Local;
    GlobalAdjoints.push_back({Local, A});
  }
  ActivityInfo Activity(F, ActiveParams);
  // Active values stored through a pointer the caller gives no adjoint
  // buffer for would need one of unknown length.
  for (unsigned I = 0; I < F.Params.size(); ++I) {
    Var *P = F.Params[I];
    if (Active[I] || !P->isPointer() || !Activity.isActive(P) ||
        !isDifferentiableType(P->Type))
      continue;
    reportUndifferentiatedOutput(Diags, Def, I, /*Tangent=*/false);
    return std::nullopt;
  }
  ReverseBuilder Builder(F, Ctx, Activity, Oracle, Diags, Adjoints);
  Builder.RestorePointerParams = RestorePointerParams;
  auto Parts = Builder.build();
  if (!Parts)
    return std::nullopt;
  D.Parts = std::move(*Parts);
  // Scalar adjoints leave through their pointers: *_d_x += _d_x_local.
  for (unsigned I = 0, J = 0; I < F.Params.size(); ++I) {
    if (!Active[I])
      continue;
    Var *P = F.Params[I];
    Var *AdjParam = D.ReverseParams[F.Params.size() + (Seed ? 1 : 0) + J++];
    if (P->isPointer())
      continue;
    ExprP Deref = index(ref(AdjParam), intConst(Ctx.IntTy, 0),
                        P->Type.getUnqualifiedType());
    D.Parts.Reverse.push_back(
        assign(Deref, ref(Adjoints[P]), BO_AddAssign));
  }
  for (auto [Local, Param] : GlobalAdjoints)
    D.Parts.Reverse.push_back(assign(
        index(ref(Param), intConst(Ctx.IntTy, 0), Local->Type), ref(Local),
        BO_AddAssign));
  D.ReturnVar = F.ReturnVar;
  if (Extra)
    Extra(Builder, D);
  return D;
}

static StmtP returnOf(Var *V) {
  auto R = std::make_unique<ir::Stmt>(StmtKind::Return);
  if (V)
    R->RHS = ref(V);
  return R;
}

/// Ends a forwarder's body: `return Call;`, or `Call;` for a void Target.
static void finishWithCall(EmitRequest &R, ExprP Call) {
  if (R.Target->getReturnType()->isVoidType()) {
    R.Body.push_back(eval(Call));
    return;
  }
  auto Ret = std::make_unique<ir::Stmt>(StmtKind::Return);
  Ret->RHS = Call;
  R.Body.push_back(std::move(Ret));
}

void Differentiator::defineForwarder(FunctionDecl *Target,
                                     FunctionDecl *Callee, ExprP Extra,
                                     unsigned At) {
  Function Shell;
  EmitRequest R;
  R.Target = Target;
  llvm::SmallVector<ExprP, 8> Args;
  for (ParmVarDecl *P : Target->parameters()) {
    Var *V = Shell.makeVar(Var::Kind::Param, P->getName(), P->getType());
    R.Params.push_back(V);
    Args.push_back(ref(V));
  }
  if (Extra)
    Args.insert(Args.begin() + At, Extra);
  ExprP Call = call(Callee, Args, Callee->getReturnType());
  finishWithCall(R, Call);
  emitAndPublish(R);
}

bool Differentiator::defineCustomForwarder(FunctionDecl *Target,
                                           FunctionDecl *Def,
                                           FunctionDecl *Custom,
                                           const std::vector<bool> &Active,
                                           bool Reverse, SourceLocation Loc) {
  bool All = true;
  for (unsigned I = 0; I < Def->getNumParams(); ++I)
    All &= Active[I] || !isDifferentiableType(Def->getParamDecl(I)->getType());
  if (All || Custom->getNumParams() == Target->getNumParams()) {
    defineForwarder(Target, Custom);
    return true;
  }
  // The rule has an adjoint (tangent) for every differentiable parameter;
  // Target only for those the annotation names. A scalar left out gets a
  // local adjoint that is thrown away (a zero tangent); memory behind a
  // pointer left out has no extent to allocate a buffer for.
  Function Shell;
  EmitRequest R;
  R.Target = Target;
  for (ParmVarDecl *P : Target->parameters())
    R.Params.push_back(
        Shell.makeVar(Var::Kind::Param, P->getName(), P->getType()));
  unsigned NP = Def->getNumParams();
  unsigned Fixed = NP + (Reverse && hasSeed(Def) ? 1 : 0);
  llvm::SmallVector<ExprP, 8> Args;
  for (unsigned I = 0; I < Fixed; ++I)
    Args.push_back(ref(R.Params[I]));
  unsigned Next = Fixed;
  for (unsigned I = 0; I < NP; ++I) {
    ParmVarDecl *P = Def->getParamDecl(I);
    QualType T = P->getType();
    if (!isDifferentiableType(T))
      continue;
    if (Active[I]) {
      Args.push_back(ref(R.Params[Next++]));
      continue;
    }
    if (!T->isRealFloatingType()) {
      Diags.report(Loc, Diag::NotDifferentiable)
          << Def
          << ("its custom derivative '" + Custom->getNameAsString() +
              "' takes a derivative for '" + P->getName() +
              "', which the annotation leaves out; write the rule for the "
              "named parameters only (as the generated function is), or "
              "name '" + P->getName() + "' too")
                 .str();
      return false;
    }
    QualType V = T.getUnqualifiedType();
    if (!Reverse) {
      Args.push_back(floatConst(V, 0));
      continue;
    }
    Var *Dummy = Shell.makeVar(Var::Kind::Local, ("_d_" + P->getName()).str(), V);
    R.Locals.push_back(Dummy);
    R.Body.push_back(assign(ref(Dummy), floatConst(V, 0)));
    Args.push_back(addrOf(ref(Dummy), Ctx.getPointerType(V)));
  }
  ExprP Call = call(Custom, Args, Custom->getReturnType());
  finishWithCall(R, Call);
  emitAndPublish(R);
  return true;
}

void Differentiator::defineFromResidualRule(FunctionDecl *Target,
                                            const ResidualRule &Rule) {
  // f_vjp(p..., [seed], d_p...) { Res res; v = f_fwd(p..., res);
  //                               f_bwd(p..., res, [seed], d_p...); return v; }
  Function Shell;
  EmitRequest R;
  R.Target = Target;
  llvm::SmallVector<ExprP, 8> Primal, Reverse;
  unsigned NP = Rule.Fwd->getNumParams() - 1;
  for (unsigned I = 0; I < Target->getNumParams(); ++I) {
    ParmVarDecl *P = Target->getParamDecl(I);
    Var *V = Shell.makeVar(Var::Kind::Param, P->getName(), P->getType());
    R.Params.push_back(V);
    if (I < NP)
      Primal.push_back(ref(V));
    else
      Reverse.push_back(ref(V));
  }
  Var *Res = Shell.makeVar(Var::Kind::Local, "res", Rule.Residual);
  R.Locals.push_back(Res);
  llvm::SmallVector<ExprP, 8> FwdArgs(Primal), BwdArgs(Primal);
  FwdArgs.push_back(ref(Res));
  BwdArgs.push_back(ref(Res));
  BwdArgs.append(Reverse.begin(), Reverse.end());
  QualType RetTy = Target->getReturnType();
  Var *Value = nullptr;
  if (!RetTy->isVoidType()) {
    Value = Shell.makeVar(Var::Kind::Local, "value", RetTy);
    R.Locals.push_back(Value);
    R.Body.push_back(assign(ref(Value), call(Rule.Fwd, FwdArgs, RetTy)));
  } else {
    R.Body.push_back(eval(call(Rule.Fwd, FwdArgs, RetTy)));
  }
  R.Body.push_back(eval(call(Rule.Bwd, BwdArgs, Ctx.VoidTy)));
  R.Body.push_back(returnOf(Value));
  emitAndPublish(R);
}

void Differentiator::emitAndPublish(EmitRequest &R) {
  Emitter Emit(S, Diags);
  if (Emit.emit(R))
    publish(R.Target);
}

bool Differentiator::isEntryPoint(const FunctionDecl *FD) const {
  const FunctionDecl *Canon = FD->getCanonicalDecl();
  for (const auto &E : Users)
    for (const FunctionDecl *Entry :
         {E->VJP, E->Grad, E->JVP, E->HVP, E->Hessian, E->Jacobian})
      if (Entry && Entry->getCanonicalDecl() == Canon)
        return true;
  return false;
}

void Differentiator::publish(FunctionDecl *FD) {
  if (Dump) {
    PrintingPolicy Policy(Ctx.getLangOpts());
    Policy.SuppressTagKeyword = true;
    FD->print(*Dump, Policy);
    *Dump << "\n";
  }
  if (OnDefined)
    OnDefined(FD);
}

void Differentiator::defineUser(UserEntry &E, FunctionDecl *Def) {
  if (returnsObject(Def))
    return defineObjectVJP(E, Def);
  E.Defined = true;
  if (Def->isInvalidDecl() || Diags.clangReportedErrors())
    return;
  Current = Def;
  // A custom derivative of the annotated function itself takes precedence.
  bool Failed = false;
  std::optional<ResidualRule> Rule;
  if (FunctionDecl *Custom =
          findCustom(Def, "_vjp", E.Loc, &Failed, &E.Active)) {
    if (!defineCustomForwarder(E.VJP, Def, Custom, E.Active, /*Reverse=*/true,
                               E.Loc)) {
      Current = nullptr;
      return;
    }
  } else if (Failed) {
    Current = nullptr;
    return;
  } else if ((Rule = findResidualRule(Def, E.Loc, Failed))) {
    defineFromResidualRule(E.VJP, *Rule);
  } else if (Failed) {
    Current = nullptr;
    return;
  } else {
    if (!checkGlobalsInCallees(Def, E))
      return;
    FunctionDecl *Lowered = Def;
    std::vector<bool> Active = E.Active;
    if (!memberForm(E, Def, Lowered, Active)) {
      Current = nullptr;
      return;
    }
    auto D = differentiate(Lowered, Active, Ctx, Diags, *this, nullptr,
                           E.Globals);
    if (!D) {
      explain(Def);
      Current = nullptr;
      return;
    }
    EmitRequest R;
    R.Target = E.VJP;
    R.Params = D->ReverseParams;
    if (Lowered != Def)
      placeThis(R, "d_this");
    R.Locals = D->IR->Locals;
    R.Body = std::move(D->Parts.Forward);
    for (StmtP &St : D->Parts.Reverse)
      R.Body.push_back(std::move(St));
    R.Body.push_back(returnOf(D->ReturnVar));
    emitAndPublish(R);
  }
  // f_grad(p..., d_p...) is f_vjp(p..., 1, d_p...).
  if (E.Grad)
    defineForwarder(E.Grad, E.VJP,
                    floatConst(Def->getReturnType().getUnqualifiedType(), 1),
                    Def->getNumParams());
  Current = nullptr;
}

bool Differentiator::memberForm(UserEntry &E, FunctionDecl *Def,
                                FunctionDecl *&Lowered,
                                std::vector<bool> &Active) {
  auto *Method = dyn_cast<CXXMethodDecl>(Def);
  if (!Method || Method->isStatic())
    return true;
  QualType Object = Method->getThisType()->getPointeeType();
  if (E.WithThis && !isDifferentiableRecord(Object)) {
    Diags.report(E.Loc, Diag::NotDifferentiable)
        << Def
        << ("it names \"this\", but '" +
            Method->getParent()->getNameAsString() +
            "' is not a class of real numbers (" + recordProblem(Object) +
            ")");
    return false;
  }
  Lowered = viewOf(Method);
  Active.insert(Active.begin(), E.WithThis);
  return true;
}

void Differentiator::placeThis(EmitRequest &R, StringRef Name) {
  R.This = R.Params.front();
  R.Params.erase(R.Params.begin());
  auto It = llvm::find_if(R.Params, [&](Var *V) { return V->Primal == R.This; });
  if (It == R.Params.end())
    return;
  Var *Derivative = *It;
  Derivative->Name = Name.str();
  R.Params.erase(It);
  R.Params.push_back(Derivative);
}

/// Removes the sizing of adjoints from B, at any depth, and collects the
/// containers B sizes.
static void takeResizes(ir::Block &B, llvm::SmallVectorImpl<Var *> &Sized) {
  llvm::erase_if(B, [](const ir::StmtP &St) {
    Var *C = St->K == StmtKind::Resize ? St->LHS->rootVar() : nullptr;
    return C && C->Adjoint;
  });
  for (auto &St : B) {
    if (St->K == StmtKind::Resize)
      if (Var *C = St->LHS->rootVar(); C && !llvm::is_contained(Sized, C))
        Sized.push_back(C);
    takeResizes(St->Then, Sized);
    takeResizes(St->Else, Sized);
  }
}

void Differentiator::handOverContainers(ReverseBuilder &B, Differentiated &D) {
  // Each local container of a split function is sized at most once in its
  // forward sweep (never in a loop; perhaps in a branch), and its adjoint
  // with it. The backward function gets the size the container has at the
  // end (zero if it was never sized), and the elements when its sweep reads
  // them, from the tape, and sizes the container and its adjoint there: the
  // forward function's containers are gone when it runs.
  ir::Block &Fwd = D.Parts.Forward;
  llvm::SmallVector<Var *, 2> Containers;
  takeResizes(Fwd, Containers);
  QualType SizeTy = Ctx.getSizeType();
  for (Var *C : Containers) {
    bool ElementsRead = llvm::is_contained(D.Parts.EndState, C);
    Var *ElemTape = B.tapeFor(C->Type->getPointeeType().getUnqualifiedType());
    Var *SizeTape = B.tapeFor(SizeTy);
    Var *Size = D.IR->makeVar(Var::Kind::Local, C->Name + "_size", SizeTy);
    D.IR->Locals.push_back(Size);
    if (ElementsRead)
      Fwd.push_back(pushRange(ElemTape, ref(C), sizeOf(ref(C), SizeTy)));
    // A dynamic-size Eigen matrix: its rows too (pushed first, popped
    // after the size).
    ExprP Rows;
    Var *RowsVar = nullptr;
    if (std::optional<EigenShape> S = eigenShape(C->Origin->getType());
        S && !S->isVector() && (S->Rows < 0 || S->Cols < 0)) {
      RowsVar = D.IR->makeVar(Var::Kind::Local, C->Name + "_rows", SizeTy);
      D.IR->Locals.push_back(RowsVar);
      Fwd.push_back(push(SizeTape, sizeOf(ref(C), SizeTy, ir::Extent::Rows)));
      Rows = ref(RowsVar);
    }
    Fwd.push_back(push(SizeTape, sizeOf(ref(C), SizeTy)));
    ir::Block Start;
    Start.push_back(assign(ref(Size), pop(SizeTape)));
    if (RowsVar)
      Start.push_back(assign(ref(RowsVar), pop(SizeTape)));
    Start.push_back(resize(ref(C), ref(Size), {}, Rows));
    for (Var *A : D.IR->Locals)
      if (A->Adjoint && A->Primal == C)
        Start.push_back(resize(ref(A), ref(Size), {}, Rows));
    if (ElementsRead)
      Start.push_back(popRange(ElemTape, ref(C), ref(Size)));
    D.Parts.Reverse.insert(D.Parts.Reverse.begin(),
                           std::make_move_iterator(Start.begin()),
                           std::make_move_iterator(Start.end()));
  }
  // A container of fixed size (std::array, a fixed-size Eigen object) is
  // never resized: its elements, when the backward sweep reads them, are
  // handed over on their own.
  for (Var *C : D.Parts.EndState) {
    if (!isContainerStorageVar(C) || llvm::is_contained(Containers, C))
      continue;
    std::optional<uint64_t> N = containerFixedSize(C->Origin->getType());
    if (!N)
      continue;
    Var *ElemTape = B.tapeFor(C->Type->getPointeeType().getUnqualifiedType());
    ExprP Count = ir::intConst(SizeTy, int64_t(*N));
    Fwd.push_back(pushRange(ElemTape, ref(C), Count));
    D.Parts.Reverse.insert(D.Parts.Reverse.begin(),
                           popRange(ElemTape, ref(C), Count));
  }
}

void Differentiator::defineSplit(SplitEntry &E, FunctionDecl *Def) {
  E.Defined = true;
  if (Def->isInvalidDecl() || Diags.clangReportedErrors())
    return;
  FunctionDecl *Saved = Current;
  Current = Def;
  bool SavedMode = SecondOrderMode;
  SecondOrderMode = E.SecondOrder;
  auto D = differentiate(
      Def, E.Active, Ctx, Diags, *this,
      [&](ReverseBuilder &B, Differentiated &D) {
        // A split forward function must hand over the values its reverse
        // sweep reads: push them at its end, pop them at the start of the
        // backward function.
        for (Var *V : D.Parts.EndState) {
          if (isContainerStorageVar(V))
            continue; // handed over below, elements and size
          Block Restore;
          B.saveAndRestore(ref(V), D.Parts.Forward, Restore);
          D.Parts.Reverse.insert(D.Parts.Reverse.begin(),
                                 std::make_move_iterator(Restore.begin()),
                                 std::make_move_iterator(Restore.end()));
        }
        handOverContainers(B, D);
      },
      {}, E.RestoresMemory);
  Current = Saved;
  SecondOrderMode = SavedMode;
  if (!D) {
    explain(Def);
    return;
  }
  EmitRequest Fwd;
  Fwd.Target = E.Fwd;
  Fwd.Params = D->IR->Params;
  Fwd.Locals = D->IR->Locals;
  Fwd.Body = std::move(D->Parts.Forward);
  Fwd.Body.push_back(returnOf(D->ReturnVar));
  EmitRequest Bwd;
  Bwd.Target = E.Bwd;
  Bwd.Params = D->ReverseParams;
  Bwd.Locals = D->IR->Locals;
  Bwd.Body = std::move(D->Parts.Reverse);
  emitAndPublish(Fwd);
  emitAndPublish(Bwd);
  Stored[E.Fwd] = {D->IR, Fwd.Params, std::move(Fwd.Body)};
  Stored[E.Bwd] = {D->IR, Bwd.Params, std::move(Bwd.Body)};
}

void Differentiator::explain(const FunctionDecl *Fn, unsigned Depth) {
  if (findUser(Fn)) {
    Diags.report(Fn->getLocation(), Diag::NoteDifferentiating) << Fn;
    return;
  }
  if (Depth > 8)
    return;
  auto Explain = [&](const auto &Entries) {
    for (const auto *E : Entries) {
      if (E->Callee->getCanonicalDecl() != Fn->getCanonicalDecl() ||
          E->Uses.empty())
        continue;
      Diags.report(E->Uses.front().first, Diag::NoteCalledFrom) << E->Callee;
      if (const FunctionDecl *User = E->Uses.front().second)
        if (User->getCanonicalDecl() != Fn->getCanonicalDecl())
          explain(User, Depth + 1);
      return true;
    }
    return false;
  };
  if (!Explain(SplitOrder))
    Explain(DualOrder);
}

void Differentiator::defineEntry(UserEntry &E, FunctionDecl *Def) {
  switch (E.K) {
  case Annotation::Kind::Grad:
    return defineUser(E, Def);
  case Annotation::Kind::Jvp:
    return defineUserJVP(E, Def);
  case Annotation::Kind::Hessian:
    return defineUserHVP(E, Def);
  case Annotation::Kind::Jacobian:
    return defineJacobian(E, Def);
  }
}

void Differentiator::defineFor(FunctionDecl *FD) {
  if (!FD->doesThisDeclarationHaveABody() || Generated.count(FD) ||
      FD->isDependentContext())
    return;
  // Generating code can make Sema instantiate templates, which reports the
  // instantiations back to us: handle those once the current work is done.
  if (Busy) {
    Deferred.push_back(FD);
    return;
  }
  Busy = true;
  Deferred.push_back(FD);
  while (!Deferred.empty()) {
    FunctionDecl *Next = Deferred.front();
    Deferred.erase(Deferred.begin());
    for (size_t I = 0; I < Users.size(); ++I) {
      UserEntry &E = *Users[I];
      if (E.Defined || !isEntryFor(Next, E))
        continue;
      // A Jacobian's sweep that it does not call waits for the end of the
      // translation unit, in case the user calls it after all.
      if (E.waitsForACall())
        continue;
      defineEntry(E, Next);
    }
    drain(/*AtEnd=*/false);
  }
  Busy = false;
}

void Differentiator::drain(bool AtEnd) {
  // Definitions request further callees, and a dual of a generated function
  // waits for that function: repeat until nothing more can be defined.
  updateViewBodies();
  bool Progress = true;
  while (Progress) {
    Progress = false;
    for (size_t I = 0; I < SplitOrder.size(); ++I) {
      SplitEntry &E = *SplitOrder[I];
      const FunctionDecl *Def = nullptr;
      // A pair asked for by an early to-be-recorded round and then replaced
      // (by the pair that restores memory) is never called: not defined.
      if (!E.Defined && E.Callee->hasBody(Def) && E.isCalled()) {
        defineSplit(E, const_cast<FunctionDecl *>(Def));
        Progress = true;
      }
    }
    for (size_t I = 0; I < LoggedOrder.size(); ++I) {
      LoggedEntry &E = *LoggedOrder[I];
      const FunctionDecl *Def = nullptr;
      if (!E.Defined && E.Callee->hasBody(Def)) {
        defineLogged(E, const_cast<FunctionDecl *>(Def));
        Progress = true;
      }
    }
    // A lanes version expands its pair's reverse sweep, once that exists.
    for (size_t I = 0; I < LaneOrder.size(); ++I) {
      LaneEntry &E = *LaneOrder[I];
      if (!E.Defined && E.Pair->Defined) {
        defineLanes(E);
        Progress = true;
      }
    }
    for (size_t I = 0; I < DualOrder.size(); ++I) {
      DualEntry &E = *DualOrder[I];
      const FunctionDecl *Def = nullptr;
      if (!E.Defined && E.Callee->hasBody(Def)) {
        defineDual(E, const_cast<FunctionDecl *>(Def));
        Progress = true;
      }
    }
  }
  if (!AtEnd)
    return;
  // A forward or backward function made for a callee has no body only
  // when making it failed, which was reported in the user's words: a
  // derivative of it (a second order's) adds nothing but its name.
  auto MadeForACallee = [&](const FunctionDecl *Fn) {
    return llvm::any_of(SplitOrder, [&](const SplitEntry *S) {
      return S->Fwd == Fn || S->Bwd == Fn;
    });
  };
  auto Report = [&](auto &Entries, StringRef Suffix) {
    for (auto *E : Entries) {
      if (E->Defined)
        continue;
      if (MadeForACallee(E->Callee)) {
        E->Defined = true;
        continue;
      }
      if constexpr (std::is_same_v<std::decay_t<decltype(*E)>, SplitEntry>)
        if (!E->isCalled())
          continue;
      E->Defined = true;
      for (const auto &[Loc, User] : E->Uses) {
        Diags.report(Loc, Diag::NoDerivative)
            << E->Callee << (E->Callee->getName() + Suffix).str();
        // The rule to write, in full (its first use only).
        if (&std::get<0>(E->Uses.front()) == &Loc)
          Diags.report(Loc, Diag::NoteCustomSignature)
              << expectedSignature(E->Callee, Suffix);
        if (User)
          explain(User);
      }
    }
  };
  Report(SplitOrder, "_vjp");
  Report(LoggedOrder, "_vjp");
  Report(DualOrder, "_jvp");
}

void Differentiator::finish() {
  Busy = true;
  // Sema has closed the translation unit's scope; code generated now (the
  // instances of annotated templates, sweeps waiting for a call) may still
  // make it look up a builtin (an implicit move assignment of a class with
  // an array member copies it with __builtin_memcpy), which needs one.
  std::optional<Scope> TUScope;
  if (!S.TUScope) {
    TUScope.emplace(nullptr, Scope::DeclScope, S.getDiagnostics());
    TUScope->setEntity(Ctx.getTranslationUnitDecl());
    S.TUScope = &*TUScope;
  }
  auto CloseScope = llvm::make_scope_exit([&] {
    if (TUScope)
      S.TUScope = nullptr;
  });
  instantiateDerivatives();
  for (auto &E : Users) {
    if (E->Defined)
      continue;
    if (E->waitsForACall() && !isUsed(*E)) {
      E->Defined = true; // nothing calls it: not generated
      continue;
    }
    const FunctionDecl *Def = nullptr;
    if (E->Annotated->hasBody(Def)) {
      defineEntry(*E, const_cast<FunctionDecl *>(Def));
      continue;
    }
    if (isUsed(*E))
      Diags.report(E->Loc, Diag::MissingBody) << E->Annotated;
    E->Defined = true;
  }
  drain(/*AtEnd=*/true);
  warnUnusedCustom();
  // Templates our code referenced (tape accessors, custom derivatives).
  S.PerformPendingInstantiations();
  Busy = false;
}

} // namespace fluxion
