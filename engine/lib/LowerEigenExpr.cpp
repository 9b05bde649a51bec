//===- LowerEigenExpr.cpp - Eigen expressions as coefficient loops --------===//
//
// Eigen code leaves its temporaries implicit: `r = (A * x - b).squaredNorm()`,
// `y.noalias() = W * h + c`, `Vector3d d = p - q`. An expression over Eigen
// variables is a tree (EigenTerm) whose coefficient (i, j) the lowering
// writes as an IR expression:
//
//   variable v                 v[i + j * rows] (storage order)
//   a + b, a - b, -a           coefficient-wise
//   s * a, a * s, a / s        s evaluated once, before the loops
//   a.cwiseProduct(b), a.cwiseQuotient(b), array * and /
//   a.cwiseMax(b), a.cwiseMin(b)   std::max / std::min of the coefficients
//   (b a number too; an array's a.max(b), a.min(b))
//   a.cross(b) (3-vectors)     a(i+1) b(i+2) - a(i+2) b(i+1), indices mod 3
//   a.normalized()             a / a.norm(), the norm evaluated once (a
//                              zero vector divided by 1, as Eigen does)
//   a.transpose()              a(j, i)
//   a.array(), a.matrix()      a
//   a.exp(), log, sqrt, tanh, ... (arrays), a.square(), a.cube()
//   a + s, a - s, s - a, s / a, a.inverse() (arrays), a.pow(s)
//   a.cast<T>()                (T) a(i, j)
//   a.diagonal()               a(i, i)
//   v.asDiagonal()             (i == j ? v(i) : 0); times B: v(i) B(i, j),
//                              B times it: B(i, j) v(j) (diagonalProduct)
//   T::Zero(), Ones(), Constant(c), Identity() (with sizes if dynamic)
//                              0, 1, c, (i == j)
//   a.col(k), row(k), block(i, j, r, c), head, tail, segment (read)
//                              a(i + row offset, j + column offset)
//   A * B (matrix product)     sum over k of A(i, k) B(k, j): a counted loop
//                              into a local, in the body that needs it
//   A.llt().solve(b) ..., A.inverse()
//                              a local holding the result, computed by a
//                              runtime call with rules (LowerEigenSolve.cpp)
//
// (LowerEigenCoefficients.cpp writes the coefficients), and each use site
// (LowerEigenUses.cpp) is a loop over the result's
// coefficients. The builders see index loops, as for hand-written
// coefficient code. Operands' extents must agree (checked here when the
// types fix them, at run time by fluxion::eigen_same_extent otherwise);
// any operation not listed is a located error naming it.
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"
#include "fluxion/engine/FunctionViews.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

namespace {
/// T of the shape of its operand A, reading what A reads: a coefficient-wise
/// term (its scalar A's unless set).
void shapeAsOperand(EigenTerm &T) {
  if (T.Scalar.isNull())
    T.Scalar = T.A->Scalar;
  T.Rows = T.A->Rows;
  T.Cols = T.A->Cols;
  T.Reads = T.A->Reads;
  T.Mixes = T.A->Mixes;
}
} // namespace

bool FunctionLowering::sameExtent(ExprP X, ExprP Y, int What, ir::Block &Pre,
                                  SourceLocation Loc) {
  static const char *const Names[] = {
      "a matrix product whose inner extents differ",
      "a sum or difference of objects with different numbers of rows",
      "a sum or difference of objects with different numbers of columns",
      "a linear solve with a matrix that is not square",
      ("a linear solve whose right-hand side has a different number of "
       "rows than its matrix"),
      "a dot product of vectors of different sizes"};
  if (X->K == ir::ExprKind::Const && Y->K == ir::ExprKind::Const) {
    if (X->IVal == Y->IVal)
      return true;
    Diags.report(Loc, Diag::NotSupported)
        << std::string(Names[What]) << "give the operands matching shapes";
    return false;
  }
  // Known at run time only: checked there, as Eigen's debug build does.
  QualType L = Ctx.LongTy;
  return runtimeCheck("eigen_same_extent",
                      {ir::cast(L, X), ir::cast(L, Y),
                       ir::intConst(Ctx.IntTy, What)},
                      Pre, Loc);
}

bool FunctionLowering::runtimeCheck(StringRef Name, llvm::ArrayRef<ExprP> Args,
                                    ir::Block &Pre, SourceLocation Loc) {
  FunctionDecl *Check = runtimeFunction(Ctx, Name);
  if (!Check) {
    Diags.report(Loc, Diag::NotSupported)
        << "an Eigen expression of dynamic size"
        << "include <fluxion/fluxion.hpp>";
    return false;
  }
  Pre.push_back(
      ir::eval(ir::call(Check, Args, Check->getReturnType(), Loc), Loc));
  return true;
}

