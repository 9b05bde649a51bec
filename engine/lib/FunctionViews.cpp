//===- FunctionViews.cpp - Methods and object results as plain functions --===//
#include "fluxion/engine/FunctionViews.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>

using namespace clang;

namespace fluxion {
namespace {
struct Registry {
  llvm::DenseMap<const FunctionDecl *, FunctionDecl *> ViewOf;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<FunctionView>> Info;
};

Registry &registry() {
  static Registry R;
  return R;
}

const char *operatorWord(OverloadedOperatorKind K) {
  switch (K) {
  case OO_Plus: return "plus";
  case OO_Minus: return "minus";
  case OO_Star: return "times";
  case OO_Slash: return "divide";
  case OO_PlusEqual: return "plus_assign";
  case OO_MinusEqual: return "minus_assign";
  case OO_StarEqual: return "times_assign";
  case OO_SlashEqual: return "divide_assign";
  case OO_Equal: return "assign";
  case OO_Call: return "call";
  case OO_Subscript: return "subscript";
  case OO_EqualEqual: return "equal";
  case OO_ExclaimEqual: return "not_equal";
  case OO_Less: return "less";
  case OO_Greater: return "greater";
  case OO_LessEqual: return "less_equal";
  case OO_GreaterEqual: return "greater_equal";
  default: return "op";
  }
}

/// FD's body, if it has one by now.
Stmt *bodyOf(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  return FD->hasBody(Def) ? Def->getBody() : nullptr;
}

bool isInstanceMethod(const FunctionDecl *FD) {
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  return M && !M->isStatic();
}
} // namespace

MemberCall memberCall(const CallExpr *E) {
  MemberCall MC;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    MC.Method = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    if (MC.Method) {
      MC.Object = Op->getArg(0);
      MC.FirstArg = 1;
    }
  } else if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
    MC.Method = Call->getMethodDecl();
    MC.Object = Call->getImplicitObjectArgument();
    if (const auto *ME = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParens())) {
      MC.Arrow = ME->isArrow();
      MC.Qualified = ME->hasQualifier();
    }
  }
  if (MC.Method && MC.Method->isVirtual() && !MC.Qualified) {
    const CXXMethodDecl *Final =
        MC.Method->getDevirtualizedMethod(MC.Object, /*IsAppleKext=*/false);
    MC.Dynamic = !Final;
    if (Final)
      MC.Method = Final;
  }
  return MC;
}

std::string viewIdentifier(const FunctionDecl *FD) {
  if (isa<CXXConstructorDecl>(FD))
    return "construct";
  if (FD->getIdentifier())
    return FD->getName().str();
  return std::string("operator_") + operatorWord(FD->getOverloadedOperator());
}

bool returnsFixedContainer(QualType Ret) {
  if (Ret->isReferenceType() || Ret->isDependentType())
    return false;
  if (std::optional<EigenShape> S = eigenShape(Ret))
    return !S->View && containerFixedSize(Ret) &&
           S->Scalar->isRealFloatingType();
  QualType Elem = containerElement(Ret);
  return !Elem.isNull() && Elem->isRealFloatingType() &&
         containerFixedSize(Ret);
}

bool returnsDynamicEigen(QualType Ret) {
  if (Ret->isReferenceType() || Ret->isDependentType())
    return false;
  std::optional<EigenShape> S = eigenShape(Ret);
  return S && !S->View && !containerFixedSize(Ret) &&
         S->Scalar->isRealFloatingType();
}

bool needsView(const FunctionDecl *FD) {
  // Operators get a view for its name (operator_plus_fwd, not operator+_fwd).
  // An Eigen object of dynamic size is not returned through a view: the
  // caller could not size the object the view writes.
  QualType Ret = FD->getReturnType();
  return isInstanceMethod(FD) || FD->isOverloadedOperator() ||
         (!Ret->isReferenceType() && isDifferentiableRecord(Ret) &&
          !eigenShape(Ret)) ||
         returnsFixedContainer(Ret);
}

