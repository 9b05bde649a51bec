//===- ForwardMode.cpp - Declares and defines tangent functions ------------===//
//
// The forward-mode half of the Differentiator: the user-facing f_jvp and the
// dual functions g_dual generated for callees.
//
//===----------------------------------------------------------------------===//
#include "AdjointBody.h"
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/Emitter.h"
#include "fluxion/engine/FunctionViews.h"
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/Passes.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::StmtKind;
using ir::StmtP;
using ir::Var;

/// A class type, or in a template one spelled as a specialization of a
/// class template (`std::vector<T>`), which is a class for every T.
static bool isObjectType(QualType T) {
  return T->isRecordType() || T->getAs<TemplateSpecializationType>();
}

/// The tangent parameter type for a parameter of type T: the value for a
/// scalar, a pointer to the tangents for a pointer (const for inputs).
QualType tangentParamType(ASTContext &Ctx, QualType T) {
  // An Eigen Map or Ref: an object of the type it views, constant for an
  // input (a view of const), written for an output.
  if (std::optional<EigenShape> S = eigenShape(T); S && S->View) {
    QualType Viewed = eigenViewedType(T, *S);
    return Ctx.getPointerType(S->Writable ? Viewed : Viewed.withConst());
  }
  if (const auto *RT = T->getAs<ReferenceType>()) {
    // const T&: an input scalar, its tangent a value; T&: an output. An
    // object's tangent is an object of its class, given by address.
    QualType P = RT->getPointeeType();
    return P.isConstQualified() && !isObjectType(P) ? P.getUnqualifiedType()
                                                    : Ctx.getPointerType(P);
  }
  if (T->isRealFloatingType())
    return T.getUnqualifiedType();
  if (isObjectType(T)) // an object passed by value: an input
    return Ctx.getPointerType(T.getUnqualifiedType().withConst());
  return T; // const T* for inputs, T* for outputs: as the parameter itself
}

/// In an annotated template, a parameter `T` or `const T &` whose T is a
/// template parameter may be a number or an object: its tangent is
/// fluxion::tangent_arg_t<T> (helpers.hpp), a value or an address as T
/// turns out. Null when T is not such a parameter, or the runtime's alias
/// is not declared.
static QualType dependentTangentType(Sema &S, QualType T) {
  if (const auto *RT = T->getAs<ReferenceType>()) {
    if (!RT->isLValueReferenceType() ||
        !RT->getPointeeType().isConstQualified())
      return {};
    T = RT->getPointeeType();
  }
  T = T.getUnqualifiedType();
  if (!T->getAs<TemplateTypeParmType>())
    return {};
  ASTContext &Ctx = S.getASTContext();
  TypeAliasTemplateDecl *Alias = nullptr;
  for (NamedDecl *NS :
       Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get("fluxion")))
    if (auto *N = dyn_cast<NamespaceDecl>(NS))
      for (NamedDecl *D : N->lookup(&Ctx.Idents.get("tangent_arg_t")))
        if (auto *A = dyn_cast<TypeAliasTemplateDecl>(D))
          Alias = A;
  if (!Alias)
    return {};
  SourceLocation Loc = Alias->getLocation();
  TemplateArgumentListInfo Args(Loc, Loc);
  Args.addArgument(TemplateArgumentLoc(TemplateArgument(T),
                                       Ctx.getTrivialTypeSourceInfo(T, Loc)));
  return S.CheckTemplateIdType(TemplateName(Alias), Loc, Args);
}

std::vector<std::pair<std::string, QualType>>
Differentiator::tangentParams(FunctionDecl *FD,
                              const std::vector<bool> &Active) {
  std::vector<std::pair<std::string, QualType>> Ps;
  auto NameOf = [](const ParmVarDecl *P) {
    return P->getName().empty() ? std::string("_p") : P->getNameAsString();
  };
  for (ParmVarDecl *P : FD->parameters())
    Ps.push_back({NameOf(P), P->getType()});
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    if (!Active[I])
      continue;
    QualType T = FD->getParamDecl(I)->getType();
    QualType Dependent = dependentTangentType(S, T);
    Ps.push_back({"t_" + NameOf(FD->getParamDecl(I)),
                  Dependent.isNull() ? tangentParamType(Ctx, T) : Dependent});
  }
  return Ps;
}

