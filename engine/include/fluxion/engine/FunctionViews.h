//===- FunctionViews.h - Methods and object results as plain functions -*- C++ -*-===//
//
// The engine differentiates functions whose parameters are numbers,
// pointers and references, and whose result is a number or nothing. Three
// C++ spellings are lowered onto that by a "view" of the function:
//
//   R S::m(P...) const      ->  R m(const S *self, P...)        (a method)
//   S f(P...)               ->  void f(S *result, P...)          (an object result)
//   S::S(P...) : ... { }    ->  void S(S *self, P...)            (a constructor)
//
// A view is a FunctionDecl the engine keys its generated functions by; its
// body is the original body, lowered with `this` read as `self` and
// `return e;` initialising `*result`. Views are never called by emitted code:
// the Emitter writes a call of a view in the original spelling
// (self->m(...), *result = f(...), *self = S(...)).
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_FUNCTIONVIEWS_H
#define FLUXION_ENGINE_FUNCTIONVIEWS_H

#include "clang/AST/Type.h"

#include <string>

namespace clang {
class CallExpr;
class CXXMethodDecl;
class Expr;
class FunctionDecl;
} // namespace clang

namespace fluxion {

struct FunctionView {
  const clang::FunctionDecl *Of = nullptr; ///< the function it stands for
  bool Self = false;   ///< first parameter: the object (`this`)
  bool Result = false; ///< next parameter: where the object result goes
  /// Of returns a reference that callers discard (operator+=): the view
  /// returns nothing.
  bool DropsReference = false;
  /// Index of the view's parameter that is Of's first parameter.
  unsigned firstParam() const { return unsigned(Self) + unsigned(Result); }
};

/// The method a member call (obj.m(...), p->m(...), an operator declared as
/// a member) calls, with its object expression; Method is null for other
/// calls. A virtual call is resolved when the target is known (a final
/// class or method, an object that is not a reference) or the call is
/// qualified (obj.S::m()); otherwise Dynamic is set.
struct MemberCall {
  const clang::CXXMethodDecl *Method = nullptr;
  const clang::Expr *Object = nullptr;
  unsigned FirstArg = 0; ///< the call's first argument that is not Object
  bool Arrow = false;    ///< p->m(): Object is a pointer
  bool Qualified = false;
  bool Dynamic = false; ///< a virtual call whose target is not known
};
MemberCall memberCall(const clang::CallExpr *E);

/// True when calls of FD are lowered through a view: a non-static method,
/// a constructor, or a function returning a class of reals by value.
bool needsView(const clang::FunctionDecl *FD);

/// A fixed-size container of reals returned by value (an Eigen Matrix or
/// Array, a std::array): the view writes it through a `T &result`
/// parameter, sized by its type.
bool returnsFixedContainer(clang::QualType Ret);

/// A dynamic-size Eigen Matrix or Array of reals returned by value: an
/// annotated function's view writes it through a `T &result` parameter,
/// sized by its `return` (a callee returning one is lowered in place
/// instead, LowerLambda.cpp).
bool returnsDynamicEigen(clang::QualType Ret);

/// The view of FD (made once per function; needsView(FD) or, for an
/// annotated function, returnsDynamicEigen must hold).
clang::FunctionDecl *viewOf(const clang::FunctionDecl *FD);

/// What View stands for; null when View is not a view.
const FunctionView *asView(const clang::FunctionDecl *View);

/// Gives every view the body its function has gained since the view was
/// made (a method defined after its first call, an instantiated member of
/// a class template). Called before callees are defined.
void updateViewBodies();

/// Forgets all views (their declarations belong to one translation unit).
void forgetViews();

/// A name for FD usable in an identifier: its own, or a word for an
/// operator (operator+= is "operator_plus_assign") or a constructor.
std::string viewIdentifier(const clang::FunctionDecl *FD);

} // namespace fluxion

#endif
