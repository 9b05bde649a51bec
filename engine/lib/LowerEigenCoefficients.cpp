//===- LowerEigenCoefficients.cpp - The coefficients of Eigen terms -------===//
//
// An EigenTerm (LowerEigenExpr.cpp) stands for a matrix; its coefficient
// (i, j) is the IR expression eigenCoefficient writes (a product's a counted
// loop into a local of the body that needs it), and forEachEigenCoefficient
// is the loop over all of them that each use site runs
// (LowerEigenUses.cpp).
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

ExprP FunctionLowering::eigenElement(const EigenTerm &T, ExprP I, ExprP J) {
  QualType IndexTy = Ctx.getPointerDiffType();
  QualType Elem = T.Storage->Ty->getPointeeType();
  // A vector is indexed by its one coordinate; a matrix in storage order:
  // A + B * N, folded when all three are known (`m(7)` for `m(1, 2)`).
  auto Flatten = [&](ExprP A, ExprP B, ExprP N) {
    auto Known = [](const ExprP &X) {
      return X->K == ir::ExprKind::Const && X->Ty->isIntegerType();
    };
    if (Known(A) && Known(B) && Known(N))
      return ir::intConst(IndexTy, A->IVal.getExtValue() +
                                       B->IVal.getExtValue() *
                                           N->IVal.getExtValue());
    return ir::add(A, ir::mul(B, N, IndexTy), IndexTy);
  };
  ExprP Flat;
  if (T.Shape.Cols == 1)
    Flat = I;
  else if (T.Shape.Rows == 1)
    Flat = J;
  else if (T.Shape.RowMajor)
    Flat = Flatten(J, I, T.Cols);
  else
    Flat = Flatten(I, J, T.Rows);
  return eigenStorageElement(T.Storage, Flat, Elem);
}