void Differentiator::declareJVP(UserEntry &E) {
  FunctionDecl *FD = E.Annotated;
  auto Params = tangentParams(FD, E.Active);
  // The object's tangent follows the parameters' (contract v2): an input
  // of a const method, in/out of another.
  if (E.WithThis)
    Params.push_back({"t_this", tangentParamType(
                                    Ctx, cast<CXXMethodDecl>(FD)->getThisType())});
  // An object result's tangent is an object of its class, returned.
  E.JVP = declare(FD, FD->getNameAsString() + "_jvp",
                  hasSeed(FD) || returnsObject(FD) ? FD->getReturnType()
                                                   : Ctx.VoidTy,
                  Params, false, true);
}

namespace {
/// Lowered, analysed tangent body of one function.
struct Tangent {
  std::vector<Var *> Params; ///< params + tangents
  ir::Block Body;
  Var *ReturnTangent = nullptr;
};
} // namespace

/// Where the body to differentiate comes from: a function's source, or the
/// stored IR of a function Fluxion generated.
struct TangentSource {
  FunctionDecl *Def = nullptr;
  std::shared_ptr<ir::Function> IR;
  const std::vector<Var *> *Params = nullptr;
  const ir::Block *Body = nullptr;
};

static std::optional<Tangent>
tangentBody(const TangentSource &Src, const std::vector<bool> &Active,
            const std::vector<bool> &Sink, ASTContext &Ctx,
            DiagReporter &Diags, Differentiator &Oracle,
            std::shared_ptr<ir::Function> &Keep) {
  Tangent T;
  std::vector<Var *> Params;
  if (Src.IR) {
    Keep = Src.IR;
    Params = *Src.Params;
  } else {
    FunctionLowering Lowering(Ctx, Diags);
    connectLowering(Lowering, Oracle);
    std::unique_ptr<ir::Function> Lowered = Lowering.lower(Src.Def);
    if (!Lowered)
      return std::nullopt;
    eliminateJumps(*Lowered, Ctx);
    Keep = std::move(Lowered);
    Params = Keep->Params;
  }
  ir::Function &F = *Keep;
  const ir::Block &Body = Src.Body ? *Src.Body : F.Body;
  llvm::DenseMap<Var *, Var *> Tangents;
  std::vector<Var *> ActiveParams;
  T.Params = Params;
  for (unsigned I = 0; I < Params.size(); ++I) {
    if (!Active[I])
      continue;
    Var *P = Params[I];
    ActiveParams.push_back(P);
    Var *TP = F.makeVar(Var::Kind::Param, "t_" + P->Name,
                        tangentParamType(Ctx, P->Type));
    TP->ByRef = tangentPassedByValue(P);
    TP->Primal = P;
    T.Params.push_back(TP);
    Tangents[P] = TP;
  }
  ActivityInfo Activity(Body, ActiveParams);
  // Active values stored through a pointer the caller gives no tangent
  // buffer for: their tangents would go through a null pointer.
  for (unsigned I = 0; I < Params.size() && I < Src.Def->getNumParams(); ++I) {
    Var *P = Params[I];
    if (Active[I] || (I < Sink.size() && Sink[I]) || !P->isPointer() ||
        !Activity.isActive(P) || !isDifferentiableType(P->Type))
      continue;
    reportUndifferentiatedOutput(Diags, Src.Def, I, /*Tangent=*/true);
    return std::nullopt;
  }
  TangentBuilder Builder(F, Ctx, Activity, Oracle, Diags, Tangents);
  for (unsigned I = 0; I < Params.size() && I < Sink.size(); ++I)
    if (Sink[I])
      Builder.Sinks.insert(Params[I]);
  auto Out = Builder.build(&Body);
  if (!Out)
    return std::nullopt;
  T.Body = std::move(*Out);
  if (F.ReturnVar && Activity.isActive(F.ReturnVar))
    T.ReturnTangent = Tangents.lookup(F.ReturnVar);
  return T;
}