FunctionDecl *viewOf(const FunctionDecl *FD) {
  FD = FD->getCanonicalDecl();
  Registry &R = registry();
  if (FunctionDecl *View = R.ViewOf.lookup(FD))
    return View;
  ASTContext &Ctx = FD->getASTContext();
  auto Info = std::make_unique<FunctionView>();
  Info->Of = FD;
  llvm::SmallVector<std::pair<QualType, IdentifierInfo *>, 8> Params;
  if (const auto *M = dyn_cast<CXXMethodDecl>(FD); M && !M->isStatic()) {
    Info->Self = true;
    Params.push_back({M->getThisType(), &Ctx.Idents.get("self")});
  }
  QualType Ret = FD->getReturnType();
  if (returnsFixedContainer(Ret) || returnsDynamicEigen(Ret)) {
    // A container is storage: an output reference parameter, sized by its
    // type or by the `return`.
    Info->Result = true;
    Params.push_back({Ctx.getLValueReferenceType(Ret.getUnqualifiedType()),
                      &Ctx.Idents.get("result")});
    Ret = Ctx.VoidTy;
  } else if (!Ret->isReferenceType() && isDifferentiableRecord(Ret) &&
             !eigenShape(Ret)) {
    Info->Result = true;
    Params.push_back({Ctx.getPointerType(Ret.getUnqualifiedType()),
                      &Ctx.Idents.get("result")});
    Ret = Ctx.VoidTy;
  } else if (Ret->isReferenceType() && !isa<CXXMethodDecl>(FD) &&
             !FD->isOverloadedOperator() &&
             Ret->getPointeeType()->isArithmeticType()) {
    // A free function returning a reference to a number (std::max), viewed
    // only where the lowering uses its result by value: the view returns
    // the number.
    Ret = Ret->getPointeeType().getUnqualifiedType();
  } else if (Ret->isReferenceType()) {
    // Only ever discarded (the lowering refuses other uses).
    Info->DropsReference = true;
    Ret = Ctx.VoidTy;
  }
  for (const ParmVarDecl *P : FD->parameters())
    Params.push_back({P->getType(), P->getIdentifier()});
  llvm::SmallVector<QualType, 8> Types;
  for (const auto &P : Params)
    Types.push_back(P.first);
  FunctionProtoType::ExtProtoInfo EPI;
  QualType FnTy = Ctx.getFunctionType(Ret, Types, EPI);
  SourceLocation Loc = FD->getLocation();
  // A member's view lives in its class (its derivatives are static members
  // there, which may read private members); a free function's beside it.
  auto *DC = const_cast<DeclContext *>(FD->getDeclContext());
  auto *View = FunctionDecl::Create(
      Ctx, DC, Loc, Loc, DeclarationName(&Ctx.Idents.get(viewIdentifier(FD))),
      FnTy, Ctx.getTrivialTypeSourceInfo(FnTy, Loc),
      isa<CXXMethodDecl>(FD) ? SC_Static : FD->getStorageClass(),
      /*UsesFPIntrin=*/false, /*isInlineSpecified=*/FD->isInlined(),
      /*hasWrittenPrototype=*/true);
  llvm::SmallVector<ParmVarDecl *, 8> Decls;
  for (unsigned I = 0; I < Params.size(); ++I) {
    auto *P = ParmVarDecl::Create(
        Ctx, View, Loc, Loc, Params[I].second, Params[I].first,
        Ctx.getTrivialTypeSourceInfo(Params[I].first, Loc), SC_None, nullptr);
    P->setScopeInfo(0, I);
    Decls.push_back(P);
  }
  View->setParams(Decls);
  View->setLexicalDeclContext(
      const_cast<DeclContext *>(FD->getLexicalDeclContext()));
  if (Stmt *Body = bodyOf(FD))
    View->setBody(Body);
  R.ViewOf[FD] = View;
  R.Info[View] = std::move(Info);
  return View;
}

const FunctionView *asView(const FunctionDecl *View) {
  if (!View)
    return nullptr;
  auto It = registry().Info.find(View);
  return It == registry().Info.end() ? nullptr : It->second.get();
}

void updateViewBodies() {
  for (auto &[FD, View] : registry().ViewOf)
    if (!View->hasBody())
      if (Stmt *Body = bodyOf(FD))
        View->setBody(Body);
}

void forgetViews() {
  registry().ViewOf.clear();
  registry().Info.clear();
}

} // namespace fluxion