ExprP FunctionLowering::eigenVariableOf(const clang::Expr *E, ir::Block &Pre,
                                        StringRef What, bool Writable) {
  E = E->IgnoreParenImpCasts();
  // A member of an object (`pose.t`): read and written where it is held.
  if (isa<MemberExpr>(E) && eigenShape(E->getType()) &&
      !eigenShape(E->getType())->View) {
    ExprP Place = lowerExpr(E, Pre);
    if (!Place)
      return nullptr;
    if (!Writable || !E->getType().isConstQualified())
      return heldEigenStorage(Place, E->getType().isConstQualified());
  }
  ExprP V = isa<DeclRefExpr>(E) && eigenShape(E->getType())
                ? lowerExpr(E, Pre)
                : nullptr;
  if (V && V->K == ir::ExprKind::VarRef && isContainerStorageVar(V->V) &&
      !(Writable && V->Ty->getPointeeType().isConstQualified()))
    return V;
  if (V || !usesPoisoned(E))
    Diags.report(E->getExprLoc(), Diag::NotSupported)
        << (What + " of an Eigen object that is not a writable variable of "
                   "the function")
               .str()
        << "assign to a local or output Eigen variable";
  return nullptr;
}

ExprP FunctionLowering::heldEigenStorage(ExprP Place, bool Const) {
  QualType Elem = eigenShape(Place->Ty)->Scalar.getUnqualifiedType();
  if (Const)
    Elem.addConst();
  return ir::addrOf(
      ir::index(Place, ir::intConst(Ctx.getPointerDiffType(), 0), Elem),
      Ctx.getPointerType(Elem));
}

std::unique_ptr<EigenTerm>
FunctionLowering::eigenVariableTerm(ExprP Storage, const EigenShape &Shape,
                                    SourceLocation Loc) {
  QualType IndexTy = Ctx.getPointerDiffType();
  auto Term = std::make_unique<EigenTerm>();
  Term->Loc = Loc;
  Term->K = EigenTerm::Kind::Variable;
  Term->Storage = Storage;
  Term->Shape = Shape;
  Term->Scalar = Shape.Scalar.getUnqualifiedType();
  auto Extent = [&](int64_t Fixed, ir::Extent Which) -> ExprP {
    if (Fixed >= 0)
      return ir::intConst(IndexTy, Fixed);
    if (Shape.isVector())
      Which = ir::Extent::Elements;
    ExprP Held = heldEigenObject(Storage);
    return ir::sizeOf(Held ? Held : Storage, IndexTy, Which);
  };
  Term->Rows = Extent(Shape.Rows, ir::Extent::Rows);
  Term->Cols = Extent(Shape.Cols, ir::Extent::Cols);
  Term->Reads.insert(Storage->rootVar());
  return Term;
}

std::unique_ptr<EigenTerm>
FunctionLowering::lowerEigenTerm(const clang::Expr *E, ir::Block &Pre) {
  std::unique_ptr<EigenTerm> T = lowerEigenTermOf(E, Pre);
  if (T && T->Plain.isNull())
    T->Plain = plainObjectType(Ctx, bare(E)->getType());
  return T;
}

