//===- Differentiator.h - Declares and defines derivative functions -*- C++ -*-===//
//
// The engine's entry point. The Clang-facing glue (plugin or tool) calls:
//   annotate()        when an attribute is seen: validates it and declares
//                     the user-facing derivatives (f_grad, f_vjp) at once,
//                     so that later code can call them by name;
//   defineFor()       when a definition is complete: generates the bodies;
//   finish()          at the end of the translation unit: generates what had
//                     to wait for a callee's body, and reports what never
//                     got one.
// Callee derivatives are requested on demand through DerivativeOracle: a
// custom derivative (fluxion::custom::g_vjp, by overload resolution) or a
// generated split pair g_fwd/g_bwd specialised to the active parameters.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_DIFFERENTIATOR_H
#define FLUXION_ENGINE_DIFFERENTIATOR_H

#include "fluxion/engine/Diagnostics.h"
#include "fluxion/engine/ReverseBuilder.h"
#include "fluxion/engine/TangentBuilder.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <functional>
#include <map>

namespace clang {
class Sema;
class NamespaceDecl;
} // namespace clang

namespace fluxion {

/// What an annotation asks for.
struct Annotation {
  enum class Kind { Grad, Jvp, Hessian, Jacobian };
  Kind K = Kind::Grad;
  /// Parameter names restricting differentiation (empty: all).
  llvm::SmallVector<std::string, 4> Params;
  llvm::SmallVector<clang::SourceLocation, 4> ParamLocs; ///< of each name
  clang::SourceLocation Loc;
  std::string Spelling = "fluxion::grad";
};

class Differentiator : public DerivativeOracle, public TangentOracle {
public:
  explicit Differentiator(clang::Sema &S);

  /// Validates A on FD and declares the functions it generates.
  void annotate(clang::FunctionDecl *FD, const Annotation &A);
  /// FD's body is complete: define its derivatives, and any pending callee
  /// derivatives that can now be defined.
  void defineFor(clang::FunctionDecl *FD);
  void finish();

  /// True for functions this engine declared.
  bool isGenerated(const clang::Decl *D) const {
    return Generated.count(D);
  }
  /// Called with each function once its body is set (hand it to CodeGen).
  std::function<void(clang::FunctionDecl *)> OnDefined;
  /// Called with each function this engine declares and the function it is
  /// declared next to (fluxion-gen prints the declaration there).
  std::function<void(clang::FunctionDecl *, clang::FunctionDecl *)> OnDeclared;
  /// Print each generated function to this stream (the dump option).
  llvm::raw_ostream *Dump = nullptr;

  std::optional<CallDerivative>
  reverseOf(const ir::Expr &Call, llvm::ArrayRef<bool> ArgActive) override;
  std::optional<CallTangent>
  tangentOf(const ir::Expr &Call, llvm::ArrayRef<bool> ArgActive,
            llvm::ArrayRef<bool> ArgSink) override;

private:
  struct UserEntry {
    Annotation::Kind K = Annotation::Kind::Grad;
    clang::FunctionDecl *Annotated = nullptr;
    clang::FunctionDecl *VJP = nullptr;
    clang::FunctionDecl *Grad = nullptr;
    clang::FunctionDecl *JVP = nullptr;
    clang::FunctionDecl *HVP = nullptr;
    clang::FunctionDecl *Hessian = nullptr;
    clang::FunctionDecl *Jacobian = nullptr;
    bool Forward = false; ///< Jacobian by columns (jvp) rather than rows
    std::vector<bool> Active;
    clang::SourceLocation Loc;
    bool Defined = false;
  };
  struct SplitEntry {
    clang::FunctionDecl *Callee = nullptr;
    clang::FunctionDecl *Fwd = nullptr;
    clang::FunctionDecl *Bwd = nullptr;
    std::vector<bool> Active;
    /// Every call that needs this pair, and the function it is in.
    llvm::SmallVector<std::pair<clang::SourceLocation, clang::FunctionDecl *>,
                      2>
        Uses;
    bool Defined = false;
  };

