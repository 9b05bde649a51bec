//===- TangentBuilder.h - Tangent (forward-mode) code builder ---*- C++ -*-===//
//
// Builds the tangent ("dual") form of a jump-free IR function: before each
// assignment to an active variable, the assignment of its tangent, computed
// from the values the primal statement reads. Control flow is kept as it
// is; nothing is recorded. Calls use a custom forward rule
// (fluxion::custom::g_jvp) or a generated dual function g_dual that returns
// the primal value and writes the tangent of the result through a pointer.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_TANGENTBUILDER_H
#define FLUXION_ENGINE_TANGENTBUILDER_H

#include "fluxion/engine/Diagnostics.h"
#include "fluxion/engine/IR.h"
#include "fluxion/engine/Passes.h"

#include <optional>

namespace fluxion {

/// How the tangent code differentiates one call site.
struct CallTangent {
  enum class Kind {
    Custom, ///< t = Rule(args..., tangents...); value = callee(args...)
    Dual    ///< value = Rule(args..., tangents..., &t)
  };
  Kind K = Kind::Custom;
  clang::FunctionDecl *Rule = nullptr;
  /// For each callee parameter: whether Rule takes a tangent for it.
  llvm::SmallVector<bool, 4> TangentSlot;
};

class TangentOracle {
public:
  virtual ~TangentOracle() = default;
  /// ArgSink: arguments that point into write-only adjoint memory the
  /// caller does not have (see TangentBuilder::Sinks); the rule drops the
  /// primal writes through them.
  virtual std::optional<CallTangent>
  tangentOf(const ir::Expr &Call, llvm::ArrayRef<bool> ArgActive,
            llvm::ArrayRef<bool> ArgSink) = 0;
};

class TangentBuilder {
public:
  /// Tangents maps active parameters to their tangent variables; it is
  /// extended with the tangents of locals.
  TangentBuilder(ir::Function &F, clang::ASTContext &Ctx,
                 const ActivityInfo &Activity, TangentOracle &Oracle,
                 DiagReporter &Diags,
                 llvm::DenseMap<ir::Var *, ir::Var *> &Tangents);

  /// The dual of Body (F.Body if null); nullopt after reporting an error.
  std::optional<ir::Block> build(const ir::Block *Body = nullptr);

  /// Write-only memory (adjoint parameters when differentiating an adjoint):
  /// only the tangents of writes into them are kept.
  llvm::DenseSet<const ir::Var *> Sinks;

private:
  bool stmts(const ir::Block &B, ir::Block &Out);
  bool stmt(const ir::Stmt &S, ir::Block &Out);
  bool callSite(const ir::Stmt &S, ir::Block &Out);
  /// The tangent of E; null when it is structurally zero.
  ir::ExprP tangent(const ir::Expr &E);
  /// The tangent lvalue/pointer of an active lvalue or pointer expression.
  ir::ExprP tangentOf(const ir::Expr &E);
  ir::Var *tangentVar(ir::Var *V);
  ir::ExprP zero(clang::QualType T);
  bool isSink(const ir::Expr &E) const;
  bool carriesTangent(clang::QualType T) const;

  ir::Function &F;
  clang::ASTContext &Ctx;
  const ActivityInfo &Activity;
  TangentOracle &Oracle;
  DiagReporter &Diags;
  llvm::DenseMap<ir::Var *, ir::Var *> &Tangents;
};

} // namespace fluxion

#endif