std::unique_ptr<EigenTerm>
FunctionLowering::lowerEigenTermOf(const clang::Expr *E, ir::Block &Pre) {
  E = bare(E);
  // A local holding an expression (LowerEigenAuto.cpp): that expression,
  // its variables read here.
  if (const auto *DR = dyn_cast<DeclRefExpr>(E))
    if (auto It = EigenLocals.find(dyn_cast<VarDecl>(DR->getDecl()));
        It != EigenLocals.end())
      return cloneEigenTerm(*It->second);
  SourceLocation Loc = E->getExprLoc();
  auto Term = std::make_unique<EigenTerm>();
  Term->Loc = Loc;
  QualType IndexTy = Ctx.getPointerDiffType();
  auto Unsupported = [&](std::string What) -> std::unique_ptr<EigenTerm> {
    if (!usesPoisoned(E))
      Diags.report(Loc, Diag::NotSupported)
          << (What + " in an Eigen expression")
          << "compute it with loops over the coefficients of Eigen variables "
             "(v(i), m(i, j)) into a local, and use the local";
    return nullptr;
  };

  // fluxion::stop_gradient(x): x's coefficients, each with no derivative.
  if (const auto *CE = dyn_cast<CallExpr>(E);
      CE && CE->getNumArgs() == 1 && isStopGradient(CE->getDirectCallee())) {
    Term->K = EigenTerm::Kind::Function;
    Term->Fn = const_cast<FunctionDecl *>(CE->getDirectCallee());
    Term->A = lowerEigenTerm(CE->getArg(0), Pre);
    if (!Term->A)
      return nullptr;
    shapeAsOperand(*Term);
    return Term;
  }
  // A member of an object (`c.R`, `p->t`): read where the object holds it.
  if (const auto *ME = dyn_cast<MemberExpr>(E);
      ME && eigenShape(E->getType()) && !eigenShape(E->getType())->View) {
    ExprP Place = lowerExpr(ME, Pre);
    if (!Place)
      return nullptr;
    return eigenVariableTerm(
        heldEigenStorage(Place, E->getType().isConstQualified()),
        *eigenShape(E->getType()), Loc);
  }
  // A variable of the function.
  if (isa<DeclRefExpr>(E) && eigenShape(E->getType())) {
    ExprP Storage = lowerExpr(E, Pre);
    if (!Storage)
      return nullptr;
    if (Storage->K != ir::ExprKind::VarRef || !isContainerStorageVar(Storage->V))
      return Unsupported("an Eigen object that is not a variable of the "
                         "function");
    return eigenVariableTerm(Storage, *eigenShape(E->getType()), Loc);
  }

  auto Binary = [&](EigenTerm::Kind K, const clang::Expr *L,
                    const clang::Expr *R) -> std::unique_ptr<EigenTerm> {
    Term->K = K;
    Term->A = lowerEigenTerm(L, Pre);
    if (!Term->A)
      return nullptr;
    Term->B = lowerEigenTerm(R, Pre);
    if (!Term->B)
      return nullptr;
    Term->Scalar = Term->A->Scalar;
    if (K == EigenTerm::Kind::Product) {
      Term->Rows = Term->A->Rows;
      Term->Cols = Term->B->Cols;
    } else {
      Term->Rows = Term->A->Rows;
      Term->Cols = Term->A->Cols;
    }
    Term->Reads = Term->A->Reads;
    Term->Reads.insert(Term->B->Reads.begin(), Term->B->Reads.end());
    Term->Mixes = Term->A->Mixes || Term->B->Mixes ||
                  K == EigenTerm::Kind::Product;
    // The operands' extents must agree: a product's inner ones, the
    // others' rows and columns.
    bool OK = K == EigenTerm::Kind::Product
                  ? sameExtent(Term->A->Cols, Term->B->Rows, 0, Pre, Loc)
                  : sameExtent(Term->A->Rows, Term->B->Rows, 1, Pre, Loc) &&
                        sameExtent(Term->A->Cols, Term->B->Cols, 2, Pre, Loc);
    return OK ? std::move(Term) : nullptr;
  };
  auto Scaled = [&](EigenTerm::Kind K, const clang::Expr *M,
                    const clang::Expr *S) -> std::unique_ptr<EigenTerm> {
    Term->K = K;
    Term->A = lowerEigenTerm(M, Pre);
    if (!Term->A)
      return nullptr;
    Term->Scalar = Term->A->Scalar;
    ExprP V = lowerExpr(S, Pre);
    if (!V)
      return nullptr;
    // Evaluated once, before the loops that read it.
    Term->Value = materialize(convertResult(V, Term->Scalar, Pre), Pre,
                              "_scale", Loc);
    shapeAsOperand(*Term);
    return std::move(Term);
  };

  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    OverloadedOperatorKind O = Op->getOperator();
    if (Op->getNumArgs() == 1 && O == OO_Minus) {
      Term->K = EigenTerm::Kind::Negate;
      Term->A = lowerEigenTerm(Op->getArg(0), Pre);
      if (!Term->A)
        return nullptr;
      shapeAsOperand(*Term);
      return Term;
    }
    if (Op->getNumArgs() == 2) {
      const clang::Expr *L = Op->getArg(0), *R = Op->getArg(1);
      bool LScalar = bare(L)->getType()->isArithmeticType();
      bool RScalar = bare(R)->getType()->isArithmeticType();
      if ((O == OO_Plus || O == OO_Minus) && !LScalar && !RScalar)
        return Binary(O == OO_Plus ? EigenTerm::Kind::Add
                                   : EigenTerm::Kind::Subtract,
                      L, R);
      // An array and a number (Eigen has these for arrays only).
      if ((O == OO_Plus || O == OO_Minus) && RScalar && !LScalar)
        return Scaled(O == OO_Plus ? EigenTerm::Kind::AddScalar
                                   : EigenTerm::Kind::SubScalar,
                      L, R);
      if ((O == OO_Plus || O == OO_Minus) && LScalar && !RScalar)
        return Scaled(O == OO_Plus ? EigenTerm::Kind::AddScalar
                                   : EigenTerm::Kind::ScalarMinus,
                      R, L);
      if (O == OO_Slash && LScalar && !RScalar)
        return Scaled(EigenTerm::Kind::ScalarOver, R, L);
      if (O == OO_Star && LScalar && !RScalar)
        return Scaled(EigenTerm::Kind::Scale, R, L);
      if ((O == OO_Star || O == OO_Slash) && RScalar && !LScalar)
        return Scaled(O == OO_Star ? EigenTerm::Kind::Scale
                                   : EigenTerm::Kind::DivideByScalar,
                      L, R);
      if ((O == OO_Star || O == OO_Slash) && !LScalar && !RScalar) {
        bool Arrays = isArrayExpression(bare(L)->getType()) &&
                      isArrayExpression(bare(R)->getType());
        if (Arrays)
          return Binary(O == OO_Star ? EigenTerm::Kind::CwiseProduct
                                     : EigenTerm::Kind::CwiseQuotient,
                        L, R);
        if (O == OO_Star)
          return diagonalProduct(Binary(EigenTerm::Kind::Product, L, R));
      }
    }
    return Unsupported(
        ("the operator '" + std::string(getOperatorSpelling(O)) + "'"));
  }

  if (isEigenRuleTerm(E))
    return lowerEigenRuleTerm(E, Pre);
  // A function of the user's returning a fixed-size Eigen object: its
  // view writes a new local (LowerExpr.cpp, lowerCall), read as a variable.
  if (const auto *CE = dyn_cast<CallExpr>(E);
      CE && CE->getDirectCallee() && !isInEigen(CE->getDirectCallee()) &&
      needsView(CE->getDirectCallee()) &&
      eigenShape(CE->getDirectCallee()->getReturnType())) {
    ExprP Storage = lowerCall(CE, Pre);
    if (!Storage)
      return nullptr;
    return eigenVariableTerm(Storage, *eigenShape(Storage->V->Origin->getType()),
                             Loc);
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    StringRef Name = M && M->getIdentifier() ? M->getName() : "";
    const clang::Expr *Object = MC->getImplicitObjectArgument();
    unsigned N = MC->getNumArgs();
    if (N == 0 && (Name == "transpose" || Name == "array" ||
                   Name == "matrix")) {
      Term->K = Name == "transpose" ? EigenTerm::Kind::Transpose
                                    : EigenTerm::Kind::Same;
      Term->A = lowerEigenTerm(Object, Pre);
      if (!Term->A)
        return nullptr;
      Term->Scalar = Term->A->Scalar;
      bool T = Name == "transpose";
      Term->Rows = T ? Term->A->Cols : Term->A->Rows;
      Term->Cols = T ? Term->A->Rows : Term->A->Cols;
      Term->Reads = Term->A->Reads;
      Term->Mixes = Term->A->Mixes || T;
      return Term;
    }
    // a.cast<T>() to another real type: each coefficient converted.
    if (N == 0 && Name == "cast") {
      std::optional<EigenShape> To =
          eigenShape(plainObjectType(Ctx, MC->getType()));
      if (!To || !To->Scalar->isRealFloatingType())
        return Unsupported("'cast' to a type other than float, double or "
                           "long double");
      Term->K = EigenTerm::Kind::Cast;
      Term->A = lowerEigenTerm(Object, Pre);
      if (!Term->A)
        return nullptr;
      Term->Scalar = To->Scalar.getUnqualifiedType();
      shapeAsOperand(*Term);
      return Term;
    }
    // m.triangularView<Lower>() (Upper, UnitLower, StrictlyUpper, ...):
    // zeros (or ones) on one side; m.selfadjointView<Lower>(): one side
    // mirrored. A solve with either is not lowered.
    if (N == 0 && (Name == "triangularView" || Name == "selfadjointView")) {
      bool Self = Name == "selfadjointView";
      const TemplateArgumentList *Args = M->getTemplateSpecializationArgs();
      unsigned Part = Args && Args->size() == 1 &&
                              Args->get(0).getKind() ==
                                  TemplateArgument::Integral
                          ? Args->get(0).getAsIntegral().getZExtValue()
                          : 0;
      bool OneSide = (Part & 3) == 1 || (Part & 3) == 2;
      if (!OneSide || (Self && Part > 2) || (Part & ~15u) ||
          (Part & 12) == 12)
        return Unsupported("'" + Name.str() + "' with this mode");
      Term->K = Self ? EigenTerm::Kind::SelfAdjoint
                     : EigenTerm::Kind::Triangular;
      Term->Part = Part;
      Term->A = lowerEigenTerm(Object, Pre);
      if (!Term->A)
        return nullptr;
      shapeAsOperand(*Term);
      Term->Mixes |= Self;
      Term->Plain = Term->A->Plain;
      return Term;
    }
    // m.diagonal() (a column of min(rows, cols) coefficients) and
    // v.asDiagonal() (a square matrix, zero off the diagonal; a product
    // with it scales rows or columns, diagonalProduct).
    if (N == 0 && (Name == "diagonal" || Name == "asDiagonal")) {
      bool As = Name == "asDiagonal";
      Term->K = As ? EigenTerm::Kind::AsDiagonal : EigenTerm::Kind::Diagonal;
      Term->A = lowerEigenTerm(Object, Pre);
      if (!Term->A)
        return nullptr;
      const EigenTerm &A = *Term->A;
      auto Known = [](const ExprP &X) { return X->K == ir::ExprKind::Const; };
      ExprP N;
      if (As)
        N = Known(A.Rows) && Known(A.Cols)
                ? ir::intConst(IndexTy, A.Rows->IVal.getExtValue() *
                                            A.Cols->IVal.getExtValue())
                : materialize(ir::mul(A.Rows, A.Cols, IndexTy), Pre, "_n",
                              Loc);
      else if (Known(A.Rows) && Known(A.Cols))
        N = ir::intConst(IndexTy, std::min(A.Rows->IVal.getExtValue(),
                                           A.Cols->IVal.getExtValue()));
      else
        N = materialize(ir::cond(ir::binary(BO_LT, A.Rows, A.Cols,
                                            Ctx.BoolTy, Loc),
                                 A.Rows, A.Cols, IndexTy),
                        Pre, "_n", Loc);
      Term->Rows = N;
      Term->Cols = As ? N : ir::intConst(IndexTy, 1);
      Term->Scalar = A.Scalar;
      Term->Reads = A.Reads;
      Term->Mixes = true; // reads coefficients other than its own
      return Term;
    }
    // Views read in place: col(k), row(k), block(i, j, r, c) (sizes also
    // as template arguments), topRows(n) and the other sides and
    // corners, and on vectors head(n), tail(n), segment(i, n).
    llvm::SmallVector<const clang::Expr *, 4> ViewArgs;
    llvm::SmallVector<int64_t, 2> ViewFixed;
    unsigned Arity = blockViewArity(Name);
    if (Arity && blockViewIntegers(MC, Arity, ViewArgs, ViewFixed)) {
      Term->K = EigenTerm::Kind::Block;
      Term->A = lowerEigenTerm(Object, Pre);
      if (!Term->A)
        return nullptr;
      const EigenTerm &A = *Term->A;
      llvm::SmallVector<ExprP, 4> Ints;
      for (const clang::Expr *Arg : ViewArgs) {
        ExprP X = lowerExpr(Arg, Pre);
        if (!X)
          return nullptr;
        // A size known before the loops stays as written (`D.rows()`, a
        // const int): a local sized by it in a loop can be sized there.
        if (X->K == ir::ExprKind::Const && X->Ty->isIntegerType())
          X = ir::intConst(IndexTy, X->IVal.getExtValue());
        else if (knownBeforeLoops(*X))
          X = ir::cast(IndexTy, X);
        else
          X = materialize(ir::cast(IndexTy, X), Pre, "_at", Loc);
        Ints.push_back(X);
      }
      for (int64_t F : ViewFixed)
        Ints.push_back(ir::intConst(IndexTy, F));
      bool Vector = A.Rows->isOne() || A.Cols->isOne();
      bool Column = A.Cols->isOne();
      ExprP Zero = ir::intConst(IndexTy, 0), One = ir::intConst(IndexTy, 1);
      if ((Name == "head" || Name == "tail" || Name == "segment") && !Vector)
        return Unsupported(("'" + Name + "' of a matrix").str());
      ExprP Off = Zero, Len;
      if (Name == "head") {
        Len = Ints[0];
      } else if (Name == "tail") {
        Len = Ints[0];
        Off = ir::sub(Column ? A.Rows : A.Cols, Len, IndexTy);
      } else if (Name == "segment") {
        Off = Ints[0];
        Len = Ints[1];
      }
      if (Name == "col") {
        Term->RowOffset = Zero;
        Term->ColOffset = Ints[0];
        Term->Rows = A.Rows;
        Term->Cols = One;
      } else if (Name == "row") {
        Term->RowOffset = Ints[0];
        Term->ColOffset = Zero;
        Term->Rows = One;
        Term->Cols = A.Cols;
      } else if (Name == "block") {
        Term->RowOffset = Ints[0];
        Term->ColOffset = Ints[1];
        Term->Rows = Ints[2];
        Term->Cols = Ints[3];
      } else if (Name.ends_with("Rows") || Name.ends_with("Cols")) {
        // topRows(n), bottomRows(n), middleRows(i, n), and the columns'.
        bool Rows = Name.ends_with("Rows");
        ExprP Len = Ints.back();
        ExprP Whole = Rows ? A.Rows : A.Cols;
        ExprP At = Name.starts_with("middle") ? Ints[0]
                   : Name.starts_with("bottom") || Name.starts_with("right")
                       ? ir::sub(Whole, Len, IndexTy)
                       : Zero;
        Term->RowOffset = Rows ? At : Zero;
        Term->ColOffset = Rows ? Zero : At;
        Term->Rows = Rows ? Len : A.Rows;
        Term->Cols = Rows ? A.Cols : Len;
      } else if (Name.ends_with("Corner")) {
        Term->Rows = Ints[0];
        Term->Cols = Ints[1];
        Term->RowOffset = Name.starts_with("bottom")
                              ? ir::sub(A.Rows, Ints[0], IndexTy)
                              : Zero;
        Term->ColOffset = Name.contains("Right")
                              ? ir::sub(A.Cols, Ints[1], IndexTy)
                              : Zero;
      } else {
        Term->RowOffset = Column ? Off : Zero;
        Term->ColOffset = Column ? Zero : Off;
        Term->Rows = Column ? Len : One;
        Term->Cols = Column ? One : Len;
      }
      Term->Scalar = A.Scalar;
      Term->Reads = A.Reads;
      Term->Mixes = true; // reads coefficients other than its own
      return Term;
    }
    if (N == 1 && (Name == "cwiseProduct" || Name == "cwiseQuotient"))
      return Binary(Name == "cwiseProduct" ? EigenTerm::Kind::CwiseProduct
                                           : EigenTerm::Kind::CwiseQuotient,
                    Object, MC->getArg(0));
    // a.cwiseMax(b), an array's a.max(b); b an object or a number (the
    // ReLU's a.cwiseMax(0.0)), which is then a constant of a's shape.
    bool Bound = Name == "cwiseMax" || Name == "cwiseMin" ||
                 ((Name == "max" || Name == "min") &&
                  isArrayExpression(Object->getType()));
    if (N == 1 && Bound) {
      EigenTerm::Kind K = Name == "cwiseMax" || Name == "max"
                              ? EigenTerm::Kind::Max
                              : EigenTerm::Kind::Min;
      if (!bare(MC->getArg(0))->getType()->isArithmeticType())
        return Binary(K, Object, MC->getArg(0));
      Term->K = K;
      Term->A = lowerEigenTerm(Object, Pre);
      ExprP V = Term->A ? lowerExpr(MC->getArg(0), Pre) : nullptr;
      if (!V)
        return nullptr;
      auto B = std::make_unique<EigenTerm>();
      B->K = EigenTerm::Kind::Constant;
      B->Loc = Loc;
      B->Scalar = Term->A->Scalar;
      B->Rows = Term->A->Rows;
      B->Cols = Term->A->Cols;
      B->Plain = Term->A->Plain;
      B->Value = materialize(convertResult(V, B->Scalar, Pre), Pre, "_bound",
                             Loc);
      Term->B = std::move(B);
      shapeAsOperand(*Term);
      return Term;
    }
    if (N == 1 && Name == "cross") {
      // Of 3-vectors of the same shape (Eigen checks the size at compile
      // time), shaped as they are.
      auto T = Binary(EigenTerm::Kind::Cross, Object, MC->getArg(0));
      if (T)
        T->Mixes = true;
      return T;
    }
    if (N == 0 && Name == "normalized") {
      // a / a.norm(), the norm evaluated once before the loops.
      Term->K = EigenTerm::Kind::DivideByScalar;
      Term->A = lowerEigenTerm(Object, Pre);
      if (!Term->A)
        return nullptr;
      Term->Scalar = Term->A->Scalar;
      ExprP Norm = reduceEigen("norm", *Term->A, nullptr, Pre, Loc);
      if (!Norm)
        return nullptr;
      // As Eigen: a zero vector is returned as it is (divided by 1).
      Norm = materialize(Norm, Pre, "_norm", Loc);
      QualType NT = Norm->Ty;
      Term->Value = materialize(
          ir::cond(ir::binary(BO_GT, Norm, ir::floatConst(NT, 0), Ctx.BoolTy,
                              Loc),
                   Norm, ir::floatConst(NT, 1), NT),
          Pre, "_norm", Loc);
      Term->Rows = Term->A->Rows;
      Term->Cols = Term->A->Cols;
      Term->Reads = Term->A->Reads;
      Term->Mixes = true; // every coefficient reads the norm of all
      return Term;
    }
    // a.pow(p) for a number p; a.inverse() and a.cwiseInverse(): 1 / a.
    if (N == 1 && Name == "pow" &&
        bare(MC->getArg(0))->getType()->isArithmeticType()) {
      std::unique_ptr<EigenTerm> T =
          Scaled(EigenTerm::Kind::Pow, Object, MC->getArg(0));
      if (T && !(T->Fn = stdMathFunction(Ctx, "pow", T->Scalar, 2)))
        return Unsupported("'pow()' without std::pow declared for its "
                           "scalar type");
      return T;
    }
    bool Inverse = Name == "cwiseInverse" ||
                   (Name == "inverse" && isArrayExpression(bare(Object)->getType()));
    if (N == 0 && Inverse) {
      Term->K = EigenTerm::Kind::ScalarOver;
      Term->A = lowerEigenTerm(Object, Pre);
      if (!Term->A)
        return nullptr;
      Term->Scalar = Term->A->Scalar;
      Term->Value = ir::floatConst(Term->Scalar, 1);
      shapeAsOperand(*Term);
      return Term;
    }
    static const char *const Functions[] = {
        "exp",   "log",   "sqrt",      "tanh",      "sin",      "cos",
        "tan",   "asin",  "acos",      "atan",      "sinh",     "cosh",
        "expm1", "log1p", "log10",     "abs",       "square",   "cube",
        "abs2",  "cwiseAbs", "cwiseAbs2", "cwiseSqrt"};
    if (N == 0 && llvm::is_contained(Functions, Name)) {
      Term->K = EigenTerm::Kind::Function;
      Term->A = lowerEigenTerm(Object, Pre);
      if (!Term->A)
        return nullptr;
      Term->Scalar = Term->A->Scalar;
      bool Power = Name == "square" || Name == "abs2" || Name == "cwiseAbs2" ||
                   Name == "cube";
      if (Name == "cube")
        Term->Value = ir::intConst(Ctx.IntTy, 3);
      if (!Power) {
        StringRef Fn = Name == "cwiseAbs"    ? "abs"
                       : Name == "cwiseSqrt" ? "sqrt"
                                             : Name;
        Term->Fn = stdMathFunction(Ctx, Fn == "abs" ? "fabs" : Fn, Term->Scalar);
        if (!Term->Fn)
          return Unsupported(("'" + Name + "()' without std::" + Fn +
                              " declared for its scalar type")
                                 .str());
      }
      shapeAsOperand(*Term);
      return Term;
    }
    return Unsupported(("the operation '" + Name + "'").str());
  }
  // Vector3d(a, b, c) inside an expression, or passed to a function: a
  // new local holding its coefficients.
  if (const CXXConstructExpr *CE = coefficientConstruct(E)) {
    std::optional<EigenShape> Shape = eigenShape(CE->getType());
    if (Shape && !Shape->View && Shape->isVector()) {
      ExprP Temp = eigenTemporary("_v", CE->getType().getUnqualifiedType(),
                                  nullptr, nullptr, "an Eigen vector", Pre,
                                  Loc);
      if (!Temp || !assignCoefficients(CE, Temp, Pre))
        return nullptr;
      return eigenVariableTerm(Temp, *Shape, Loc);
    }
  }
  if (const auto *CE = dyn_cast<CallExpr>(E))
    if (const FunctionDecl *FD = CE->getDirectCallee()) {
      if (const auto *M = dyn_cast<CXXMethodDecl>(FD);
          M && M->isStatic() && isInEigen(M))
        if (std::unique_ptr<EigenTerm> Made = lowerEigenNullary(CE, Pre))
          return Made;
      if (isInEigen(FD))
        return Unsupported("the call of '" + FD->getNameAsString() + "'");
      // A function of the user's returning an Eigen object of dynamic
      // size (fixed-size ones are handled above): its body in place, its
      // result a local of the caller.
      if (const CallExpr *Call = containerResultCall(CE, CE->getType())) {
        const FunctionDecl *Callee = Call->getDirectCallee();
        if (!Callee->hasBody() && Instantiate)
          Instantiate(const_cast<FunctionDecl *>(Callee), Loc);
        llvm::SmallVector<const clang::Expr *, 4> Args(
            Call->arguments().begin(), Call->arguments().end());
        ExprP R = inlineBody(Callee, {}, Args, Pre, Loc,
                             "function returning an Eigen object");
        std::optional<EigenShape> Shape = eigenShape(CE->getType());
        if (!R || !Shape)
          return nullptr;
        return eigenVariableTerm(R, *Shape, Loc);
      }
      if (!usesPoisoned(E) && FD->getReturnType()->isReferenceType())
        Diags.report(Loc, Diag::NotSupported)
            << ("calling '" + FD->getNameAsString() +
                "', which returns a reference to an Eigen object")
            << "return the object by value, or pass the one it would "
               "return to the caller's expression";
      else if (!usesPoisoned(E))
        Diags.report(Loc, Diag::NotSupported)
            << ("calling '" + FD->getNameAsString() +
                "' (a function returning an Eigen object of dynamic size)")
            << "let it write the result into an output parameter "
               "('Eigen::VectorXd &out'), or return a fixed-size type";
      return nullptr;
    }
  return Unsupported("this kind of operand");
}