void Differentiator::defineUserJVP(UserEntry &E, FunctionDecl *Def) {
  if (returnsObject(Def))
    return defineObjectJVP(E, Def);
  E.Defined = true;
  if (Def->isInvalidDecl() || Diags.clangReportedErrors())
    return;
  // A custom forward rule of the annotated function itself takes
  // precedence (zero tangents for the parameters the annotation leaves out).
  bool Failed = false;
  if (FunctionDecl *Custom =
          findCustom(Def, "_jvp", E.Loc, &Failed, &E.Active)) {
    defineCustomForwarder(E.JVP, Def, Custom, E.Active, /*Reverse=*/false,
                          E.Loc);
    return;
  }
  if (Failed)
    return;
  Current = Def;
  TangentSource Src;
  Src.Def = Def;
  std::vector<bool> Active = E.Active;
  if (!memberForm(E, Def, Src.Def, Active)) {
    Current = nullptr;
    return;
  }
  std::shared_ptr<ir::Function> IR;
  auto T = tangentBody(Src, Active, {}, Ctx, Diags, *this, IR);
  Current = nullptr;
  if (!T) {
    explain(Def);
    return;
  }
  EmitRequest R;
  R.Target = E.JVP;
  R.Params = T->Params;
  if (Src.Def != Def)
    placeThis(R, "t_this");
  R.Locals = IR->Locals;
  R.Body = std::move(T->Body);
  if (hasSeed(Def)) {
    auto Ret = std::make_unique<ir::Stmt>(StmtKind::Return);
    Ret->RHS = T->ReturnTangent
                   ? ir::ref(T->ReturnTangent)
                   : ir::floatConst(Def->getReturnType().getUnqualifiedType(),
                                    0);
    R.Body.push_back(std::move(Ret));
  }
  emitAndPublish(R);
}

void Differentiator::defineDual(DualEntry &E, FunctionDecl *Def) {
  E.Defined = true;
  if (Def->isInvalidDecl() || Diags.clangReportedErrors())
    return;
  FunctionDecl *Saved = Current;
  Current = Def;
  TangentSource Src;
  Src.Def = Def;
  auto It = Stored.find(E.Callee);
  if (It != Stored.end()) {
    Src.IR = It->second.IR;
    Src.Params = &It->second.Params;
    Src.Body = &It->second.Body;
  }
  std::shared_ptr<ir::Function> IR;
  auto T = tangentBody(Src, E.Active, E.Sink, Ctx, Diags, *this, IR);
  Current = Saved;
  if (!T) {
    explain(Def);
    return;
  }
  EmitRequest R;
  R.Target = E.Dual;
  R.Params = T->Params;
  R.Locals = IR->Locals;
  R.Body = std::move(T->Body);
  if (hasSeed(Def)) {
    // *t_result = tangent of the result; return the value.
    ir::Function &F = *IR;
    Var *Out = F.makeVar(Var::Kind::Param, "t_result",
                         Ctx.getPointerType(F.ReturnVar->Type));
    R.Params.push_back(Out);
    ExprP TR = T->ReturnTangent ? ir::ref(T->ReturnTangent)
                                : ir::floatConst(F.ReturnVar->Type, 0);
    R.Body.push_back(ir::assign(
        ir::index(ir::ref(Out), ir::intConst(Ctx.IntTy, 0), F.ReturnVar->Type),
        TR));
  }
  auto Ret = std::make_unique<ir::Stmt>(StmtKind::Return);
  if (IR->ReturnVar && !Def->getReturnType()->isVoidType())
    Ret->RHS = ir::ref(IR->ReturnVar);
  R.Body.push_back(std::move(Ret));
  emitAndPublish(R);
}

