//===- CallSites.h - The call-site form fluxion::grad(f) ---------*- C++ -*-===//
//
// `fluxion::grad(f, "x")` (and vjp, jvp, hvp, hessian, jacobian) is declared
// in fluxion/callsite.hpp with a hidden last parameter, the address of the
// generated function, which defaults to null. For each such call this
// generates f's derivatives as the annotation of the same kind and names
// would, and passes the generated function's address in the hidden
// argument. The object the call returns calls that function through a
// pointer cast to the type its call operator's arguments give; at the end
// of the translation unit each instance of that operator is made to call
// through the generated function's own type instead, converting the
// arguments as a direct call would, or a located error says which
// arguments do not fit.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_PLUGIN_CALLSITES_H
#define FLUXION_PLUGIN_CALLSITES_H

#include "fluxion/engine/Differentiator.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>

namespace clang {
class CallExpr;
class CXXRecordDecl;
class Decl;
class Expr;
class Sema;
} // namespace clang

namespace fluxion {

class CallSites {
public:
  CallSites(clang::Sema &S, Differentiator &Diff);

  /// Binds the call-site forms in D and notes the calls of their results.
  void visit(clang::Decl *D);
  /// Checks every noted call of a derivative object.
  void finish();

  /// Called with each bound call-site form, the function it now passes and
  /// the top-level declaration it is in (fluxion-gen writes the hidden
  /// argument into its output).
  std::function<void(const clang::CallExpr *, clang::FunctionDecl *,
                     const clang::Decl *)> OnBound;
  /// Hands a function this creates (the function a lambda is
  /// differentiated as) to code generation.
  std::function<void(clang::FunctionDecl *)> Emit;

private:
  /// A call-site form and the function it generated.
  struct Made {
    const clang::CallExpr *Form = nullptr;
    clang::FunctionDecl *Generated = nullptr;
  };
  /// A call of a derivative object.
  struct Use {
    const clang::CallExpr *Call = nullptr;
    const clang::CXXMethodDecl *Operator = nullptr;
    const clang::Expr *Object = nullptr;
  };

  void bind(clang::CallExpr *Form, const clang::Decl *User);
  /// `static R lambda(const C &self, P... p) { return self(p...); }`: what
  /// a form on a lambda of closure type C differentiates (null if the
  /// lambda cannot be called that way: mutable, or without a body yet).
  clang::FunctionDecl *lambdaFunction(clang::CXXRecordDecl *Closure);
  /// The call-site form whose result Object is, if that is certain.
  const Made *origin(const clang::Expr *Object) const;
  /// Makes the call operator Op call through the type of the functions
  /// Candidates (those the objects it is called on can hold), or reports
  /// why not at the call At.
  void retarget(const clang::CXXMethodDecl *Op,
                llvm::ArrayRef<const Made *> Candidates,
                const clang::CallExpr *At);

  clang::Sema &S;
  Differentiator &Diff;
  DiagReporter Diags;
  /// By derivative object type (a specialization of fluxion::derivative_fn).
  llvm::DenseMap<const clang::CXXRecordDecl *, llvm::SmallVector<Made, 2>>
      ByType;
  llvm::DenseMap<const clang::CallExpr *, Made> ByForm;
  llvm::DenseMap<const clang::CXXRecordDecl *, clang::FunctionDecl *>
      LambdaFunctions;
  std::vector<Use> Uses;
};

} // namespace fluxion

#endif
