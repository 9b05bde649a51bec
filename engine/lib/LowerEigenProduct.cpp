//===- LowerEigenProduct.cpp - Matrix products by Eigen's kernels ---------===//
//
// A matrix product of dynamic size (`W * x`, `A.transpose() * B`,
// `X.col(s)` as a factor) is lowered to one call of the runtime's
//
//   fluxion::eigen_product(A, a_rows, a_cols, a_ld, a_t,
//                          B, b_rows, b_cols, b_ld, b_t, C, c_ld, mode)
//
// computing C = op(A) op(B) (mode 0), C += ... (1) or C -= ... (-1) with
// Eigen's own kernels, over coefficients stored column by column `ld`
// apart: a variable, or a block, column or row of one, in place; op is a
// transpose for `.transpose()` and for row-major storage. Its derivatives
// are custom rules in runtime/include/fluxion/eigen.hpp, found like a
// user's: the reverse sweep of C = A B runs A_bar += C_bar B^T and
// B_bar += A^T C_bar, again by Eigen. The builders see a call writing C,
// which they record whole when the reverse sweep needs its old values.
//
//   y = W * x, y += W * x, y -= W * x     the call into y
//   any other place of a product          the call into a new local, which
//                                         the expression then reads
//
// An operand that is neither (`A * (x - y)`) is evaluated into a new local
// first. A new local in a loop is sized once, before the outermost loop
// (LoopEntry), when its extents are known there; otherwise the product
// stays a coefficient loop (LowerEigenExpr.cpp), as products of fixed size
// do (small geometry, where the loops are what Eigen unrolls to), and as
// every product does in sweeps that are differentiated again (f_hvp).
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

namespace {
const EigenTerm *unwrapSame(const EigenTerm *T) {
  while (T->K == EigenTerm::Kind::Same)
    T = T->A.get();
  return T;
}

/// (s A) B, A (s B), (-A) B and (A / s) B are s (A B), -(A B), (A B) / s:
/// the scalar applied to the product's value, so that the product's
/// operands are read in place.
void liftScalars(EigenTerm &T) {
  if (T.K != EigenTerm::Kind::Product)
    return;
  for (std::unique_ptr<EigenTerm> EigenTerm::*Side :
       {&EigenTerm::A, &EigenTerm::B}) {
    EigenTerm &X = *(T.*Side);
    if (X.K != EigenTerm::Kind::Scale && X.K != EigenTerm::Kind::Negate &&
        X.K != EigenTerm::Kind::DivideByScalar)
      continue;
    std::unique_ptr<EigenTerm> Scalar = std::move(T.*Side);
    auto Product = std::make_unique<EigenTerm>();
    Product->K = EigenTerm::Kind::Product;
    Product->Loc = T.Loc;
    Product->Scalar = T.Scalar;
    Product->Rows = T.Rows;
    Product->Cols = T.Cols;
    Product->Plain = T.Plain;
    Product->Reads = T.Reads;
    Product->Mixes = true;
    Product->A = std::move(T.A);
    Product->B = std::move(T.B);
    Product.get()->*Side = std::move(Scalar->A);
    T.K = Scalar->K;
    T.Value = Scalar->Value;
    T.A = std::move(Product);
    T.B = nullptr;
    liftScalars(*T.A);
    return;
  }
}
} // namespace

bool FunctionLowering::knownBeforeLoops(const ir::Expr &E) {
  switch (E.K) {
  case ir::ExprKind::Const:
    return true;
  case ir::ExprKind::Size:
    return E.Ops[0]->K == ir::ExprKind::VarRef;
  case ir::ExprKind::VarRef: {
    // An integer declared before the loops (`const int d = A.rows();`, a
    // parameter) that nothing in its function writes.
    const auto *VD = dyn_cast_or_null<VarDecl>(E.V->Origin);
    if (!VD || !VD->getType()->isIntegerType() ||
        !(E.V->K == Var::Kind::Param || DeclaredOutsideLoops.count(E.V)))
      return false;
    const auto *Fn = dyn_cast_or_null<FunctionDecl>(VD->getDeclContext());
    const Stmt *Body = Fn ? Fn->getBody() : nullptr;
    return Body && !ExprMutationAnalyzer(*Body, Ctx).isMutated(VD);
  }
  case ir::ExprKind::Cast:
  case ir::ExprKind::Binary:
    return llvm::all_of(E.Ops, [&](const ExprP &X) {
      return knownBeforeLoops(*X);
    });
  default:
    return false;
  }
}

bool FunctionLowering::productsByRules() {
  return RuleProducts && Runtime && !runtimeLookup(Ctx, "eigen_product").empty();
}

bool FunctionLowering::dynamicProduct(const EigenTerm &P) {
  auto Known = [](const ExprP &X) { return X->K == ir::ExprKind::Const; };
  return P.K == EigenTerm::Kind::Product &&
         !(Known(P.A->Rows) && Known(P.A->Cols) && Known(P.B->Cols));
}

