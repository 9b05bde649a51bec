//===- Annotations.cpp - What an annotation declares ----------------------===//
//
// The first half of the engine's entry point (Differentiator.h): an
// annotation is checked against its function (which parameters it names,
// what the function returns) and the functions it promises are declared at
// once, so that later code can call them; the definitions come when the
// body is complete (Differentiator.cpp).
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Differentiator.h"
#include "fluxion/engine/FunctionViews.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace fluxion {
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
  if (hasSeed(FD)) {
    // A template's result spelled as a class (`std::array<T, 3>`,
    // `Vec<T>`): an object in every instance, whose seed is `const R &`
    // as in declareObjectVJP.
    QualType R = FD->getReturnType().getUnqualifiedType();
    if (R->isDependentType() &&
        (R->getAs<TemplateSpecializationType>() || R->isRecordType()))
      R = Ctx.getLValueReferenceType(R.withConst());
    Ps.push_back({"seed", R});
  }
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

Differentiator::UserEntry *
Differentiator::findUser(const FunctionDecl *FD, Annotation::Kind K,
                         const std::vector<bool> &Active) {
  for (auto &E : Users)
    if (E->K == K && E->Active == Active && isEntryFor(FD, *E))
      return E.get();
  return nullptr;
}

bool Differentiator::isEntryFor(const FunctionDecl *FD, const UserEntry &E) {
  return llvm::is_contained(FD->redecls(), E.Annotated);
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

/// Instantiates the class template specializations T names (through
/// references, pointers, arrays and standard containers): a parameter
/// `const Layer<double> &` does not make Layer<double> complete, and what
/// an incomplete class carries cannot be told.
static void completeClasses(Sema &S, SourceLocation Loc, QualType T,
                            unsigned Depth = 0) {
  if (Depth > 8 || T.isNull() || T->isDependentType())
    return;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    return completeClasses(S, Loc, T->getPointeeType(), Depth + 1);
  if (const ArrayType *AT = S.getASTContext().getAsArrayType(T))
    return completeClasses(S, Loc, AT->getElementType(), Depth + 1);
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
  if (!Spec)
    return;
  if (!Spec->hasDefinition())
    S.isCompleteType(Loc, T); // instantiates it; no error if it cannot be
  // std::vector<Layer<double>>: the element's class too.
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
    if (Arg.getKind() == TemplateArgument::Type)
      completeClasses(S, Loc, Arg.getAsType(), Depth + 1);
}

bool Differentiator::checkAnnotation(FunctionDecl *FD, const Annotation &A,
                                     std::vector<bool> &Active,
                                     std::vector<VarDecl *> &Globals) {
  for (const ParmVarDecl *P : FD->parameters())
    completeClasses(S, P->getLocation(), P->getType());
  completeClasses(S, FD->getLocation(), FD->getReturnType());
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
  // A Hessian's or a Jacobian's flattened inputs are the parameters: the
  // object's members are constants there.
  if (Instance && WithThis && A.K != Annotation::Kind::Grad &&
      A.K != Annotation::Kind::Jvp)
    return Fail("[[" + A.Spelling +
                "]] naming \"this\" is not supported yet; name parameters "
                "only (the object's members are then constants), or name "
                "\"this\" in [[fluxion::grad]] or [[fluxion::jvp]], which "
                "take it");
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
    // An Eigen Map or Ref of non-const writes to what it views.
    if (std::optional<EigenShape> S = eigenShape(T);
        S && S->View && S->Writable)
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
                    "' cannot be differentiated yet (" + Why + "); " +
                    (StringRef(Why).contains("Eigen views")
                         ? "hold an Eigen Matrix or Array in the class, or "
                           "pass the view as a parameter of its own"
                     : StringRef(Why).contains("container")
                         ? "pass each container of real numbers as a "
                           "parameter of its own ('const std::vector<double> "
                           "&w')"
                         : "pass its real numbers as a pointer or array "
                           "parameter of their own"));
    }
    return Fail("it has no floating-point parameter to differentiate with "
                "respect to");
  }
  QualType R = FD->getReturnType();
  if (!R->isReferenceType() && !R->isDependentType() &&
      (eigenShape(R) || !containerElement(R).isNull()) &&
      !returnsFixedContainer(R) && !returnsDynamicEigen(R))
    return Fail("it returns '" + R.getAsString() + "', " +
                (eigenShape(R) && eigenShape(R)->View
                     ? "a view of memory it does not own"
                 : containerFixedSize(R) ? "whose elements are not real numbers"
                                         : "whose size is not known from its "
                                           "type") +
                "; an annotated function returns a container only of fixed "
                "size and of real numbers ('Eigen::Vector3d', "
                "'std::array<double, 3>') or an Eigen object of real numbers "
                "('Eigen::VectorXd'); write the result into an output "
                "parameter ('" +
                (eigenShape(R) && eigenShape(R)->View
                     ? std::string("Eigen::VectorXd")
                     : R.getUnqualifiedType().getAsString()) +
                " &out')");
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
  UserEntry *Prev = findUser(FD, A.K);
  // A call-site form shares the functions of an annotation (or another
  // form) for the same parameters; for others it gets functions of its own
  // (derivedName keeps their names apart).
  if (Prev && A.CallSite) {
    std::vector<bool> Active;
    std::vector<VarDecl *> Globals;
    if (!checkAnnotation(FD, A, Active, Globals))
      return;
    Prev = findUser(FD, A.K, Active);
    if (Prev) {
      if (!A.ForJacobian)
        Prev->OnlyForJacobian = false;
      return;
    }
  }
  if (Prev) {
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
  // A redeclaration of an annotated function (not linked to it yet while
  // its attributes are handled): the derivatives exist.
  LookupResult Earlier(S, FD->getDeclName(), FD->getLocation(),
                       Sema::LookupOrdinaryName);
  if (!A.CallSite)
    S.LookupQualifiedName(Earlier, FD->getDeclContext());
  for (NamedDecl *ND : Earlier)
    if (auto *P = dyn_cast<FunctionDecl>(ND))
      if (P != FD && Ctx.hasSameType(P->getType(), FD->getType()) &&
          findUser(P, A.K))
        return;
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

FunctionDecl *Differentiator::callSiteDerivative(FunctionDecl *FD,
                                                 const Annotation &A,
                                                 EntryKind Which) {
  unsigned Errors = Diags.engine().getNumErrors();
  // An instance of an annotated template has the template's derivatives.
  FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  auto T = Pattern ? Templates.find(
                         Pattern->getDescribedFunctionTemplate()
                             ? (const Decl *)Pattern->getDescribedFunctionTemplate()
                                   ->getCanonicalDecl()
                             : Pattern->getCanonicalDecl())
                   : Templates.end();
  if (T != Templates.end())
    differentiateInstance(T->second, FD, A.Loc);
  Annotation Form = A;
  Form.CallSite = true;
  annotate(FD, Form);
  std::vector<bool> Active;
  std::vector<VarDecl *> Globals;
  if (Diags.engine().getNumErrors() != Errors ||
      !checkAnnotation(FD, Form, Active, Globals))
    return nullptr;
  UserEntry *E = findUser(FD, A.K, Active);
  if (!E)
    return nullptr;
  FunctionDecl *Result = nullptr;
  const char *Instead = nullptr;
  switch (Which) {
  case EntryKind::Grad:
    Result = E->Grad;
    Instead = "it does not return a scalar: use fluxion::vjp, whose seed "
              "weighs the result";
    break;
  case EntryKind::VJP:
    Result = E->VJP;
    break;
  case EntryKind::JVP:
    Result = E->JVP;
    break;
  case EntryKind::HVP:
    Result = E->HVP;
    break;
  case EntryKind::Hessian:
    Result = E->Hessian;
    Instead = "a dense Hessian needs every differentiated parameter to be a "
              "scalar or a fixed-size array; use fluxion::hvp";
    break;
  case EntryKind::Jacobian:
    Result = E->Jacobian;
    break;
  }
  if (!Result) {
    Diags.report(A.Loc, Diag::NotDifferentiable)
        << FD << (Instead ? Instead : "this derivative is not generated for it");
    return nullptr;
  }
  // What the program uses is defined; a Jacobian's sweep is needed now.
  E->OnlyForJacobian = false;
  if (const FunctionDecl *Def = FD->getDefinition())
    defineFor(const_cast<FunctionDecl *>(Def));
  return Result;
}

} // namespace fluxion
