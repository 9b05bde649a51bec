//===- CallSites.cpp - The call-site form fluxion::grad(f) ------------------===//
#include "CallSites.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Sema/Initialization.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace fluxion {

namespace {

bool inFluxionNamespace(const Decl *D) {
  const auto *NS = dyn_cast<NamespaceDecl>(D->getDeclContext());
  return NS && NS->getName() == "fluxion" &&
         NS->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

/// A specialization of fluxion::derivative_fn, the type of the objects the
/// call-site forms return, or of the base that holds a lambda
/// (fluxion::detail::lambda_derivative).
bool isDerivativeObject(const CXXRecordDecl *RD) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
  if (!Spec)
    return false;
  if (Spec->getName() == "derivative_fn")
    return inFluxionNamespace(Spec);
  const auto *Detail = dyn_cast<NamespaceDecl>(Spec->getDeclContext());
  return Spec->getName() == "lambda_derivative" && Detail &&
         Detail->getName() == "detail" && inFluxionNamespace(Detail);
}

/// What a call-site form named Name generates.
std::optional<std::pair<Annotation::Kind, Differentiator::EntryKind>>
formKind(StringRef Name) {
  using K = Annotation::Kind;
  using E = Differentiator::EntryKind;
  return llvm::StringSwitch<
             std::optional<std::pair<Annotation::Kind, E>>>(Name)
      .Case("grad", std::pair(K::Grad, E::Grad))
      .Case("vjp", std::pair(K::Grad, E::VJP))
      .Case("jvp", std::pair(K::Jvp, E::JVP))
      .Case("hvp", std::pair(K::Hessian, E::HVP))
      .Case("hessian", std::pair(K::Hessian, E::Hessian))
      .Case("jacobian", std::pair(K::Jacobian, E::Jacobian))
      .Default(std::nullopt);
}

/// The call-site form CE calls (fluxion::grad, ...), or null.
const FunctionDecl *formOf(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier() || !inFluxionNamespace(FD) ||
      !formKind(FD->getName()) || FD->getNumParams() < 2 ||
      CE->getNumArgs() != FD->getNumParams() ||
      !FD->getParamDecl(FD->getNumParams() - 1)
           ->getType()
           ->isFunctionPointerType())
    return nullptr;
  return isDerivativeObject(FD->getReturnType()->getAsCXXRecordDecl()) ? FD
                                                                      : nullptr;
}

/// The class of a derivative object (the derivative_fn specialization).
const CXXRecordDecl *objectType(const Expr *Object) {
  // Not the base class a lambda's derivative is called through.
  const CXXRecordDecl *RD =
      Object->IgnoreImplicit()->getType()->getAsCXXRecordDecl();
  return RD ? RD->getCanonicalDecl() : nullptr;
}

class Finder : public RecursiveASTVisitor<Finder> {
public:
  llvm::SmallVector<CallExpr *, 4> Forms;
  /// Calls of derivative objects: the call, its operator(), the object.
  llvm::SmallVector<std::tuple<CallExpr *, CXXMethodDecl *, Expr *>, 4> Calls;

  bool VisitCallExpr(CallExpr *CE) {
    if (formOf(CE)) {
      Forms.push_back(CE);
      return true;
    }
    auto *MD = dyn_cast_or_null<CXXMethodDecl>(CE->getDirectCallee());
    if (!MD || MD->getOverloadedOperator() != OO_Call ||
        !isDerivativeObject(MD->getParent()))
      return true;
    if (auto *Op = dyn_cast<CXXOperatorCallExpr>(CE))
      Calls.push_back({CE, MD, Op->getArg(0)});
    else if (auto *Member = dyn_cast<CXXMemberCallExpr>(CE))
      Calls.push_back({CE, MD, Member->getImplicitObjectArgument()});
    return true;
  }
};

} // namespace

CallSites::CallSites(Sema &S, Differentiator &Diff)
    : S(S), Diff(Diff), Diags(S.getDiagnostics()) {}

void CallSites::visit(Decl *D) {
  // Templates are visited as their instances.
  if (auto *FD = dyn_cast<FunctionDecl>(D); FD && FD->isDependentContext())
    return;
  Finder F;
  F.TraverseDecl(D);
  for (CallExpr *Form : F.Forms)
    bind(Form, D);
  for (auto &[Call, Op, Object] : F.Calls)
    Uses.push_back({Call, Op, Object});
}

