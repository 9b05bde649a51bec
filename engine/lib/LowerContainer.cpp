//===- LowerContainer.cpp - std::vector and std::array as storage ----------===//
//
// A container of reals is storage plus a size. A parameter of type
// `const std::vector<double> &` (or `std::vector<double> &`, a
// `std::array<double, N>`, by value when only read) is lowered as a
// variable of type `const double *` standing for its elements, so that
// every analysis and builder sees the pointer parameter it already handles:
//
//   x[i], x.at(i)          x[i]
//   x.front(), x.back()    x[0], x[x.size() - 1]
//   x.data()               x (the pointer)
//   x.size(), x.empty()    Size(x) (N for a std::array), Size(x) == 0
//   g(x) (g takes the container)    g(x): the callee's lowering does the same
//
// The emitter spells the variable as the container it stands for (`x[i]`,
// `x.data()`, `(*d_x)[i]` for its adjoint, declared `std::vector<double> *`
// by the contract). Calls that change a container's size (push_back,
// resize), iterators outside a range-based for, and containers that are not
// variables (members, elements of other containers) are located errors.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

bool isContainerStorageVar(const Var *V) {
  return V && V->Origin && V->Type->isPointerType() &&
         !containerElement(V->Origin->getType()).isNull();
}

/// The container a member call or subscript is applied to, if it is one.
static const clang::Expr *containerObject(const CallExpr *E,
                                          const CXXMethodDecl *&Method) {
  Method = nullptr;
  const clang::Expr *Object = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    Object = MC->getImplicitObjectArgument();
    Method = MC->getMethodDecl();
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    Method = dyn_cast_or_null<CXXMethodDecl>(OC->getDirectCallee());
    if (Method && OC->getNumArgs() > 0)
      Object = OC->getArg(0);
  }
  if (!Object || !Method)
    return nullptr;
  QualType T = Object->getType();
  if (T->isPointerType())
    T = T->getPointeeType();
  return containerElement(T).isNull() ? nullptr : Object;
}

ExprP FunctionLowering::lowerContainerArg(const clang::Expr *A, QualType ParamTy,
                                          ir::Block &Pre) {
  // A copy made for a by-value parameter reads its source in place: the
  // callee does not write it (its own lowering checks).
  const clang::Expr *Src = A->IgnoreImplicit();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Src);
      CE && CE->getNumArgs() == 1 && CE->getConstructor()->isCopyConstructor())
    Src = CE->getArg(0)->IgnoreImplicit();
  ExprP L = isa<DeclRefExpr>(Src->IgnoreParens()) ? lowerExpr(Src, Pre)
                                                   : nullptr;
  if (L && L->K == ir::ExprKind::VarRef && isContainerStorageVar(L->V) &&
      Ctx.hasSameUnqualifiedType(L->V->Origin->getType().getNonReferenceType(),
                                 ParamTy.getNonReferenceType()))
    return L;
  if (!L && usesPoisoned(A))
    return nullptr;
  Diags.report(A->getExprLoc(), Diag::NotSupported)
      << ("passing a '" +
          ParamTy.getNonReferenceType().getUnqualifiedType().getAsString() +
          "' that is not a container parameter of the function (a member, "
          "an element of another container, a local or a temporary)")
      << "pass a container parameter of the calling function";
  return nullptr;
}

