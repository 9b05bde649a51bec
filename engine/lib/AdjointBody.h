//===- AdjointBody.h - The reverse-mode body of one function ----*- C++ -*-===//
//
// Shared by the Differentiator's reverse-mode and second-order halves.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_LIB_ADJOINTBODY_H
#define FLUXION_ENGINE_LIB_ADJOINTBODY_H

#include "fluxion/engine/ReverseBuilder.h"

#include <functional>
#include <memory>

namespace fluxion {

/// Lowered, analysed and differentiated body of one function.
struct Differentiated {
  std::shared_ptr<ir::Function> IR;
  std::vector<ir::Var *> ReverseParams; ///< params + seed + adjoint params
  AdjointParts Parts;
  ir::Var *ReturnVar = nullptr;
};

/// Lowers Def and builds both sweeps with respect to the Active parameters
/// and the global variables Globals (each gets an adjoint parameter after
/// those of the parameters). Extra, if set, may adjust the parts (split
/// functions save their state). RestorePointerParams: see ReverseBuilder.
std::optional<Differentiated>
differentiate(clang::FunctionDecl *Def, const std::vector<bool> &Active,
              clang::ASTContext &Ctx, DiagReporter &Diags,
              DerivativeOracle &Oracle,
              std::function<void(ReverseBuilder &, Differentiated &)> Extra,
              llvm::ArrayRef<clang::VarDecl *> Globals = {},
              bool RestorePointerParams = false);

struct EmitRequest;
/// Makes the view parameter Ptr (a pointer to an object: `result`, its
/// adjoint or tangent) a local pointing to a new local object named Name,
/// which it returns (ObjectResults.cpp).
ir::Var *objectBehind(EmitRequest &R, ir::Function &F, ir::Var *Ptr,
                      llvm::StringRef Name);

} // namespace fluxion

#endif