void CallSites::bind(CallExpr *Form, const Decl *User) {
  if (ByForm.count(Form))
    return;
  const FunctionDecl *FormFn = formOf(Form);
  unsigned Last = Form->getNumArgs() - 1;
  // Passed explicitly: the output of fluxion-gen, compiled again.
  if (!isa<CXXDefaultArgExpr>(Form->getArg(Last)))
    return;
  std::string Spelling = "fluxion::" + FormFn->getName().str();
  SourceLocation Loc = Form->getExprLoc();
  const Expr *Arg = Form->getArg(0)->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(Arg);
      UO && UO->getOpcode() == UO_AddrOf)
    Arg = UO->getSubExpr()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(Arg);
  auto *Fn = Ref ? const_cast<FunctionDecl *>(
                       dyn_cast<FunctionDecl>(Ref->getDecl()))
                 : nullptr;
  bool Lambda = false;
  if (!Fn)
    if (CXXRecordDecl *Closure =
            Form->getArg(0)->getType()->getAsCXXRecordDecl();
        Closure && Closure->isLambda() && !Closure->isGenericLambda()) {
      Fn = lambdaFunction(Closure);
      Lambda = Fn != nullptr;
    }
  if (!Fn) {
    // A lambda or another object: the header's static_assert says so.
    if (Form->getArg(0)->getType()->isFunctionPointerType())
      Diags.report(Form->getArg(0)->getExprLoc(), Diag::CallSiteNotFunction)
          << Spelling;
    return;
  }
  auto Kinds = *formKind(FormFn->getName());
  Annotation A;
  A.K = Kinds.first;
  A.Spelling = Spelling;
  A.Loc = Loc;
  for (unsigned I = 1; I < Last; ++I) {
    const auto *Name =
        dyn_cast<StringLiteral>(Form->getArg(I)->IgnoreParenImpCasts());
    if (!Name) {
      Diags.report(Form->getArg(I)->getExprLoc(), Diag::CallSiteBadName)
          << Spelling;
      return;
    }
    A.Params.push_back(Name->getString().str());
    A.ParamLocs.push_back(Name->getBeginLoc());
  }
  // A lambda is differentiated with respect to its parameters, not the
  // closure that holds its captures.
  if (Lambda && A.Params.empty())
    for (const ParmVarDecl *P : Fn->parameters().drop_front())
      A.Params.push_back(P->getNameAsString());
  FunctionDecl *Generated = Diff.callSiteDerivative(Fn, A, Kinds.second);
  if (!Generated)
    return;
  ASTContext &Ctx = S.getASTContext();
  QualType Hidden = FormFn->getParamDecl(Last)->getType();
  ExprResult Address =
      S.BuildDeclRefExpr(Generated, Generated->getType(), VK_LValue, Loc);
  if (Address.isInvalid())
    return;
  ExprResult Cast = S.BuildCXXNamedCast(
      Loc, tok::kw_reinterpret_cast, Ctx.getTrivialTypeSourceInfo(Hidden, Loc),
      Address.get(), SourceRange(Loc, Loc), SourceRange(Loc, Loc));
  if (Cast.isInvalid())
    return;
  Form->setArg(Last, Cast.get());
  Made M{Form, Generated};
  ByForm[Form] = M;
  ByType[objectType(Form)].push_back(M);
  if (OnBound)
    OnBound(Form, Generated, User);
}