bool FunctionLowering::lowerContainerCall(const CallExpr *E, ir::Block &Pre,
                                          ExprP &Out) {
  Out = nullptr;
  const CXXMethodDecl *Method = nullptr;
  const clang::Expr *Object = containerObject(E, Method);
  if (!Object)
    return false;
  SourceLocation Loc = E->getExprLoc();
  std::string Name = Method->getNameAsString();
  if (Method->getOverloadedOperator() == OO_Subscript)
    Name = "[]";
  std::string TypeName =
      Object->getType().getNonReferenceType().getUnqualifiedType().getAsString();

  // The container must be a variable the function sees as storage.
  ExprP Storage;
  const clang::Expr *Inner = Object->IgnoreParenImpCasts();
  if (isa<DeclRefExpr>(Inner)) {
    if (Object->getType()->isPointerType()) {
      Diags.report(Loc, Diag::NotSupported)
          << ("a pointer to a container ('" + TypeName + "')")
          << "pass the container by reference";
      return true;
    }
    Storage = lowerExpr(Inner, Pre);
    if (!Storage)
      return true;
  }
  if (!Storage || Storage->K != ir::ExprKind::VarRef ||
      !isContainerStorageVar(Storage->V)) {
    Diags.report(Loc, Diag::NotSupported)
        << ("a '" + TypeName +
            "' that is not a parameter of the function (a member, an element "
            "of another container, a local or a temporary)")
        << "pass it to the function as a parameter of its own "
           "('const " + TypeName + " &')";
    return true;
  }
  Var *V = Storage->V;
  QualType Elem = V->Type->getPointeeType();
  auto SizeExpr = [&]() -> ExprP {
    QualType SizeTy = Ctx.getSizeType();
    if (std::optional<uint64_t> N = containerFixedSize(V->Origin->getType()))
      return ir::intConst(SizeTy, int64_t(*N));
    return ir::sizeOf(Storage, SizeTy);
  };
  auto Element = [&](ExprP Idx) {
    ExprP R = ir::index(Storage, Idx, Elem);
    std::const_pointer_cast<ir::Expr>(R)->Loc = Loc;
    return R;
  };
  unsigned NArgs = E->getNumArgs() - (isa<CXXOperatorCallExpr>(E) ? 1 : 0);
  const clang::Expr *Arg0 =
      NArgs ? E->getArg(isa<CXXOperatorCallExpr>(E) ? 1 : 0) : nullptr;
  if ((Name == "[]" || Name == "at") && Arg0) {
    // The conversion to size_type is implicit in x[i], as for an array.
    const clang::Expr *I = Arg0;
    while (const auto *ICE = dyn_cast<ImplicitCastExpr>(I->IgnoreParens())) {
      if (ICE->getCastKind() != CK_IntegralCast || !ICE->getSubExpr()->getType()->isIntegerType())
        break;
      I = ICE->getSubExpr();
    }
    ExprP Idx = lowerExpr(I, Pre);
    if (Idx)
      Out = Element(Idx);
    return true;
  }
  if (Name == "front" && !NArgs) {
    Out = Element(ir::intConst(Ctx.IntTy, 0));
    return true;
  }
  if (Name == "back" && !NArgs) {
    QualType SizeTy = Ctx.getSizeType();
    Out = Element(ir::binary(BO_Sub, SizeExpr(), ir::intConst(SizeTy, 1),
                             SizeTy));
    return true;
  }
  if (Name == "data" && !NArgs) {
    Out = Storage;
    return true;
  }
  if ((Name == "size" || Name == "max_size") && !NArgs) {
    Out = ir::cast(E->getType(), SizeExpr());
    return true;
  }
  if (Name == "empty" && !NArgs) {
    Out = ir::binary(BO_EQ, SizeExpr(), ir::intConst(Ctx.getSizeType(), 0),
                     Ctx.BoolTy);
    return true;
  }
  bool Iterator = Name == "begin" || Name == "end" || Name == "cbegin" ||
                  Name == "cend" || Name == "rbegin" || Name == "rend";
  if (Iterator)
    Diags.report(Loc, Diag::NotSupported)
        << ("an iterator of a '" + TypeName + "' ('" + Name + "()')")
        << "loop over the elements with a range-based for or an index loop";
  else if (!Method->isConst())
    Diags.report(Loc, Diag::NotSupported)
        << ("calling '" + Name + "' on '" + V->Name + "' (a '" + TypeName +
            "' parameter: a call that changes its size or all of it)")
        << "give the function a container of the right size and assign its "
           "elements ('x[i] = ...')";
  else
    Diags.report(Loc, Diag::NotSupported)
        << ("'" + Name + "' of a '" + TypeName + "'")
        << "use size(), data(), front(), back() or the elements ('x[i]')";
  return true;
}

} // namespace fluxion
