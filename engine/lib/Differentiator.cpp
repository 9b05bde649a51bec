//===- Differentiator.cpp - Declares and defines derivative functions ------===//
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
  if (const auto *RT = T->getAs<ReferenceType>()) // an address, as a T*
    return adjointParamType(Ctx, Ctx.getPointerType(RT->getPointeeType()));
  if (T->isRealFloatingType())
    return Ctx.getPointerType(T.getUnqualifiedType());
  if (const auto *PT = T->getAs<PointerType>())
    return Ctx.getPointerType(shadowPointee(Ctx, PT->getPointeeType()));
  return Ctx.getPointerType(T);
}

bool isFixedSizeOutput(ASTContext &Ctx, const ParmVarDecl *P) {
  const auto *AT = Ctx.getAsConstantArrayType(P->getOriginalType());
  return AT && AT->getElementType()->isRealFloatingType() &&
         !AT->getElementType().isConstQualified();
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

FunctionDecl *Differentiator::declare(
    FunctionDecl *Like, StringRef Name, QualType Ret,
    llvm::ArrayRef<std::pair<std::string, QualType>> Params, bool Internal,
    bool Visible) {
  SourceLocation Loc = Like->getLocation();
  DeclContext *DC = Like->getDeclContext();
  llvm::SmallVector<QualType, 8> Types;
  for (const auto &P : Params)
    Types.push_back(P.second);
  FunctionProtoType::ExtProtoInfo EPI;
  auto *Method = dyn_cast<CXXMethodDecl>(Like);
  if (Method && Visible && !Method->isStatic()) {
    // A member with the method's qualifiers (contract v2: S::f_grad).
    EPI.TypeQuals = Method->getMethodQualifiers();
    EPI.RefQualifier = Method->getRefQualifier();
  }
  QualType FnTy = Ctx.getFunctionType(Ret, Types, EPI);
  if (Visible && Like->getDescribedFunctionTemplate())
    return declareTemplate(Like, Name, FnTy, Params);
  if (FunctionDecl *Spec = specializationFor(Like, Name, FnTy))
    return Spec;
  StorageClass SC =
      Internal || Like->getStorageClass() == SC_Static ? SC_Static : SC_None;
  std::string Unique = derivedName(Like, Name, FnTy);
  if (Method && Visible) {
    // What the user calls on the class or the object is a member of it.
    auto *MD = CXXMethodDecl::Create(
        Ctx, Method->getParent(), Loc,
        DeclarationNameInfo(&Ctx.Idents.get(Unique), Loc), FnTy,
        Ctx.getTrivialTypeSourceInfo(FnTy, Loc),
        Method->isStatic() ? SC_Static : SC_None, /*UsesFPIntrin=*/false,
        /*isInline=*/true, ConstexprSpecKind::Unspecified, Loc);
    llvm::SmallVector<ParmVarDecl *, 8> Parms;
    for (const auto &P : Params) {
      auto *PD = ParmVarDecl::Create(
          Ctx, MD, Loc, Loc, &Ctx.Idents.get(P.first), P.second,
          Ctx.getTrivialTypeSourceInfo(P.second, Loc), SC_None, nullptr);
      PD->setScopeInfo(0, Parms.size());
      Parms.push_back(PD);
    }
    MD->setParams(Parms);
    // A member of a class template is instantiated with its class, from
    // its written type, whose parameters must be the member's own.
    if (auto FTL = MD->getTypeSourceInfo()->getTypeLoc().getAs<FunctionProtoTypeLoc>())
      for (unsigned I = 0; I < Parms.size(); ++I)
        FTL.setParam(I, Parms[I]);
    if (isTemplatePattern(Method))
      Templates[Method->getCanonicalDecl()].MemberDerivatives.push_back(MD);
    MD->setAccess(AS_public);
    MD->setImplicit(false);
    Method->getParent()->addDecl(MD);
    Generated.insert(MD);
    if (OnDeclared)
      OnDeclared(MD, Like);
    return MD;
  }
  FunctionDecl *FD = FunctionDecl::Create(
      Ctx, DC, Loc, Loc, DeclarationName(&Ctx.Idents.get(Unique)), FnTy,
      Ctx.getTrivialTypeSourceInfo(FnTy, Loc), SC,
      /*UsesFPIntrin=*/false, /*isInlineSpecified=*/
      !Internal && Like->isInlineSpecified(), /*hasWrittenPrototype=*/true);
  llvm::SmallVector<ParmVarDecl *, 8> Parms;
  for (const auto &P : Params) {
    auto *PD = ParmVarDecl::Create(Ctx, FD, Loc, Loc,
                                   &Ctx.Idents.get(P.first), P.second,
                                   Ctx.getTrivialTypeSourceInfo(P.second, Loc),
                                   SC_None, nullptr);
    PD->setScopeInfo(0, Parms.size());
    Parms.push_back(PD);
  }
  FD->setParams(Parms);
  FD->setImplicit(false);
  FD->setLexicalDeclContext(Like->getLexicalDeclContext());
  if (Visible) {
    if (Scope *Sc = S.getScopeForContext(DC))
      S.PushOnScopeChains(FD, Sc, /*AddToContext=*/true);
    else
      DC->addDecl(FD);
  } else {
    DC->addHiddenDecl(FD);
  }
  Generated.insert(FD);
  if (OnDeclared)
    OnDeclared(FD, Like);
  return FD;
}

/// The template arguments of an instance of a function template, as part
/// of an identifier: "2" for scale<2>, "float_3" for g<float, 3>.
static std::string templateArgsForName(const FunctionDecl *FD) {
  const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
  if (!Args)
    return "";
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  PrintingPolicy Policy(FD->getASTContext().getLangOpts());
  for (unsigned I = 0; I < Args->size(); ++I) {
    OS << '_';
    Args->get(I).print(Policy, OS, /*IncludeType=*/false);
  }
  std::string Name;
  for (char C : Text) {
    bool Word = llvm::isAlnum(C);
    if (Word)
      Name += C;
    else if (!Name.empty() && Name.back() != '_')
      Name += '_';
  }
  while (!Name.empty() && Name.back() == '_')
    Name.pop_back();
  return Name;
}

std::string Differentiator::derivedName(const FunctionDecl *Like,
                                        StringRef Name, QualType FnTy) {
  std::string Base = Name.str();
  // Instances of one template share a name: scale<2> and scale<3> would
  // both get scale_fwd(double), one function defined twice.
  StringRef Own = Like->getName();
  std::string Args = templateArgsForName(Like);
  if (!Args.empty() && Name.starts_with(Own))
    Base = (Own + "_" + Args + Name.drop_front(Own.size())).str();
  std::string Unique = Base;
  const void *Type = Ctx.getCanonicalType(FnTy).getAsOpaquePtr();
  const DeclContext *DC = Like->getDeclContext()->getRedeclContext();
  for (unsigned I = 1;
       !GeneratedNames.insert({DC, Unique, Type}).second; ++I)
    Unique = Base + "_" + std::to_string(I);
  return Unique;
}

std::vector<std::pair<std::string, QualType>>
Differentiator::reverseParams(FunctionDecl *FD, const std::vector<bool> &Active) {
  std::vector<std::pair<std::string, QualType>> Ps;
  auto NameOf = [](const ParmVarDecl *P) {
    return P->getName().empty() ? std::string("_p") : P->getNameAsString();
  };
  for (ParmVarDecl *P : FD->parameters())
    Ps.push_back({NameOf(P), P->getType()});
  if (hasSeed(FD))
    Ps.push_back({"seed", FD->getReturnType().getUnqualifiedType()});
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    if (Active[I])
      Ps.push_back({"d_" + NameOf(FD->getParamDecl(I)),
                    adjointParamType(Ctx, FD->getParamDecl(I)->getType())});
  return Ps;
}

Differentiator::UserEntry *
Differentiator::findUser(const FunctionDecl *FD,
                         std::optional<Annotation::Kind> K) {
  for (const FunctionDecl *R : FD->redecls())
    for (auto &E : Users)
      if (E->Annotated == R && (!K || E->K == *K))
        return E.get();
  return nullptr;
}

bool Differentiator::isUsed(const UserEntry &E) const {
  for (const FunctionDecl *D :
       {E.VJP, E.Grad, E.JVP, E.HVP, E.Hessian, E.Jacobian})
    if (D && (D->isUsed() || D->isReferenced()))
      return true;
  return false;
}

VarDecl *Differentiator::lookupGlobal(FunctionDecl *FD, StringRef Name) {
  for (DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent()) {
    if (!DC->isFileContext())
      continue;
    LookupResult R(S, &Ctx.Idents.get(Name), FD->getLocation(),
                   Sema::LookupOrdinaryName);
    S.LookupQualifiedName(R, DC);
    if (auto *VD = R.getAsSingle<VarDecl>())
      return VD;
    if (!R.empty())
      return nullptr;
  }
  return nullptr;
}

bool Differentiator::checkAnnotation(FunctionDecl *FD, const Annotation &A,
                                     std::vector<bool> &Active,
                                     std::vector<VarDecl *> &Globals) {
  auto Fail = [&](StringRef Why) {
    Diags.report(A.Loc, Diag::NotDifferentiable) << FD << Why;
    return false;
  };
  // A function template's own annotation declares derivative templates:
  // what its parameters carry is known once it is instantiated, so a
  // parameter of dependent type may be differentiable.
  bool Pattern = isTemplatePattern(FD);
  if (!Pattern && (FD->getType()->isDependentType() || FD->isDependentContext())) {
    Diags.report(A.Loc, Diag::TemplateNotSupported) << A.Spelling;
    return false;
  }
  if (Pattern && isa<CXXMethodDecl>(FD) && FD->getDescribedFunctionTemplate())
    return Fail("[[" + A.Spelling +
                "]] on a member function template is not supported yet; "
                "annotate a free function template that takes the object "
                "as a parameter");
  if (Pattern && FD->getReturnType()->getContainedDeducedType())
    return Fail("the return type of an annotated function template must be "
                "written out (e.g. 'T'), not deduced from 'auto'");
  auto Differentiable = [&](QualType T) {
    return isDifferentiableType(T) || (Pattern && mayBeDifferentiable(T));
  };
  bool Instance = isa<CXXMethodDecl>(FD) && !cast<CXXMethodDecl>(FD)->isStatic();
  bool WithThis = llvm::is_contained(A.Params, "this");
  if (Instance && A.K != Annotation::Kind::Grad &&
      A.K != Annotation::Kind::Jvp)
    return Fail("[[" + A.Spelling +
                "]] on a member function is not supported yet; "
                "[[fluxion::grad]] and [[fluxion::jvp]] are, or annotate a free function that "
                "takes the object as a parameter");
  if (WithThis && !Instance)
    return Fail("it names \"this\", which only a non-static member function "
                "has");
  if (FD->isVariadic())
    return Fail("it is variadic");
  Active.assign(FD->getNumParams(), false);
  bool AnyDiff = false, AnyOutput = false;
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    QualType T = FD->getParamDecl(I)->getType();
    if (!Differentiable(T))
      continue;
    AnyDiff = true;
    Active[I] = A.Params.empty();
    if ((T->isPointerType() || T->isReferenceType()) &&
        !T->getPointeeType().isConstQualified())
      AnyOutput = true;
  }
  // A method defined in its class is seen before the class is complete:
  // its members are checked when its derivatives are defined.
  // A non-const method may write the object: it is an output, like S&.
  if (WithThis && !cast<CXXMethodDecl>(FD)->isConst())
    AnyOutput = true;
  if (WithThis && (cast<CXXMethodDecl>(FD)->getParent()->isBeingDefined() ||
                   isDifferentiableRecord(cast<CXXMethodDecl>(FD)
                                              ->getThisType()
                                              ->getPointeeType())))
    AnyDiff = true;
  else if (WithThis)
    return Fail("it names \"this\", but '" +
                cast<CXXMethodDecl>(FD)->getParent()->getNameAsString() +
                "' is not a class of real numbers (" +
                recordProblem(cast<CXXMethodDecl>(FD)->getThisType()
                                  ->getPointeeType()) +
                ")");
  if (!AnyDiff && A.Params.empty()) {
    // A class parameter the engine cannot follow yet is named as such, not
    // taken for the absence of real numbers.
    for (const ParmVarDecl *P : FD->parameters()) {
      QualType E = P->getType().getNonReferenceType();
      while (!elementType(E).isNull())
        E = elementType(E);
      std::string Why = E->isRecordType() ? recordProblem(E) : "";
      if (!Why.empty())
        return Fail("parameter '" + P->getNameAsString() + "' of type '" +
                    P->getType().getAsString() +
                    "' cannot be differentiated yet (" + Why +
                    "); pass its real numbers as a pointer or array "
                    "parameter of their own");
    }
    return Fail("it has no floating-point parameter to differentiate with "
                "respect to");
  }
  QualType R = FD->getReturnType();
  if (returnsObject(FD)) {
    if (A.K != Annotation::Kind::Grad && A.K != Annotation::Kind::Jvp)
      return Fail("it returns an object ('" + R.getAsString() + "'); [[" +
                  A.Spelling +
                  "]] needs a floating-point result: return one of its "
                  "members, or use [[fluxion::grad]] (f_vjp with a seed "
                  "object) or [[fluxion::jvp]]");
    if (Instance)
      return Fail("a member function returning an object is not supported "
                  "yet; annotate a free function that takes the object as a "
                  "parameter");
    if (!Globals.empty() || llvm::any_of(A.Params, [&](const std::string &N) {
          return lookupGlobal(FD, N) != nullptr;
        }))
      return Fail("naming global variables is not supported for a function "
                  "returning an object");
  }
  if (R->isVoidType() && !AnyOutput)
    return Fail("it returns nothing and has no output pointer parameter");
  if (!R->isVoidType() && !R->isRealFloatingType() && !returnsObject(FD) &&
      !(Pattern && R->isDependentType() && hasSeed(FD)))
    return Fail(("it returns '" + R.getAsString() +
                 "'; a differentiated function returns a floating-point "
                 "value or void")
                    .c_str());
  for (const std::string &Name : A.Params) {
    if (Name == "this")
      continue;
    bool Found = false;
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      if (FD->getParamDecl(I)->getName() != Name)
        continue;
      Found = true;
      if (!Differentiable(FD->getParamDecl(I)->getType()))
        return Fail(("parameter '" + Name + "' has type '" +
                     FD->getParamDecl(I)->getType().getAsString() +
                     "', which carries no derivative")
                        .c_str());
      Active[I] = true;
    }
    size_t Index = &Name - A.Params.data();
    SourceLocation Loc =
        Index < A.ParamLocs.size() ? A.ParamLocs[Index] : A.Loc;
    // Not a parameter: a global variable (TensorFlow's `variables`).
    VarDecl *G = Found ? nullptr : lookupGlobal(FD, Name);
    if (G && G->hasGlobalStorage() && !G->isStaticLocal() &&
        isDifferentiableType(G->getType()) && !G->getType()->isPointerType() &&
        (!G->getType()->isArrayType() ||
         Ctx.getAsConstantArrayType(G->getType()))) {
      if (A.K != Annotation::Kind::Grad) {
        Diags.report(Loc, Diag::GlobalNotGrad) << G << A.Spelling;
        return false;
      }
      Globals.push_back(G);
      continue;
    }
    if (!Found) {
      // The closest name the annotation may list (a differentiable
      // parameter, or "this"), if close enough to be a typo: "xx" for "x",
      // "W" for "w", but not "y" for "x". Only that name is offered, so
      // that the replacement compiles.
      std::string Lower = StringRef(Name).lower();
      std::string Best;
      unsigned BestDistance = std::max<unsigned>(1, (Name.size() + 2) / 3) + 1;
      auto Consider = [&](StringRef Candidate) {
        unsigned D = StringRef(Lower).edit_distance(Candidate.lower(), true,
                                                    BestDistance);
        if (D < BestDistance && D < std::max(Name.size(), Candidate.size())) {
          Best = Candidate.str();
          BestDistance = D;
        }
      };
      for (const ParmVarDecl *P : FD->parameters())
        if (!P->getName().empty() && Differentiable(P->getType()))
          Consider(P->getName());
      if (Instance &&
          (A.K == Annotation::Kind::Grad || A.K == Annotation::Kind::Jvp))
        Consider("this");
      if (Best.empty()) {
        Diags.report(Loc, Diag::UnknownParam) << Name << FD;
        return false;
      }
      auto Report = Diags.report(Loc, Diag::UnknownParamSuggest)
                    << Name << FD << Best;
      if (Index < A.ParamLocs.size() && Loc.isFileID())
        Report << FixItHint::CreateReplacement(
            CharSourceRange::getTokenRange(Loc, Loc), "\"" + Best + "\"");
      return false;
    }
  }
  // A Jacobian's names pick its columns (like JAX's argnums); its rows are
  // the outputs, named or not.
  if (A.K == Annotation::Kind::Jacobian || A.OutputsAlwaysActive)
    for (unsigned I = 0; I < FD->getNumParams(); ++I)
      if (isFixedSizeOutput(Ctx, FD->getParamDecl(I)))
        Active[I] = true;
  return true;
}