std::optional<CallTangent>
Differentiator::tangentOf(const ir::Expr &Call,
                          llvm::ArrayRef<bool> ArgActive,
                          llvm::ArrayRef<bool> ArgSink) {
  FunctionDecl *Callee = Call.Callee;
  bool Failed = false;
  if (FunctionDecl *Custom = findCustom(Callee, "_jvp", Call.Loc, &Failed)) {
    CallTangent D;
    D.K = CallTangent::Kind::Custom;
    D.Rule = Custom;
    for (ParmVarDecl *P : Callee->parameters())
      D.TangentSlot.push_back(isDifferentiableType(P->getType()));
    return D;
  }
  if (Failed)
    return std::nullopt;
  // Second order differentiates the reverse sweep again. The runtime's
  // rules for Eigen's solves (eigen.hpp) work on Eigen's decompositions,
  // which have no derivatives of their own.
  bool EigenRule = isRuntimeDecl(Callee) &&
                   (Callee->getName().starts_with("eigen_product") ||
                    llvm::any_of(Callee->parameters(), [](ParmVarDecl *P) {
                      QualType T = P->getType();
                      return T->isPointerType() &&
                             eigenShape(T->getPointeeType());
                    }));
  if (EigenRule) {
    Diags.report(Call.Loc, Diag::NotSupported)
        << "a second derivative (f_hvp, f_hessian) through an Eigen solve, "
           "inverse or determinant"
        << "differentiate the function once (f_grad, f_vjp, f_jvp, "
           "f_jacobian)";
    return std::nullopt;
  }
  if (!canGenerate(Callee, Call.Loc, "_jvp"))
    return std::nullopt;
  bool All;
  std::vector<bool> Active = activeParams(Callee, ArgActive, All);
  std::vector<bool> Sink(ArgSink.begin(), ArgSink.end());
  Sink.resize(Callee->getNumParams(), false);
  auto Key = std::make_tuple(
      static_cast<const Decl *>(Callee->getCanonicalDecl()), Active, Sink);
  auto It = Duals.find(Key);
  if (It == Duals.end()) {
    auto E = std::make_unique<DualEntry>();
    E->Callee = Callee;
    E->Active = Active;
    E->Sink = Sink;
    std::string Suffix = activeSuffix(Callee, Active, All);
    auto Params = tangentParams(Callee, Active);
    if (hasSeed(Callee))
      Params.push_back(
          {"t_result",
           Ctx.getPointerType(Callee->getReturnType().getUnqualifiedType())});
    E->Dual = declare(Callee, Callee->getNameAsString() + "_dual" + Suffix,
                      Callee->getReturnType(), Params, true, false);
    DualOrder.push_back(E.get());
    It = Duals.emplace(Key, std::move(E)).first;
  }
  auto Use = std::make_pair(Call.Loc, Current);
  if (!llvm::is_contained(It->second->Uses, Use))
    It->second->Uses.push_back(Use);
  CallTangent D;
  D.K = CallTangent::Kind::Dual;
  D.Rule = It->second->Dual;
  D.TangentSlot.assign(Active.begin(), Active.end());
  return D;
}

void Differentiator::defineObjectJVP(UserEntry &E, FunctionDecl *Def) {
  E.Defined = true;
  if (Def->isInvalidDecl() || Diags.clangReportedErrors())
    return;
  Current = Def;
  TangentSource Src;
  Src.Def = viewOf(Def);
  std::vector<bool> Active = {true}; // the result
  Active.insert(Active.end(), E.Active.begin(), E.Active.end());
  std::shared_ptr<ir::Function> IR;
  auto T = tangentBody(Src, Active, {}, Ctx, Diags, *this, IR);
  Current = nullptr;
  if (!T) {
    explain(Def);
    return;
  }
  // T's parameters: result, p..., t_result, t_p...
  unsigned N = Def->getNumParams();
  EmitRequest R;
  R.Target = E.JVP;
  R.Locals = IR->Locals;
  for (unsigned I = 0; I < T->Params.size(); ++I)
    if (I != 0 && I != N + 1)
      R.Params.push_back(T->Params[I]);
  R.Body = std::move(T->Body);
  objectBehind(R, *IR, T->Params[0], "_result");
  Var *Tangent = objectBehind(R, *IR, T->Params[N + 1], "_t_result");
  auto Ret = std::make_unique<ir::Stmt>(StmtKind::Return);
  Ret->RHS = ir::ref(Tangent);
  R.Body.push_back(std::move(Ret));
  emitAndPublish(R);
}

} // namespace fluxion