std::unique_ptr<EigenTerm>
FunctionLowering::diagonalProduct(std::unique_ptr<EigenTerm> P) {
  if (!P || P->K != EigenTerm::Kind::Product)
    return P;
  bool Left = P->A->K == EigenTerm::Kind::AsDiagonal;
  bool Right = P->B->K == EigenTerm::Kind::AsDiagonal;
  if (!Left && !Right)
    return P;
  // D B scales B's rows, A D scales A's columns (of D D, the rows of the
  // right one): no sum over an inner index, and no matrix of zeros made.
  P->K = Left ? EigenTerm::Kind::ScaleRows : EigenTerm::Kind::ScaleCols;
  std::unique_ptr<EigenTerm> &D = Left ? P->A : P->B;
  D = std::move(D->A);
  // Coefficient-wise but for the vector read at the row or column index:
  // a matrix result reads other coefficients of the vector's variable.
  P->Mixes = P->A->Mixes || P->B->Mixes ||
             !(P->Rows->isOne() || P->Cols->isOne());
  return P;
}

std::unique_ptr<EigenTerm>
FunctionLowering::lowerEigenNullary(const CallExpr *CE, ir::Block &Pre) {
  const auto *M = cast<CXXMethodDecl>(CE->getDirectCallee());
  StringRef Name = M->getIdentifier() ? M->getName() : "";
  bool Constant = Name == "Constant";
  int Unit = llvm::StringSwitch<int>(Name)
                 .Case("UnitX", 0)
                 .Case("UnitY", 1)
                 .Case("UnitZ", 2)
                 .Case("UnitW", 3)
                 .Default(-1);
  if (Name != "Zero" && Name != "Ones" && !Constant && Name != "Identity" &&
      Unit < 0)
    return nullptr;
  QualType Plain = plainObjectType(Ctx, CE->getType());
  std::optional<EigenShape> Shape = eigenShape(Plain);
  if (Unit >= 0) {
    // Vector3d::UnitX(): a new local, zeros and a one.
    std::optional<uint64_t> N = containerFixedSize(Plain);
    if (!Shape || !Shape->isVector() || !N || uint64_t(Unit) >= *N ||
        CE->getNumArgs())
      return nullptr;
    SourceLocation Loc = CE->getExprLoc();
    ExprP Temp = eigenTemporary("_unit", Plain.getUnqualifiedType(), nullptr,
                                nullptr, "a unit vector", Pre, Loc);
    if (!Temp)
      return nullptr;
    QualType Elem = Temp->Ty->getPointeeType();
    for (uint64_t I = 0; I < *N; ++I)
      Pre.push_back(ir::assign(
          ir::index(Temp, ir::intConst(Ctx.getSizeType(), int64_t(I)), Elem),
          ir::floatConst(Elem, I == uint64_t(Unit) ? 1 : 0), BO_Assign, Loc));
    return eigenVariableTerm(Temp, *Shape, Loc);
  }
  unsigned Sizes = CE->getNumArgs() - (Constant ? 1 : 0);
  if (!Shape || CE->getNumArgs() < (Constant ? 1u : 0u))
    return nullptr;
  // The extents: fixed by the type, or the arguments (n for a vector,
  // rows and columns for a matrix).
  bool Vector = Shape->isVector();
  unsigned Dynamic = (Shape->Rows < 0) + (Shape->Cols < 0);
  if (!(Sizes == 0 && Dynamic == 0) && !(Sizes == 1 && Vector) &&
      !(Sizes == 2 && !Vector))
    return nullptr;
  QualType IndexTy = Ctx.getPointerDiffType();
  SourceLocation Loc = CE->getExprLoc();
  llvm::SmallVector<ExprP, 2> Args;
  for (unsigned I = 0; I < Sizes; ++I) {
    ExprP X = lowerExpr(CE->getArg(I), Pre);
    if (!X)
      return nullptr;
    // A size known before the loops stays an expression, so that a local
    // it sizes in a loop can be sized there once (LowerContainerInit.cpp).
    Args.push_back(X->K == ir::ExprKind::Const && X->Ty->isIntegerType()
                       ? ir::intConst(IndexTy, X->IVal.getExtValue())
                   : LoopDepth && knownBeforeLoops(*X)
                       ? ir::cast(IndexTy, X)
                       : materialize(ir::cast(IndexTy, X), Pre, "_n", Loc));
  }
  auto Term = std::make_unique<EigenTerm>();
  Term->Loc = Loc;
  Term->K = Name == "Identity" ? EigenTerm::Kind::Identity
                               : EigenTerm::Kind::Constant;
  Term->Scalar = Shape->Scalar.getUnqualifiedType();
  auto Extent = [&](int64_t Fixed, unsigned Arg) {
    return Fixed >= 0 ? ir::intConst(IndexTy, Fixed) : Args[Arg];
  };
  if (Sizes == 1) { // a vector's size
    Term->Rows = Shape->Cols == 1 ? Extent(Shape->Rows, 0) : Extent(1, 0);
    Term->Cols = Shape->Cols == 1 ? Extent(1, 0) : Extent(Shape->Cols, 0);
  } else {
    Term->Rows = Sizes ? Args[0] : Extent(Shape->Rows, 0);
    Term->Cols = Sizes ? Args[1] : Extent(Shape->Cols, 0);
  }
  if (Term->K == EigenTerm::Kind::Constant) {
    ExprP V = ir::floatConst(Term->Scalar, Name == "Ones" ? 1 : 0);
    if (Constant) {
      V = lowerExpr(CE->getArg(Sizes), Pre);
      if (!V)
        return nullptr;
      V = materialize(convertResult(V, Term->Scalar, Pre), Pre, "_fill", Loc);
    }
    Term->Value = V;
  }
  return Term;
}

} // namespace fluxion