ExprP FunctionLowering::eigenCoefficient(const EigenTerm &T, ExprP I, ExprP J,
                                         ir::Block &Body) {
  QualType S = T.Scalar;
  QualType IndexTy = Ctx.getPointerDiffType();
  SourceLocation Loc = T.Loc;
  switch (T.K) {
  case EigenTerm::Kind::Variable:
    return ir::cast(S, eigenElement(T, I, J));
  case EigenTerm::Kind::Same:
    return eigenCoefficient(*T.A, I, J, Body);
  case EigenTerm::Kind::Transpose:
    return eigenCoefficient(*T.A, J, I, Body);
  case EigenTerm::Kind::Block:
    return eigenCoefficient(*T.A, ir::add(I, T.RowOffset, IndexTy),
                            ir::add(J, T.ColOffset, IndexTy), Body);
  case EigenTerm::Kind::Cross: {
    // (a x b)(i) = a(i+1) b(i+2) - a(i+2) b(i+1), indices mod 3, on the
    // coordinate of the 3-vectors (i for a column, j for a row).
    ExprP K = T.Rows->isOne() ? J : I;
    ExprP Zero = ir::intConst(IndexTy, 0);
    auto At = [&](const EigenTerm &V, int64_t Shift) -> ExprP {
      ExprP X = ir::binary(BO_Rem,
                           ir::add(K, ir::intConst(IndexTy, Shift), IndexTy),
                           ir::intConst(IndexTy, 3), IndexTy);
      return V.Rows->isOne() ? eigenCoefficient(V, Zero, X, Body)
                             : eigenCoefficient(V, X, Zero, Body);
    };
    ExprP A1 = At(*T.A, 1), B2 = A1 ? At(*T.B, 2) : nullptr;
    ExprP A2 = B2 ? At(*T.A, 2) : nullptr, B1 = A2 ? At(*T.B, 1) : nullptr;
    if (!B1)
      return nullptr;
    return ir::sub(ir::mul(A1, B2, S), ir::mul(A2, B1, S), S);
  }
  case EigenTerm::Kind::Max:
  case EigenTerm::Kind::Min: {
    // std::max(a, b) is `a < b ? b : a`, std::min(a, b) `b < a ? b : a`:
    // the derivative follows the coefficient selected.
    ExprP A = eigenCoefficient(*T.A, I, J, Body);
    ExprP B = A ? eigenCoefficient(*T.B, I, J, Body) : nullptr;
    if (!B)
      return nullptr;
    A = materialize(A, Body, "_a", Loc);
    B = materialize(B, Body, "_b", Loc);
    ExprP Less = T.K == EigenTerm::Kind::Max
                     ? ir::binary(BO_LT, A, B, Ctx.BoolTy, Loc)
                     : ir::binary(BO_LT, B, A, Ctx.BoolTy, Loc);
    return ir::cond(Less, B, A, S);
  }
  case EigenTerm::Kind::Constant:
    return T.Value;
  case EigenTerm::Kind::Identity:
    if (I == J) // on the diagonal (a trace)
      return ir::floatConst(S, 1);
    return ir::cond(ir::binary(BO_EQ, I, J, Ctx.BoolTy),
                    ir::floatConst(S, 1), ir::floatConst(S, 0), S);
  case EigenTerm::Kind::Negate: {
    ExprP A = eigenCoefficient(*T.A, I, J, Body);
    return A ? ir::neg(A, S) : nullptr;
  }
  case EigenTerm::Kind::Scale:
  case EigenTerm::Kind::DivideByScalar: {
    ExprP A = eigenCoefficient(*T.A, I, J, Body);
    if (!A)
      return nullptr;
    return T.K == EigenTerm::Kind::Scale ? ir::mul(T.Value, A, S)
                                         : ir::div(A, T.Value, S);
  }
  case EigenTerm::Kind::AddScalar:
  case EigenTerm::Kind::SubScalar:
  case EigenTerm::Kind::ScalarMinus:
  case EigenTerm::Kind::ScalarOver: {
    ExprP A = eigenCoefficient(*T.A, I, J, Body);
    if (!A)
      return nullptr;
    switch (T.K) {
    case EigenTerm::Kind::AddScalar:
      return ir::add(A, T.Value, S);
    case EigenTerm::Kind::SubScalar:
      return ir::sub(A, T.Value, S);
    case EigenTerm::Kind::ScalarMinus:
      return ir::sub(T.Value, A, S);
    default:
      return ir::div(T.Value, A, S);
    }
  }
  case EigenTerm::Kind::Diagonal:
    return eigenCoefficient(*T.A, I, I, Body);
  case EigenTerm::Kind::Triangular: {
    // Kept: i >= j below the diagonal (Lower), i <= j above it; strictly
    // so when the diagonal is 1 (UnitDiag) or 0 (ZeroDiag).
    bool Lower = T.Part & 1;
    bool Unit = T.Part & 4, Strict = T.Part & (4 | 8);
    if (I == J)
      return Strict ? ir::floatConst(S, Unit ? 1 : 0)
                    : eigenCoefficient(*T.A, I, J, Body);
    ExprP A = eigenCoefficient(*T.A, I, J, Body);
    if (!A)
      return nullptr;
    BinaryOperatorKind Keep =
        Lower ? (Strict ? BO_GT : BO_GE) : (Strict ? BO_LT : BO_LE);
    ExprP R = ir::cond(ir::binary(Keep, I, J, Ctx.BoolTy), A,
                       ir::floatConst(S, 0), S);
    if (Unit)
      R = ir::cond(ir::binary(BO_EQ, I, J, Ctx.BoolTy), ir::floatConst(S, 1),
                   R, S);
    return R;
  }
  case EigenTerm::Kind::SelfAdjoint: {
    if (I == J)
      return eigenCoefficient(*T.A, I, J, Body);
    ExprP Here = eigenCoefficient(*T.A, I, J, Body);
    ExprP Mirror = Here ? eigenCoefficient(*T.A, J, I, Body) : nullptr;
    if (!Mirror)
      return nullptr;
    BinaryOperatorKind Stored = T.Part & 1 ? BO_GE : BO_LE;
    return ir::cond(ir::binary(Stored, I, J, Ctx.BoolTy), Here, Mirror, S);
  }
  case EigenTerm::Kind::Cast: {
    ExprP A = eigenCoefficient(*T.A, I, J, Body);
    return A ? ir::cast(S, A) : nullptr;
  }
  case EigenTerm::Kind::AsDiagonal:
  case EigenTerm::Kind::ScaleRows:
  case EigenTerm::Kind::ScaleCols: {
    // The vector's K-th coefficient, whichever its orientation.
    const EigenTerm &V = T.K == EigenTerm::Kind::ScaleCols ? *T.B : *T.A;
    ExprP Zero = ir::intConst(Ctx.getPointerDiffType(), 0);
    auto At = [&](ExprP K) {
      return V.Cols->isOne() ? eigenCoefficient(V, K, Zero, Body)
                             : eigenCoefficient(V, Zero, K, Body);
    };
    if (T.K == EigenTerm::Kind::AsDiagonal) {
      if (I == J) // on the diagonal (a trace)
        return At(I);
      ExprP D = At(I);
      if (!D)
        return nullptr;
      return ir::cond(ir::binary(BO_EQ, I, J, Ctx.BoolTy), D,
                      ir::floatConst(S, 0), S);
    }
    bool Rows = T.K == EigenTerm::Kind::ScaleRows;
    ExprP D = At(Rows ? I : J);
    ExprP M = D ? eigenCoefficient(Rows ? *T.B : *T.A, I, J, Body) : nullptr;
    return M ? ir::mul(D, M, S) : nullptr;
  }
  case EigenTerm::Kind::Pow: {
    ExprP A = eigenCoefficient(*T.A, I, J, Body);
    if (!A)
      return nullptr;
    return materialize(ir::call(T.Fn, {A, T.Value}, S, Loc), Body, "_pow",
                       Loc);
  }
  case EigenTerm::Kind::Add:
  case EigenTerm::Kind::Subtract:
  case EigenTerm::Kind::CwiseProduct:
  case EigenTerm::Kind::CwiseQuotient: {
    ExprP A = eigenCoefficient(*T.A, I, J, Body);
    ExprP B = A ? eigenCoefficient(*T.B, I, J, Body) : nullptr;
    if (!B)
      return nullptr;
    switch (T.K) {
    case EigenTerm::Kind::Add:
      return ir::add(A, B, S);
    case EigenTerm::Kind::Subtract:
      return ir::sub(A, B, S);
    case EigenTerm::Kind::CwiseProduct:
      return ir::mul(A, B, S);
    default:
      return ir::div(A, B, S);
    }
  }
  case EigenTerm::Kind::Function: {
    ExprP A = eigenCoefficient(*T.A, I, J, Body);
    if (!A)
      return nullptr;
    if (!T.Fn) { // square, or cube
      ExprP X = materialize(A, Body, "_x", Loc);
      return T.Value ? ir::mul(ir::mul(X, X, S), X, S) : ir::mul(X, X, S);
    }
    if (isStopGradient(T.Fn))
      return ir::stopGrad(A, S, Loc);
    // A call stands alone on the right of an assignment.
    return materialize(ir::call(T.Fn, {A}, S, Loc), Body,
                       ("_" + T.Fn->getName()).str(), Loc);
  }
  case EigenTerm::Kind::Product: {
    // sum over k of A(i, k) B(k, j), in a local of this body.
    Var *Acc = F->makeVar(Var::Kind::Local, "_dot", S);
    F->Locals.push_back(Acc);
    Body.push_back(ir::assign(ir::ref(Acc), ir::floatConst(S, 0), BO_Assign,
                              Loc));
    bool OK = true;
    // A triangular factor (not unit): k only where it is not zero, its
    // coefficients read without the test.
    const EigenTerm *LeftOf = nullptr, *RightOf = nullptr;
    ExprP Begin = ir::intConst(IndexTy, 0), End = T.A->Cols;
    auto Triangle = [](const EigenTerm &X) -> const EigenTerm * {
      const EigenTerm *Y = &X;
      while (Y->K == EigenTerm::Kind::Same)
        Y = Y->A.get();
      return Y->K == EigenTerm::Kind::Triangular && !(Y->Part & 4) ? Y
                                                                  : nullptr;
    };
    if (const EigenTerm *Tri = Triangle(*T.A)) {
      // A(i, k): k <= i below the diagonal, k >= i above it.
      LeftOf = Tri->A.get();
      bool Strict = Tri->Part & 8;
      if (Tri->Part & 1) {
        ExprP Last = ir::add(ir::cast(IndexTy, I),
                             ir::intConst(IndexTy, Strict ? 0 : 1), IndexTy);
        ExprP N = ir::cast(IndexTy, End);
        End = ir::cond(ir::binary(BO_LT, Last, N, Ctx.BoolTy), Last, N,
                       IndexTy);
      } else {
        Begin = ir::add(ir::cast(IndexTy, I),
                        ir::intConst(IndexTy, Strict ? 1 : 0), IndexTy);
      }
    } else if (const EigenTerm *Tri = Triangle(*T.B)) {
      // B(k, j): k >= j below the diagonal, k <= j above it.
      RightOf = Tri->A.get();
      bool Strict = Tri->Part & 8;
      if (Tri->Part & 1) {
        Begin = ir::add(ir::cast(IndexTy, J),
                        ir::intConst(IndexTy, Strict ? 1 : 0), IndexTy);
      } else {
        ExprP Last = ir::add(ir::cast(IndexTy, J),
                             ir::intConst(IndexTy, Strict ? 0 : 1), IndexTy);
        ExprP N = ir::cast(IndexTy, End);
        End = ir::cond(ir::binary(BO_LT, Last, N, Ctx.BoolTy), Last, N,
                       IndexTy);
      }
    }
    appendIndexLoop(Begin, End, Loc, Body, [&](ExprP K, ir::Block &In) {
      ExprP A = eigenCoefficient(LeftOf ? *LeftOf : *T.A, I, K, In);
      ExprP B = A ? eigenCoefficient(RightOf ? *RightOf : *T.B, K, J, In)
                  : nullptr;
      if (!B) {
        OK = false;
        return;
      }
      In.push_back(ir::assign(ir::ref(Acc), ir::mul(A, B, S), BO_AddAssign,
                              Loc));
    });
    return OK ? ir::ref(Acc, Loc) : nullptr;
  }
  }
  return nullptr;
}