bool FunctionLowering::productOperand(const EigenTerm &T, ProductOperand &Out) {
  QualType IndexTy = Ctx.getPointerDiffType();
  ExprP Zero = ir::intConst(IndexTy, 0);
  const EigenTerm *X = unwrapSame(&T);
  if (X->K == EigenTerm::Kind::Transpose) {
    if (!productOperand(*X->A, Out))
      return false;
    Out.Transposed = !Out.Transposed;
    return true;
  }
  // A variable, or a block of one: its first coefficient and its layout.
  const EigenTerm *V = X;
  ExprP Row0 = Zero, Col0 = Zero;
  if (X->K == EigenTerm::Kind::Block) {
    V = unwrapSame(X->A.get());
    Row0 = X->RowOffset;
    Col0 = X->ColOffset;
  }
  if (V->K != EigenTerm::Kind::Variable)
    return false;
  ExprP Storage = V->Storage;
  QualType Elem = Storage->Ty->getPointeeType();
  QualType ConstPtr = Ctx.getPointerType(Elem.withConst());
  ExprP Data = Storage;
  if (!Row0->isZero() || !Col0->isZero()) {
    ExprP First = eigenElement(*V, Row0, Col0);
    Data = ir::binary(BO_Add, Storage, First->Ops[1], Storage->Ty);
  }
  Out.Data = Elem.isConstQualified() ? Data : ir::cast(ConstPtr, Data);
  Out.Rows = X->Rows;
  Out.Cols = X->Cols;
  Out.Transposed = false;
  if (V->Shape.Cols == 1) // a column vector: (i, 0) at i
    Out.Ld = V->Rows;
  else if (V->Shape.Rows == 1) // a row vector: (0, j) at j
    Out.Ld = ir::intConst(IndexTy, 1);
  else if (!V->Shape.RowMajor)
    Out.Ld = V->Rows;
  else { // row-major: the transpose of a column-major matrix
    std::swap(Out.Rows, Out.Cols);
    Out.Ld = V->Cols;
    Out.Transposed = true;
  }
  return true;
}

bool FunctionLowering::callProduct(const EigenTerm &P, ExprP Dst,
                                   const EigenShape &Shape,
                                   BinaryOperatorKind Op, ir::Block &Pre,
                                   SourceLocation Loc) {
  ProductOperand L, R;
  if (!productOperand(*P.A, L) || !productOperand(*P.B, R))
    return false;
  QualType IndexTy = Ctx.getPointerDiffType();
  ExprP Ld;
  if (Shape.RowMajor && !Shape.isVector()) {
    // Row-major storage holds C^T = op(B)^T op(A)^T column by column.
    std::swap(L, R);
    L.Transposed = !L.Transposed;
    R.Transposed = !R.Transposed;
    Ld = eigenVariableTerm(Dst, Shape, Loc)->Cols;
  } else {
    // Column by column; a row (of a vector) is contiguous.
    Ld = P.Rows->isOne() ? ir::intConst(IndexTy, 1) : P.Rows;
  }
  QualType Elem = Dst->Ty->getPointeeType().getUnqualifiedType();
  QualType ConstPtr = Ctx.getPointerType(Elem.withConst());
  QualType Bool = Ctx.BoolTy;
  auto Index = [&](ExprP X) { return ir::cast(IndexTy, X); };
  int Mode = Op == BO_Assign ? 0 : Op == BO_AddAssign ? 1 : -1;
  llvm::SmallVector<ExprP, 13> Args = {
      L.Data,  Index(L.Rows), Index(L.Cols), Index(L.Ld),
      ir::boolConst(Ctx, L.Transposed),
      R.Data,  Index(R.Rows), Index(R.Cols), Index(R.Ld),
      ir::boolConst(Ctx, R.Transposed),
      Dst,     Index(Ld),     ir::intConst(Ctx.IntTy, Mode)};
  llvm::SmallVector<QualType, 13> Types = {
      ConstPtr, IndexTy, IndexTy, IndexTy, Bool, ConstPtr, IndexTy, IndexTy,
      IndexTy,  Bool,    Dst->Ty, IndexTy, Ctx.IntTy};
  FunctionDecl *Fn = Runtime(("eigen_product"), Types, Loc);
  if (!Fn)
    return false;
  Pre.push_back(ir::eval(ir::call(Fn, Args, Ctx.VoidTy, Loc), Loc));
  return true;
}