FunctionDecl *CallSites::lambdaFunction(CXXRecordDecl *Closure) {
  if (FunctionDecl *&Known = LambdaFunctions[Closure->getCanonicalDecl()])
    return Known;
  CXXMethodDecl *Call = Closure->getLambdaCallOperator();
  if (!Call || !Call->isConst() || !Call->hasBody())
    return nullptr;
  ASTContext &Ctx = S.getASTContext();
  QualType Self = Ctx.getLValueReferenceType(
      Ctx.getRecordType(Closure).withConst());
  llvm::SmallVector<QualType, 4> Types{Self};
  for (const ParmVarDecl *P : Call->parameters())
    Types.push_back(P->getType());
  QualType FnTy =
      Ctx.getFunctionType(Call->getReturnType(), Types,
                          FunctionProtoType::ExtProtoInfo());
  SourceLocation At = Call->getLocation();
  auto *Fn = FunctionDecl::Create(
      Ctx, Ctx.getTranslationUnitDecl(), At, At, &Ctx.Idents.get("lambda"),
      FnTy, Ctx.getTrivialTypeSourceInfo(FnTy, At), SC_Static);
  llvm::SmallVector<ParmVarDecl *, 4> Params;
  auto AddParam = [&](StringRef Name, QualType T) {
    auto *P = ParmVarDecl::Create(Ctx, Fn, At, At, &Ctx.Idents.get(Name), T,
                                  Ctx.getTrivialTypeSourceInfo(T, At), SC_None,
                                  nullptr);
    P->setScopeInfo(0, Params.size());
    Params.push_back(P);
  };
  AddParam("self", Self);
  for (const ParmVarDecl *P : Call->parameters())
    AddParam(P->getName().empty() ? "_p" + std::to_string(Params.size())
                                  : P->getName(),
             P->getType());
  Fn->setParams(Params);
  // return self(p...);
  llvm::SmallVector<Expr *, 4> Args;
  for (ParmVarDecl *P : llvm::ArrayRef(Params).drop_front())
    Args.push_back(DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(),
                                       SourceLocation(), P, false, At,
                                       P->getType().getNonReferenceType(),
                                       VK_LValue));
  Sema::ContextRAII InFunction(S, Fn);
  Expr *SelfRef = DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(),
                                      SourceLocation(), Params[0], false, At,
                                      Self.getNonReferenceType(), VK_LValue);
  ExprResult Result = S.BuildCallExpr(nullptr, SelfRef, At, Args, At);
  if (Result.isInvalid())
    return nullptr;
  Fn->setBody(CompoundStmt::Create(
      Ctx, {ReturnStmt::Create(Ctx, At, Result.get(), nullptr)},
      FPOptionsOverride(), At, At));
  Ctx.getTranslationUnitDecl()->addHiddenDecl(Fn);
  if (Emit)
    Emit(Fn);
  LambdaFunctions[Closure->getCanonicalDecl()] = Fn;
  return Fn;
}

const CallSites::Made *CallSites::origin(const Expr *Object) const {
  const Expr *E = Object;
  // The objects cannot be assigned to: a variable holds what initialised it.
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      auto It = ByForm.find(CE);
      return It == ByForm.end() ? nullptr : &It->second;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      if (Construct->getNumArgs() != 1 ||
          !Construct->getConstructor()->isCopyOrMoveConstructor())
        return nullptr;
      E = Construct->getArg(0);
      continue;
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!VD || isa<ParmVarDecl>(VD))
      return nullptr;
    E = VD->getInit();
  }
  return nullptr;
}

namespace {
/// The argument as written in the call operator's body (`static_cast<P
/// &&>(p)`), without the conversions and copies to the old parameter type.
Expr *asWritten(Expr *E) {
  for (;;) {
    E = E->IgnoreImplicit();
    auto *Construct = dyn_cast<CXXConstructExpr>(E);
    if (!Construct || Construct->getNumArgs() != 1 ||
        !Construct->getConstructor()->isCopyOrMoveConstructor())
      return E;
    E = Construct->getArg(0);
  }
}

/// The call in the operator's body through a reinterpret_cast function
/// pointer, and the cast.
std::pair<CallExpr *, CXXReinterpretCastExpr *> castCall(Stmt *Body) {
  struct Finder : RecursiveASTVisitor<Finder> {
    CallExpr *Call = nullptr;
    CXXReinterpretCastExpr *Cast = nullptr;
    bool VisitCallExpr(CallExpr *CE) {
      auto *C = dyn_cast<CXXReinterpretCastExpr>(
          CE->getCallee()->IgnoreParenImpCasts());
      if (!C || !C->getType()->isFunctionPointerType())
        return true;
      Call = CE;
      Cast = C;
      return false;
    }
  } F;
  F.TraverseStmt(Body);
  return {F.Call, F.Cast};
}

/// Replaces the child Old of any statement under Root by New.
bool replaceChild(Stmt *Root, const Stmt *Old, Stmt *New) {
  for (Stmt *&Child : Root->children()) {
    if (!Child)
      continue;
    if (Child == Old) {
      Child = New;
      return true;
    }
    if (replaceChild(Child, Old, New))
      return true;
  }
  return false;
}

/// "double, const double *, int".
std::string typeList(llvm::ArrayRef<QualType> Types, const ASTContext &Ctx) {
  PrintingPolicy Policy(Ctx.getLangOpts());
  Policy.SuppressTagKeyword = true;
  std::string Text;
  for (QualType T : Types) {
    if (!Text.empty())
      Text += ", ";
    Text += T.getAsString(Policy);
  }
  return Text;
}
} // namespace