  /// The annotation of kind K on FD or a redeclaration (any kind if none).
  UserEntry *findUser(const clang::FunctionDecl *FD,
                      std::optional<Annotation::Kind> K = std::nullopt);
  bool isUsed(const UserEntry &E) const;
  bool checkAnnotation(clang::FunctionDecl *FD, const Annotation &A,
                       std::vector<bool> &Active);
  void defineUser(UserEntry &E, clang::FunctionDecl *Def);
  void defineSplit(SplitEntry &E, clang::FunctionDecl *Def);
  // Forward mode (ForwardMode.cpp).
  void declareJVP(UserEntry &E);
  void defineUserJVP(UserEntry &E, clang::FunctionDecl *Def);
  void defineDual(struct DualEntry &E, clang::FunctionDecl *Def);
  std::vector<std::pair<std::string, clang::QualType>>
  tangentParams(clang::FunctionDecl *FD, const std::vector<bool> &Active);
  // Second order (SecondOrder.cpp).
  std::vector<std::pair<std::string, clang::QualType>>
  hvpParams(clang::FunctionDecl *FD, const std::vector<bool> &Active);
  bool checkSecondOrder(clang::FunctionDecl *FD, const Annotation &A);
  void declareSecondOrder(UserEntry &E);
  void defineUserHVP(UserEntry &E, clang::FunctionDecl *Def);
  void defineDenseHessian(UserEntry &E, clang::FunctionDecl *Def);
  // Jacobian (Jacobian.cpp).
  bool declareJacobian(UserEntry &E, const Annotation &A);
  void defineJacobian(UserEntry &E, clang::FunctionDecl *Def);
  /// Defines the derivatives E asks for.
  void defineEntry(UserEntry &E, clang::FunctionDecl *Def);
  void drain(bool AtEnd);
  /// Notes explaining why Fn is differentiated (the chain of calls up to
  /// an annotated function).
  void explain(const clang::FunctionDecl *Fn, unsigned Depth = 0);

  /// Declares `Ret Name(Params...)` next to Like.
  clang::FunctionDecl *
  declare(clang::FunctionDecl *Like, llvm::StringRef Name, clang::QualType Ret,
          llvm::ArrayRef<std::pair<std::string, clang::QualType>> Params,
          bool Internal, bool Visible);
  std::vector<std::pair<std::string, clang::QualType>>
  reverseParams(clang::FunctionDecl *FD, const std::vector<bool> &Active);
  clang::FunctionDecl *findCustom(clang::FunctionDecl *Callee,
                                  llvm::StringRef Suffix,
                                  clang::SourceLocation Loc);
  clang::NamespaceDecl *customNamespace();
  void publish(clang::FunctionDecl *FD);
  /// Defines Target as a call of Callee with Target's parameters (and Extra
  /// inserted at position At).
  void defineForwarder(clang::FunctionDecl *Target, clang::FunctionDecl *Callee,
                       ir::ExprP Extra = nullptr, unsigned At = 0);
  /// Emits R's body into its target and hands the target on.
  void emitAndPublish(struct EmitRequest &R);
  /// Which callee parameters a generated derivative differentiates, given
  /// the active arguments of a call; All is set when every differentiable
  /// parameter is.
  std::vector<bool> activeParams(clang::FunctionDecl *Callee,
                                 llvm::ArrayRef<bool> ArgActive, bool &All);
  /// "_x_w" naming the active parameters (empty when all are).
  std::string activeSuffix(clang::FunctionDecl *Callee,
                           const std::vector<bool> &Active, bool All);
  /// False (after an error naming the missing Rule) if Callee's derivative
  /// cannot be generated: a builtin or system function without a body.
  bool canGenerate(clang::FunctionDecl *Callee, clang::SourceLocation Loc,
                   llvm::StringRef Rule);

  clang::Sema &S;
  clang::ASTContext &Ctx;
  DiagReporter Diags;
  std::vector<std::unique_ptr<UserEntry>> Users;
  std::map<std::pair<const clang::Decl *, std::vector<bool>>,
           std::unique_ptr<SplitEntry>>
      Splits;
  std::vector<SplitEntry *> SplitOrder;
  std::map<std::tuple<const clang::Decl *, std::vector<bool>,
                      std::vector<bool>>,
           std::unique_ptr<struct DualEntry>>
      Duals;
  /// The IR of generated functions, so that they can be differentiated
  /// again (the tangent of an adjoint).
  struct StoredIR {
    std::shared_ptr<ir::Function> IR;
    std::vector<ir::Var *> Params;
    ir::Block Body;
  };
  std::map<const clang::Decl *, StoredIR> Stored;
  std::vector<DualEntry *> DualOrder;
  llvm::SmallPtrSet<const clang::Decl *, 32> Generated;
  clang::FunctionDecl *Current = nullptr; ///< function being differentiated
  bool Busy = false;
  std::vector<clang::FunctionDecl *> Deferred;
};

/// A generated dual function g_dual (value and tangent of a callee).
struct DualEntry {
  clang::FunctionDecl *Callee = nullptr;
  clang::FunctionDecl *Dual = nullptr;
  std::vector<bool> Active;
  std::vector<bool> Sink; ///< parameters whose primal writes are dropped
  llvm::SmallVector<std::pair<clang::SourceLocation, clang::FunctionDecl *>, 2>
      Uses;
  bool Defined = false;
};

/// The type of the adjoint parameter for a parameter of type T.
clang::QualType adjointParamType(clang::ASTContext &Ctx, clang::QualType T);

} // namespace fluxion

#endif