ExprP FunctionLowering::productTemporary(QualType T, ExprP Rows, ExprP Cols,
                                         ir::Block &Pre, SourceLocation Loc) {
  std::optional<EigenShape> Shape = T.isNull() ? std::nullopt : eigenShape(T);
  if (!Shape || Shape->View)
    return nullptr;
  std::optional<uint64_t> Fixed = containerFixedSize(T);
  // Sized once: here, or before the loops around it.
  ir::Block *Where = &Pre;
  if (LoopDepth && !Fixed) {
    if (!LoopEntry || !knownBeforeLoops(*Rows) || !knownBeforeLoops(*Cols))
      return nullptr;
    Where = LoopEntry;
  }
  T = T.getUnqualifiedType();
  auto *VD = VarDecl::Create(Ctx, F->Primal, Loc, Loc,
                             &Ctx.Idents.get("_product"), T,
                             Ctx.getTrivialTypeSourceInfo(T, Loc), SC_None);
  Var *V = F->makeVar(Var::Kind::Local, "_product",
                      Ctx.getPointerType(Shape->Scalar.getUnqualifiedType()),
                      VD);
  F->Locals.push_back(V);
  ExprP Storage = ir::ref(V, Loc);
  if (!Fixed) {
    QualType SizeTy = Ctx.getSizeType();
    QualType IndexTy = Ctx.getPointerDiffType();
    ExprP Count = materialize(ir::cast(SizeTy, ir::mul(Rows, Cols, IndexTy)),
                              *Where, "_n", Loc);
    ExprP RowCount = Shape->isVector()
                         ? nullptr
                         : materialize(ir::cast(SizeTy, Rows), *Where,
                                       "_rows", Loc);
    Where->push_back(ir::resize(Storage, Count, Loc, RowCount));
  }
  return Storage;
}

bool FunctionLowering::productOperands(EigenTerm &P, ir::Block &Pre,
                                       bool &Failed) {
  // A triangular or self-adjoint view times a vector stays a coefficient
  // loop: it reads the view where it is, at the cost of the product,
  // where a new local would copy the whole matrix at each use.
  auto IsView = [](const EigenTerm &X) {
    const EigenTerm *Y = unwrapSame(&X);
    if (Y->K == EigenTerm::Kind::Transpose)
      Y = unwrapSame(Y->A.get());
    return Y->K == EigenTerm::Kind::Triangular ||
           Y->K == EigenTerm::Kind::SelfAdjoint;
  };
  if ((IsView(*P.A) || IsView(*P.B)) && (P.Rows->isOne() || P.Cols->isOne()))
    return false;
  for (std::unique_ptr<EigenTerm> *Side : {&P.A, &P.B}) {
    ProductOperand Unused;
    if (productOperand(**Side, Unused))
      continue;
    // Its value into a new local, read in place.
    EigenTerm &X = **Side;
    ExprP Tmp = productTemporary(X.Plain, X.Rows, X.Cols, Pre, X.Loc);
    if (!Tmp)
      return false;
    if (!assignEigenTerm(Tmp, BO_Assign, *Side, Pre, X.Loc)) {
      Failed = true;
      return false;
    }
    std::unique_ptr<EigenTerm> Held =
        eigenVariableTerm(Tmp, *eigenShape(X.Plain), X.Loc);
    Held->Rows = X.Rows;
    Held->Cols = X.Cols;
    Held->Plain = X.Plain;
    X = std::move(*Held);
  }
  return true;
}

bool FunctionLowering::evaluateProducts(EigenTerm &T, ir::Block &Pre) {
  if (!productsByRules())
    return true;
  liftScalars(T);
  if ((T.A && !evaluateProducts(*T.A, Pre)) ||
      (T.B && !evaluateProducts(*T.B, Pre)))
    return false;
  if (!dynamicProduct(T))
    return true;
  bool Failed = false;
  if (!productOperands(T, Pre, Failed))
    return !Failed;
  ExprP Tmp = productTemporary(T.Plain, T.Rows, T.Cols, Pre, T.Loc);
  if (!Tmp)
    return true;
  EigenShape Shape = *eigenShape(T.Plain);
  if (!callProduct(T, Tmp, Shape, BO_Assign, Pre, T.Loc))
    return false;
  // The expression reads the local where the product was.
  std::unique_ptr<EigenTerm> Held = eigenVariableTerm(Tmp, Shape, T.Loc);
  Held->Rows = T.Rows;
  Held->Cols = T.Cols;
  Held->Plain = T.Plain;
  T = std::move(*Held);
  return true;
}

bool FunctionLowering::assignProduct(ExprP Dst, const EigenShape &Shape,
                                     BinaryOperatorKind Op,
                                     EigenTerm &R, ir::Block &Pre,
                                     SourceLocation Loc, bool &Handled) {
  Handled = false;
  if (!productsByRules())
    return true;
  EigenTerm *P = &R;
  while (P->K == EigenTerm::Kind::Same)
    P = P->A.get();
  liftScalars(*P);
  if (!dynamicProduct(*P))
    return true;
  // The operands' own products first, then the operands in place.
  if (!evaluateProducts(*P->A, Pre) || !evaluateProducts(*P->B, Pre))
    return false;
  bool Failed = false;
  if (!productOperands(*P, Pre, Failed))
    return !Failed;
  if (!callProduct(*P, Dst, Shape, Op, Pre, Loc))
    return false;
  Handled = true;
  return true;
}

} // namespace fluxion