void CallSites::retarget(const CXXMethodDecl *Op,
                         llvm::ArrayRef<const Made *> Candidates,
                         const CallExpr *At) {
  const FunctionDecl *Def = nullptr;
  if (!Op->hasBody(Def) || !Def->getBody())
    return;
  auto [OldCall, OldCast] = castCall(Def->getBody());
  if (!OldCall)
    return;
  ASTContext &Ctx = S.getASTContext();
  SourceLocation Loc = At->getExprLoc();
  auto NoteMade = [&](const Made *M) {
    Diags.report(M->Form->getExprLoc(), Diag::NoteCallSiteMade);
  };
  const Made *First = Candidates.front();
  QualType Target = First->Generated->getType();
  for (const Made *M : Candidates.drop_front())
    if (!Ctx.hasSameType(M->Generated->getType(), Target)) {
      Diags.report(Loc, Diag::CallSiteAmbiguous)
          << First->Generated->getName() << M->Generated->getName();
      NoteMade(First);
      NoteMade(M);
      return;
    }
  const auto *FT = Target->castAs<FunctionProtoType>();
  llvm::SmallVector<Expr *, 8> Args;
  llvm::SmallVector<QualType, 8> Passed;
  for (Expr *Arg : OldCall->arguments()) {
    Args.push_back(asWritten(Arg));
    Passed.push_back(Args.back()->getType().getNonReferenceType());
  }
  bool Fits = Args.size() == FT->getNumParams();
  for (unsigned I = 0; Fits && I < Args.size(); ++I)
    Fits = S.CanPerformCopyInitialization(
        InitializedEntity::InitializeParameter(Ctx, FT->getParamType(I),
                                               /*Consumed=*/false),
        Args[I]);
  if (!Fits) {
    Diags.report(Loc, Diag::CallSiteMismatch)
        << ("fluxion::" + formOf(First->Form)->getName()).str()
        << typeList(Passed, Ctx) << First->Generated->getName()
        << typeList(FT->getParamTypes(), Ctx);
    NoteMade(First);
    return;
  }
  Sema::ContextRAII InOperator(S, const_cast<FunctionDecl *>(Def));
  SourceLocation Begin = OldCall->getBeginLoc();
  ExprResult Cast = S.BuildCXXNamedCast(
      Begin, tok::kw_reinterpret_cast,
      Ctx.getTrivialTypeSourceInfo(Ctx.getPointerType(Target), Begin),
      OldCast->getSubExpr(), SourceRange(Begin, Begin),
      SourceRange(Begin, Begin));
  if (Cast.isInvalid())
    return;
  ExprResult Call = S.BuildCallExpr(nullptr, Cast.get(), Begin, Args,
                                    OldCall->getRParenLoc());
  if (Call.isInvalid() ||
      !Ctx.hasSameType(Call.get()->getType(), OldCall->getType()))
    return;
  replaceChild(Def->getBody(), OldCall, Call.get());
}

void CallSites::finish() {
  if (Diags.clangReportedErrors())
    return;
  // Each instance of the call operator, with the functions the objects it
  // is called on can hold.
  struct OperatorUses {
    llvm::SmallVector<const Made *, 2> Candidates;
    const CallExpr *First = nullptr;
  };
  llvm::MapVector<const CXXMethodDecl *, OperatorUses> Operators;
  for (const Use &U : Uses) {
    // An object that names its function's type calls it directly.
    const FunctionDecl *Def = nullptr;
    if (!U.Operator->hasBody(Def) || !castCall(Def->getBody()).first)
      continue;
    llvm::SmallVector<const Made *, 2> Candidates;
    if (const Made *M = origin(U.Object))
      Candidates.push_back(M);
    else if (auto It = ByType.find(objectType(U.Object));
             It != ByType.end())
      for (const Made &M : It->second)
        Candidates.push_back(&M);
    if (Candidates.empty()) {
      Diags.report(U.Call->getExprLoc(), Diag::CallSiteUnknown);
      continue;
    }
    OperatorUses &O = Operators[U.Operator];
    if (!O.First)
      O.First = U.Call;
    for (const Made *M : Candidates)
      if (!llvm::is_contained(O.Candidates, M))
        O.Candidates.push_back(M);
  }
  for (auto &[Op, O] : Operators)
    retarget(Op, O.Candidates, O.First);
}

} // namespace fluxion
