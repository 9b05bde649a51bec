//===- EigenLowering.h - Helpers shared by the Eigen lowering ---*- C++ -*-===//
//
// LowerEigenExpr.cpp builds Eigen expression terms and their coefficients;
// LowerEigenUses.cpp lowers the places they are used. These helpers are
// shared by both.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_LIB_EIGENLOWERING_H
#define FLUXION_ENGINE_LIB_EIGENLOWERING_H

#include "fluxion/engine/Lowering.h"

namespace fluxion {
/// A coefficient-wise function of <cmath> for scalar T: std::NAME(T), or
/// std::NAME(T, T) for Arity 2.
clang::FunctionDecl *stdMathFunction(clang::ASTContext &Ctx,
                                     llvm::StringRef Name, clang::QualType T,
                                     unsigned Arity = 1);
/// Derives from Eigen's ArrayBase: `*` and `/` are coefficient-wise, and
/// `inverse()` is 1 / a.
bool isArrayExpression(clang::QualType T);
/// Whether `a op= Rhs` on an array is arithmetic on its coefficients that
/// only arrays have: a number added or taken (+=, -=), an array expression
/// multiplied or divided in (*=, /=).
bool isArrayCompound(clang::BinaryOperatorKind Op, const clang::Expr *Rhs);
/// The plain Matrix or Array type an Eigen expression of type T evaluates
/// to: Eigen's own `T::PlainObject` (null if it has none).
clang::QualType plainObjectType(clang::ASTContext &Ctx, clang::QualType T);
/// A type of Eigen's (a plain object, an expression, a view).
bool eigenNamespaceType(clang::QualType T);
/// E without what Clang wraps around Eigen temporaries (copies,
/// materialisations, evaluations into plain temporaries).
const clang::Expr *bare(const clang::Expr *E);

/// `Vector3d(x, y, z)`: a fixed-size object built from all its
/// coefficients (numbers); null for any other expression.
const clang::CXXConstructExpr *coefficientConstruct(const clang::Expr *E);
/// What namespace fluxion declares under NAME (functions, templates).
clang::DeclContextLookupResult runtimeLookup(clang::ASTContext &Ctx,
                                             llvm::StringRef Name);
/// fluxion::NAME, a function of the runtime; null if it is not declared.
clang::FunctionDecl *runtimeFunction(clang::ASTContext &Ctx,
                                     llvm::StringRef Name);
/// The object an Eigen variable term's storage points into when it is held
/// by another object (`&c.R(0)` for a member `c.R`); null for a variable.
ir::ExprP heldEigenObject(const ir::ExprP &Storage);
/// Coefficient Idx (storage order) of the Eigen object Storage points to:
/// Storage[Idx] for a variable, c.R(Idx) for one another object holds.
ir::ExprP eigenStorageElement(const ir::ExprP &Storage, ir::ExprP Idx,
                              clang::QualType Elem);
/// The Matrix or Array type of the object Storage points to.
clang::QualType eigenStorageType(const ir::ExprP &Storage);
/// How diagnostics name the object Storage points to.
std::string eigenStorageName(const ir::ExprP &Storage);
/// fluxion::stop_gradient (an Eigen operand's coefficients under it carry
/// no derivative: a Function term of it, LowerEigenCoefficients.cpp).
bool isStopGradient(const clang::FunctionDecl *FD);
/// The integers a block view takes, offsets first, then extents (col,
/// row, head, tail, topRows, leftCols ...: 1; segment, middleRows,
/// middleCols, the corners: 2; block: 4); 0 for anything else.
unsigned blockViewArity(llvm::StringRef Name);
/// The integers of a block view call: its arguments, then the integral
/// template arguments where the arguments are fewer (`block<2, 2>(i, j)`,
/// `topLeftCorner<2, 3>()`). False when they are not Arity in all.
bool blockViewIntegers(const clang::CXXMemberCallExpr *MC, unsigned Arity,
                       llvm::SmallVectorImpl<const clang::Expr *> &Args,
                       llvm::SmallVectorImpl<int64_t> &Fixed);
/// A copy of T and its operands (the IR expressions are shared).
std::unique_ptr<EigenTerm> cloneEigenTerm(const EigenTerm &T);
} // namespace fluxion

#endif