bool FunctionLowering::forEachEigenCoefficient(
    const EigenTerm &T, ir::Block &Out,
    llvm::function_ref<void(ExprP Coef, ExprP I, ExprP J, ir::Block &Body)>
        Use) {
  // Columns outside, rows inside (column-major order); a vector is one
  // loop.
  QualType IndexTy = Ctx.getPointerDiffType();
  ExprP Zero = ir::intConst(IndexTy, 0);
  bool OK = true;
  auto Each = [&](ExprP I, ExprP J, ir::Block &B) {
    ExprP C = eigenCoefficient(T, I, J, B);
    if (!C) {
      OK = false;
      return;
    }
    Use(C, I, J, B);
  };
  if (T.Cols->isOne() || T.Rows->isOne()) {
    bool Column = T.Cols->isOne();
    appendIndexLoop(0, Column ? T.Rows : T.Cols, T.Loc, Out,
                    [&](ExprP K, ir::Block &B) {
                      Column ? Each(K, Zero, B) : Each(Zero, K, B);
                    });
    return OK;
  }
  appendIndexLoop(0, T.Cols, T.Loc, Out, [&](ExprP J, ir::Block &Outer) {
    appendIndexLoop(0, T.Rows, T.Loc, Outer,
                    [&](ExprP I, ir::Block &B) { Each(I, J, B); });
  });
  return OK;
}

} // namespace fluxion
