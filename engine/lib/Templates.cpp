//===- Templates.cpp - Derivatives of annotated function templates --------===//
//
// An annotation on a function template declares derivative templates with
// the same template parameters (CONTRACT.md, "Templates"): `template <class
// T> T sq(T)` gets `template <class T> T sq_grad(T, T *)`, so that both
// `sq_grad<float>(x, &d)` and `sq_grad(x, &d)` resolve through Clang's own
// deduction. The derivative templates have no body of their own. At the end
// of the translation unit every instance the program uses is differentiated
// as an ordinary function (`sq<float>`, whose activity and types are then
// known), and the functions that differentiation declares are the derivative
// templates' specializations themselves: each keeps its template's linkage
// (one definition per instance, merged across translation units like any
// implicit instantiation).
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Differentiator.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/Template.h"

using namespace clang;

namespace fluxion {

bool Differentiator::isGenerated(const Decl *D) const {
  if (const auto *FD = dyn_cast<FunctionDecl>(D)) {
    if (const FunctionTemplateDecl *T = FD->getPrimaryTemplate())
      return Generated.count(T); // an instance of a derivative template
    if (const FunctionDecl *From = FD->getInstantiatedFromMemberFunction())
      return Generated.count(From); // a member of a class template's instance
  }
  return Generated.count(D);
}

bool Differentiator::isTemplatePattern(const FunctionDecl *FD) {
  if (FD->getDescribedFunctionTemplate())
    return true;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return MD && MD->getParent()->isDependentContext();
}

/// The member of Class instantiated from Pattern, if the class has it.
static CXXMethodDecl *instantiatedMember(const CXXRecordDecl *Class,
                                         const FunctionDecl *Pattern) {
  for (CXXMethodDecl *M : Class->methods())
    if (const FunctionDecl *From = M->getInstantiatedFromMemberFunction())
      if (From->getCanonicalDecl() == Pattern->getCanonicalDecl())
        return M;
  return nullptr;
}

FunctionDecl *Differentiator::declareTemplate(
    FunctionDecl *Like, StringRef Name, QualType FnTy,
    llvm::ArrayRef<std::pair<std::string, QualType>> Params) {
  FunctionTemplateDecl *Primal = Like->getDescribedFunctionTemplate();
  SourceLocation Loc = Like->getLocation();
  DeclContext *DC = Like->getDeclContext();
  DeclarationName DN(&Ctx.Idents.get(Name));
  TypeSourceInfo *TSI = Ctx.getTrivialTypeSourceInfo(FnTy, Loc);
  auto *FD = FunctionDecl::Create(
      Ctx, DC, Loc, Loc, DN, FnTy, TSI,
      Like->getStorageClass() == SC_Static ? SC_Static : SC_None,
      /*UsesFPIntrin=*/false, Like->isInlineSpecified(),
      /*hasWrittenPrototype=*/true);
  llvm::SmallVector<ParmVarDecl *, 8> Parms;
  for (const auto &P : Params) {
    auto *PD = ParmVarDecl::Create(Ctx, FD, Loc, Loc, &Ctx.Idents.get(P.first),
                                   P.second,
                                   Ctx.getTrivialTypeSourceInfo(P.second, Loc),
                                   SC_None, nullptr);
    PD->setScopeInfo(0, Parms.size());
    Parms.push_back(PD);
  }
  FD->setParams(Parms);
  // Instantiating a declaration substitutes into its written type, whose
  // parameters must be the declaration's own.
  if (auto FTL = TSI->getTypeLoc().getAs<FunctionProtoTypeLoc>())
    for (unsigned I = 0; I < Parms.size(); ++I)
      FTL.setParam(I, Parms[I]);
  FD->setLexicalDeclContext(Like->getLexicalDeclContext());
  // The primal's template parameters are the derivative's: the dependent
  // types in FnTy refer to them by depth and index.
  auto *FTD = FunctionTemplateDecl::Create(Ctx, DC, Loc, DN,
                                           Primal->getTemplateParameters(), FD);
  FD->setDescribedFunctionTemplate(FTD);
  FTD->setLexicalDeclContext(Primal->getLexicalDeclContext());
  if (Scope *Sc = S.getScopeForContext(DC))
    S.PushOnScopeChains(FTD, Sc, /*AddToContext=*/true);
  else
    DC->addDecl(FTD);
  Generated.insert(FD);
  Generated.insert(FTD);
  Templates[Primal->getCanonicalDecl()].Derivatives.push_back(FTD);
  if (OnDeclared)
    OnDeclared(FD, Like);
  return FD;
}

FunctionDecl *Differentiator::specializationFor(FunctionDecl *Like,
                                                StringRef Name,
                                                QualType FnTy) {
  FunctionTemplateDecl *Primal = Like->getPrimaryTemplate();
  FunctionDecl *FromMember = Like->getInstantiatedFromMemberFunction();
  if (!Primal && !FromMember)
    return nullptr;
  auto It = Templates.find(Primal ? (const Decl *)Primal->getCanonicalDecl()
                                  : FromMember->getCanonicalDecl());
  if (It == Templates.end())
    return nullptr;
  FunctionDecl *Spec = nullptr;
  if (Primal) {
    FunctionTemplateDecl *Derivative = nullptr;
    for (FunctionTemplateDecl *D : It->second.Derivatives)
      if (D->getName() == Name)
        Derivative = D;
    if (!Derivative)
      return nullptr;
    const TemplateArgumentList *Args = Like->getTemplateSpecializationArgs();
    void *Pos = nullptr;
    Spec = Derivative->findSpecialization(Args->asArray(), Pos);
    if (!Spec)
      Spec = S.InstantiateFunctionDeclaration(Derivative, Args,
                                              Like->getLocation());
  } else {
    for (CXXMethodDecl *D : It->second.MemberDerivatives)
      if (D->getName() == Name)
        Spec = instantiatedMember(cast<CXXMethodDecl>(Like)->getParent(), D);
  }
  if (!Spec)
    return nullptr;
  if (!Ctx.hasSameType(Spec->getType(), FnTy)) {
    // The template's signature, written for every T, is not this
    // instance's (an object passed by value, whose tangent is a pointer):
    // refuse rather than define a function of another type.
    PrintingPolicy Policy = Ctx.getPrintingPolicy();
    Policy.SuppressTagKeyword = true;
    Diags.report(It->second.Annotations.front().Loc, Diag::NotDifferentiable)
        << Like
        << StringRef("for these template arguments '" + Name.str() + "' would be '" +
            FnTy.getAsString(Policy) +
            "', but the derivative template declares '" +
            Spec->getType().getAsString(Policy) +
            "'; annotate a non-template function for this case");
    return nullptr;
  }
  Generated.insert(Spec);
  if (OnDeclared)
    OnDeclared(Spec, Like);
  return Spec;
}

void Differentiator::differentiateInstance(TemplateEntry &T,
                                           FunctionDecl *Instance,
                                           SourceLocation Use) {
  if (!InstancesDone.insert(Instance->getCanonicalDecl()).second)
    return;
  if (!Instance->isDefined())
    S.InstantiateFunctionDefinition(Use, Instance, /*Recursive=*/true,
                                    /*DefinitionRequired=*/true);
  unsigned Errors = Diags.engine().getNumErrors();
  for (const Annotation &A : T.Annotations)
    annotate(Instance, A);
  // What the program calls must be what the instance's annotation
  // generates (an f_hessian needs fixed sizes, known only now).
  auto CheckGenerated = [&](FunctionDecl *Called, StringRef Name) {
    if (Called && (Called->isUsed() || Called->isReferenced()) &&
        !Generated.count(Called) &&
        Diags.engine().getNumErrors() == Errors)
      Diags.report(Called->getPointOfInstantiation(), Diag::NotDifferentiable)
          << Instance
          << StringRef("'" + Name.str() +
                       "' is not generated for these template arguments");
  };
  if (const TemplateArgumentList *Args =
          Instance->getTemplateSpecializationArgs())
    for (FunctionTemplateDecl *D : T.Derivatives) {
      void *Pos = nullptr;
      CheckGenerated(D->findSpecialization(Args->asArray(), Pos),
                     D->getName());
    }
  for (CXXMethodDecl *D : T.MemberDerivatives)
    CheckGenerated(
        instantiatedMember(cast<CXXMethodDecl>(Instance)->getParent(), D),
        D->getName());
  if (Diags.engine().getNumErrors() != Errors)
    Diags.report(Use, Diag::NoteCustomUsedFor) << Instance;
}

static bool isCalled(const FunctionDecl *FD) {
  return FD && (FD->isUsed() || FD->isReferenced());
}

bool Differentiator::instantiateDerivatives() {
  size_t Before = InstancesDone.size();
  for (auto &Entry : Templates) {
    TemplateEntry &T = Entry.second;
    if (T.Primal) {
      for (FunctionTemplateDecl *Derivative : T.Derivatives) {
        llvm::SmallVector<FunctionDecl *, 4> Specs(
            Derivative->specializations().begin(),
            Derivative->specializations().end());
        for (FunctionDecl *Spec : Specs) {
          if (!isCalled(Spec))
            continue;
          const TemplateArgumentList *Args =
              Spec->getTemplateSpecializationArgs();
          SourceLocation Use = Spec->getPointOfInstantiation();
          if (Use.isInvalid())
            Use = Spec->getLocation();
          void *Pos = nullptr;
          FunctionDecl *Instance =
              T.Primal->findSpecialization(Args->asArray(), Pos);
          if (!Instance)
            Instance = S.InstantiateFunctionDeclaration(T.Primal, Args, Use);
          if (Instance)
            differentiateInstance(T, Instance, Use);
        }
      }
      continue;
    }
    // A member of a class template: each instance of the class whose
    // derivative members the program calls.
    if (!T.PrimalMember)
      continue;
    ClassTemplateDecl *Class =
        T.PrimalMember->getParent()->getDescribedClassTemplate();
    if (!Class)
      continue;
    llvm::SmallVector<ClassTemplateSpecializationDecl *, 4> Instances(
        Class->specializations().begin(), Class->specializations().end());
    for (ClassTemplateSpecializationDecl *CI : Instances) {
      if (!CI->hasDefinition())
        continue;
      for (CXXMethodDecl *D : T.MemberDerivatives) {
        CXXMethodDecl *Called = instantiatedMember(CI, D);
        if (!isCalled(Called))
          continue;
        CXXMethodDecl *Instance = instantiatedMember(CI, T.PrimalMember);
        SourceLocation Use = Called->getPointOfInstantiation();
        if (Use.isInvalid())
          Use = Called->getLocation();
        if (Instance)
          differentiateInstance(T, Instance, Use);
      }
    }
  }
  return InstancesDone.size() != Before;
}

} // namespace fluxion
