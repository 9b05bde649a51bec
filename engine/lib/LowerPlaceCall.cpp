//===- LowerPlaceCall.cpp - Calls of functions returning a reference -----===//
//
// A reference is an address. A function whose whole body is `return e;`
// with e a place built from its parameters and object (`double &at(double
// *a, int i) { return a[i]; }`, `double &Vec3::operator[](int i) { return
// v[i]; }`, `double &x() { return v[0]; }`) designates that place: its
// call is e, with each parameter standing for its argument and `this` for
// the object, read or written like any array element or member. The
// engine never sees the call.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/FunctionViews.h"
#include "fluxion/engine/IR.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ScopeExit.h"

using namespace clang;

namespace fluxion {

/// The place a call of FD designates: the value of its body's only
/// statement, `return e;` with e free of effects; null otherwise.
static const Expr *returnedPlace(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD->getReturnType()->isLValueReferenceType() || !FD->hasBody(Def))
    return nullptr;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body || Body->size() != 1)
    return nullptr;
  const auto *Ret = dyn_cast<ReturnStmt>(Body->body_front());
  const Expr *Place = Ret ? Ret->getRetValue() : nullptr;
  if (!Place || !Place->isGLValue() || Place->HasSideEffects(Def->getASTContext()))
    return nullptr;
  return Place;
}

bool FunctionLowering::lowerPlaceCall(const CallExpr *E,
                                      const FunctionDecl *Target,
                                      ir::Block &Pre, ir::ExprP &Out) {
  Out = nullptr;
  const Expr *Place = returnedPlace(Target);
  if (!Place)
    return false;
  const FunctionDecl *Def = nullptr;
  Target->hasBody(Def);
  if (PlaceCallDepth > 16) {
    Diags.report(E->getExprLoc(), Diag::NotSupported)
        << "a function returning a reference that calls itself"
        << "index the array or name the member directly";
    return true;
  }
  MemberCall MC = memberCall(E);
  // The parameters stand for the arguments, evaluated where they are used
  // in the place: an argument must not change anything.
  auto SavedAliases = Aliases;
  const Expr *SavedThis = ThisObject;
  bool SavedArrow = ThisArrow;
  ++PlaceCallDepth;
  auto Restore = llvm::make_scope_exit([&] {
    Aliases = std::move(SavedAliases);
    ThisObject = SavedThis;
    ThisArrow = SavedArrow;
    --PlaceCallDepth;
  });
  for (unsigned I = MC.FirstArg; I < E->getNumArgs(); ++I) {
    unsigned ParamIndex = I - MC.FirstArg;
    if (ParamIndex >= Def->getNumParams())
      return false; // variadic: not a place
    const Expr *Arg = E->getArg(I);
    if (Arg->HasSideEffects(Ctx)) {
      Diags.report(Arg->getExprLoc(), Diag::NotSupported)
          << ("an argument that changes something, given to '" +
              Target->getNameAsString() + "', which returns a reference")
          << "make the change a statement of its own before the call";
      return true;
    }
    Aliases[Def->getParamDecl(ParamIndex)] = Arg;
  }
  // `this` inside is the call's object (unless the call is on `this`
  // itself, which stays what it was).
  if (MC.Method && MC.Object &&
      !isa<CXXThisExpr>(MC.Object->IgnoreParenImpCasts())) {
    ThisObject = MC.Object;
    ThisArrow = MC.Arrow;
  }
  Out = lowerExpr(Place, Pre);
  return true;
}

} // namespace fluxion
