//===- EigenLowering.cpp - Helpers shared by the Eigen lowering -----------===//
//
// What the Eigen lowering files share (EigenLowering.h): how Eigen types
// and the runtime's functions are found, and how the storage of an Eigen
// object held by another object is read.
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;

bool isArrayExpression(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  bool Found = RD->getName() == "ArrayBase";
  RD->forallBases([&](const CXXRecordDecl *B) {
    Found |= B->getIdentifier() && B->getName() == "ArrayBase";
    return true;
  });
  return Found;
}

FunctionDecl *stdMathFunction(ASTContext &Ctx, StringRef Name, QualType T,
                              unsigned Arity) {
  auto Matches = [&](NamedDecl *ND) -> FunctionDecl * {
    if (auto *USD = dyn_cast<UsingShadowDecl>(ND))
      ND = USD->getTargetDecl();
    auto *FD = dyn_cast<FunctionDecl>(ND);
    if (!FD || FD->getNumParams() != Arity)
      return nullptr;
    for (const ParmVarDecl *P : FD->parameters())
      if (!Ctx.hasSameUnqualifiedType(P->getType(), T))
        return nullptr;
    return FD;
  };
  IdentifierInfo &Std = Ctx.Idents.get("std");
  IdentifierInfo &Fn = Ctx.Idents.get(Name);
  for (NamedDecl *NS : Ctx.getTranslationUnitDecl()->lookup(&Std))
    if (auto *N = dyn_cast<NamespaceDecl>(NS))
      for (NamedDecl *ND : N->lookup(&Fn))
        if (FunctionDecl *FD = Matches(ND))
          return FD;
  for (NamedDecl *ND : Ctx.getTranslationUnitDecl()->lookup(&Fn))
    if (FunctionDecl *FD = Matches(ND))
      return FD;
  return nullptr;
}

QualType plainObjectType(ASTContext &Ctx, QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return {};
  IdentifierInfo &Id = Ctx.Idents.get("PlainObject");
  QualType Found;
  auto Look = [&](const CXXRecordDecl *C) {
    for (NamedDecl *ND : C->lookup(&Id))
      if (const auto *TD = dyn_cast<TypedefNameDecl>(ND);
          TD && Found.isNull() && !TD->getUnderlyingType()->isDependentType())
        Found = TD->getUnderlyingType().getCanonicalType();
  };
  Look(RD);
  RD->forallBases([&](const CXXRecordDecl *B) {
    if (Found.isNull())
      Look(B);
    return true;
  });
  return Found;
}

bool eigenNamespaceType(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && isInEigen(RD);
}

const clang::Expr *bare(const clang::Expr *E) {
  while (true) {
    const clang::Expr *Next = E->IgnoreImplicit()->IgnoreParens();
    // A copy, or an evaluation into a plain temporary: the same values
    // (Eigen's converting constructors take a defaulted second argument).
    if (const auto *CE = dyn_cast<CXXConstructExpr>(Next);
        CE && CE->getNumArgs() >= 1 &&
        CE->getArg(0)->getType()->isRecordType() &&
        llvm::all_of(llvm::drop_begin(CE->arguments()),
                     [](const clang::Expr *A) {
                       return isa<CXXDefaultArgExpr>(A);
                     }))
      Next = CE->getArg(0)->IgnoreImplicit()->IgnoreParens();
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(Next))
      Next = FC->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
}

unsigned blockViewArity(StringRef Name) {
  return llvm::StringSwitch<unsigned>(Name)
      .Cases("col", "row", "head", "tail", 1)
      .Cases("topRows", "bottomRows", "leftCols", "rightCols", 1)
      .Cases("segment", "middleRows", "middleCols", 2)
      .Cases("topLeftCorner", "topRightCorner", "bottomLeftCorner",
             "bottomRightCorner", 2)
      .Case("block", 4)
      .Default(0);
}

bool blockViewIntegers(const CXXMemberCallExpr *MC, unsigned Arity,
                       llvm::SmallVectorImpl<const clang::Expr *> &Args,
                       llvm::SmallVectorImpl<int64_t> &Fixed) {
  for (const clang::Expr *A : MC->arguments())
    Args.push_back(A);
  const CXXMethodDecl *M = MC->getMethodDecl();
  if (Args.size() < Arity && M)
    if (const TemplateArgumentList *TA = M->getTemplateSpecializationArgs())
      for (const TemplateArgument &A : TA->asArray())
        if (A.getKind() == TemplateArgument::Integral &&
            Args.size() + Fixed.size() < Arity)
          Fixed.push_back(A.getAsIntegral().getExtValue());
  return Args.size() + Fixed.size() == Arity;
}

bool isStopGradient(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier() || FD->getName() != "stop_gradient")
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(FD->getDeclContext());
  return NS && NS->getName() == "fluxion" &&
         NS->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

DeclContextLookupResult runtimeLookup(ASTContext &Ctx, StringRef Name) {
  for (NamedDecl *NS :
       Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get("fluxion")))
    if (auto *N = dyn_cast<NamespaceDecl>(NS))
      if (DeclContextLookupResult R = N->lookup(&Ctx.Idents.get(Name));
          !R.empty())
        return R;
  return {};
}

FunctionDecl *runtimeFunction(ASTContext &Ctx, StringRef Name) {
  for (NamedDecl *ND : runtimeLookup(Ctx, Name))
    if (auto *FD = dyn_cast<FunctionDecl>(ND))
      return FD;
  return nullptr;
}

ExprP heldEigenObject(const ExprP &Storage) {
  if (Storage->K != ir::ExprKind::AddrOf ||
      Storage->Ops[0]->K != ir::ExprKind::Index ||
      !Storage->Ops[0]->Ops[1]->isZero())
    return nullptr;
  const ExprP &Place = Storage->Ops[0]->Ops[0];
  return Place->K != ir::ExprKind::VarRef && eigenShape(Place->Ty) ? Place
                                                                    : nullptr;
}

ExprP eigenStorageElement(const ExprP &Storage, ExprP Idx, QualType Elem) {
  if (ExprP Held = heldEigenObject(Storage))
    return ir::index(Held, std::move(Idx), Elem);
  return ir::index(Storage, std::move(Idx), Elem);
}

QualType eigenStorageType(const ExprP &Storage) {
  if (ExprP Held = heldEigenObject(Storage))
    return Held->Ty;
  return Storage->V->Origin->getType().getNonReferenceType();
}

std::string eigenStorageName(const ExprP &Storage) {
  if (heldEigenObject(Storage))
    if (const auto *Field = heldEigenObject(Storage)->Field)
      return Field->getNameAsString();
  return Storage->rootVar()->Name;
}
} // namespace fluxion