void Differentiator::annotate(FunctionDecl *FD, const Annotation &A) {
  // Each instance of an annotated template is annotated the same way.
  if (isTemplatePattern(FD) && !A.Implied) {
    FunctionTemplateDecl *Primal = FD->getDescribedFunctionTemplate();
    TemplateEntry &T = Templates[Primal ? (Decl *)Primal->getCanonicalDecl()
                                        : FD->getCanonicalDecl()];
    T.Primal = Primal;
    if (!Primal)
      T.PrimalMember = cast<CXXMethodDecl>(FD);
    T.Annotations.push_back(A);
  }
  // The same attribute written twice, or the sweep [[fluxion::jacobian]] is
  // built from, or what [[fluxion::hessian]] also gives: one set of
  // functions serves both, which is only right if they differentiate the
  // same parameters. What a Hessian also gives yields to what is written.
  if (UserEntry *Prev = findUser(FD, A.K)) {
    if (!A.ForJacobian)
      Prev->OnlyForJacobian = false;
    std::vector<bool> Active;
    std::vector<VarDecl *> Globals;
    if (!A.Implied && checkAnnotation(FD, A, Active, Globals) &&
        (Active != Prev->Active || Globals != Prev->Globals)) {
      std::string Why =
          "two of its annotations ask for '" + FD->getNameAsString() +
          (A.K == Annotation::Kind::Jvp ? "_jvp" : "_vjp") +
          "' with different parameters ([[fluxion::jacobian]] and "
          "[[fluxion::hessian]] generate it too, and a Jacobian "
          "differentiates its output arrays whether named or not); give "
          "them the same names";
      Diags.report(A.Loc, Diag::NotDifferentiable) << FD << Why;
    }
    return;
  }
  // A redeclaration of an annotated function: the derivatives exist.
  LookupResult Prev(S, FD->getDeclName(), FD->getLocation(),
                    Sema::LookupOrdinaryName);
  S.LookupQualifiedName(Prev, FD->getDeclContext());
  for (NamedDecl *ND : Prev)
    if (auto *P = dyn_cast<FunctionDecl>(ND))
      if (P != FD && Ctx.hasSameType(P->getType(), FD->getType()))
        if (UserEntry *E = findUser(P, A.K)) {
          (void)E;
          return;
        }
  std::vector<bool> Active;
  std::vector<VarDecl *> Globals;
  if (!checkAnnotation(FD, A, Active, Globals))
    return;
  auto E = std::make_unique<UserEntry>();
  E->K = A.K;
  E->Annotated = FD;
  E->Active = Active;
  for (ParmVarDecl *P : FD->parameters())
    E->Named.push_back(A.Params.empty() ||
                       llvm::is_contained(A.Params, P->getName()));
  E->Globals = Globals;
  E->WithThis = llvm::is_contained(A.Params, "this");
  E->Loc = A.Loc;
  E->OnlyForJacobian = A.ForJacobian;
  // A template's derivatives are templates: only their instances' bodies
  // are generated.
  E->Defined = isTemplatePattern(FD);
  if (A.K == Annotation::Kind::Jvp) {
    declareJVP(*E);
    Users.push_back(std::move(E));
    return;
  }
  if (A.K == Annotation::Kind::Jacobian) {
    UserEntry &Ref = *E;
    Users.push_back(std::move(E));
    if (!declareJacobian(Ref, A))
      Ref.Defined = true;
    return;
  }
  if (A.K == Annotation::Kind::Hessian) {
    if (!checkSecondOrder(FD, A))
      return;
    declareSecondOrder(*E);
    Users.push_back(std::move(E));
    // A Hessian annotation also gives what grad gives.
    Annotation Grad = A;
    Grad.K = Annotation::Kind::Grad;
    Grad.Implied = true;
    annotate(FD, Grad);
    return;
  }
  if (returnsObject(FD)) {
    declareObjectVJP(*E);
    Users.push_back(std::move(E));
    return;
  }
  std::string Base = FD->getNameAsString();
  auto Params = reverseParams(FD, Active);
  for (VarDecl *G : Globals)
    Params.push_back(
        {"d_" + G->getNameAsString(),
         G->getType()->isArrayType()
             ? Ctx.getArrayDecayedType(G->getType().getUnqualifiedType())
             : Ctx.getPointerType(G->getType().getUnqualifiedType())});
  // The object's adjoint follows, where the globals' go (contract v2).
  if (E->WithThis)
    Params.push_back(
        {"d_this", Ctx.getPointerType(Ctx.getRecordType(
                       cast<CXXMethodDecl>(FD)->getParent()))});
  // f_vjp returns f's value too (contract: "R f_vjp(...)").
  E->VJP = declare(FD, Base + "_vjp",
                   hasSeed(FD) ? FD->getReturnType() : Ctx.VoidTy, Params,
                   false, true);
  if (hasSeed(FD)) {
    auto GradParams = Params;
    GradParams.erase(GradParams.begin() + FD->getNumParams());
    E->Grad = declare(FD, Base + "_grad", FD->getReturnType(), GradParams,
                      false, true);
  }
  Users.push_back(std::move(E));
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
    bool Written = false;
    ir::forEachStmt(F.Body, [&](const ir::Stmt &St) {
      if (St.K == StmtKind::Assign && St.LHS->rootVar() == GV)
        Written = true;
    });
    if (Written) {
      Diags.report(G->getLocation(), Diag::GlobalWritten) << G << Def;
      return std::nullopt;
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
    Diags.report(Def->getParamDecl(I)->getLocation(),
                 Diag::UndifferentiatedOutput)
        << Def->getParamDecl(I) << Def << 0;
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
          QualType T = V->isArray() ? Ctx.getBaseElementType(V->Type)
                                    : V->Type;
          Var *Tape = B.tapeFor(T);
          D.Parts.Forward.push_back(push(Tape, ref(V)));
          D.Parts.Reverse.insert(D.Parts.Reverse.begin(),
                                 assign(ref(V), pop(Tape)));
        }
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
      if (E.Defined || findUser(Next, E.K) != &E)
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
  auto Report = [&](auto &Entries, StringRef Suffix) {
    for (auto *E : Entries) {
      if (E->Defined)
        continue;
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
