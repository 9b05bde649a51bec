//===- LowerEigenUses.cpp - Where Eigen expressions are used --------------===//
//
// Each place an Eigen expression (LowerEigenExpr.cpp) is used is a loop
// over the coefficients of its result:
//
//   y = e, y += e, y -= e (also through noalias()), a local's initialiser
//       one assignment per coefficient of y; a product whose left factor is
//       a column-major matrix variable is accumulated into y column by
//       column first (columnwiseProduct), and the coefficient-wise
//       operations above it then read it there
//   e.sum(), squaredNorm, norm, mean, prod, trace, dot, maxCoeff, minCoeff
//       a loop into a local
//   double r = x.transpose() * y (a 1x1 result)
//       its coefficient (0, 0)
//
// Sizes the types do not fix are checked at run time (eigen_same_size).
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

#include <functional>

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

bool FunctionLowering::isEigenReduction(StringRef Name, unsigned Args) {
  if (Args == 1)
    return Name == "dot";
  return Args == 0 && (Name == "sum" || Name == "squaredNorm" ||
                       Name == "trace" ||
                       Name == "norm" || Name == "mean" || Name == "prod" ||
                       Name == "maxCoeff" || Name == "minCoeff");
}

ExprP FunctionLowering::reduceEigen(StringRef Name, const EigenTerm &T,
                                    const EigenTerm *Other, ir::Block &Pre,
                                    SourceLocation Loc) {
  QualType S = T.Scalar;
  QualType IndexTy = Ctx.getPointerDiffType();
  auto Local = [&](StringRef Label, ExprP Start) {
    Var *Acc = F->makeVar(Var::Kind::Local, ("_" + Label).str(), S);
    F->Locals.push_back(Acc);
    Pre.push_back(ir::assign(ir::ref(Acc), Start, BO_Assign, Loc));
    return Acc;
  };
  // A coefficient read twice is read once into a temporary, unless it is
  // an element.
  auto Once = [&](ExprP C, ir::Block &B) {
    const ir::Expr *X = C.get();
    while (X->K == ir::ExprKind::Cast)
      X = X->Ops[0].get();
    return X->isLValue() || X->K == ir::ExprKind::Const
               ? C
               : materialize(C, B, "_x", Loc);
  };
  bool OK = true;
  auto Sum = [&](StringRef Label,
                 llvm::function_ref<ExprP(ExprP, ExprP, ExprP, ir::Block &)>
                     Term) -> Var * {
    Var *Acc = Local(Label, ir::floatConst(S, 0));
    OK &= forEachEigenCoefficient(
        T, Pre, [&](ExprP C, ExprP I, ExprP J, ir::Block &B) {
          ExprP X = Term(C, I, J, B);
          if (!X) {
            OK = false;
            return;
          }
          B.push_back(ir::assign(ir::ref(Acc), X, BO_AddAssign, Loc));
        });
    return Acc;
  };
  auto Squares = [&](ExprP C, ExprP, ExprP, ir::Block &B) {
    ExprP X = Once(C, B);
    return ir::mul(X, X, S);
  };
  ExprP R;
  if (Name == "sum" || Name == "mean") {
    Var *Acc = Sum("sum", [](ExprP C, ExprP, ExprP, ir::Block &) { return C; });
    R = ir::ref(Acc, Loc);
    if (Name == "mean")
      R = ir::div(R, ir::cast(S, ir::mul(T.Rows, T.Cols, IndexTy)), S);
  } else if (Name == "squaredNorm" || Name == "norm") {
    R = ir::ref(Sum("squared_norm", Squares), Loc);
    if (Name == "norm") {
      FunctionDecl *Sqrt = stdMathFunction(Ctx, "sqrt", S);
      if (!Sqrt) {
        Diags.report(Loc, Diag::NotSupported)
            << "'norm()' without a declaration of std::sqrt for '" +
                   S.getAsString() + "'"
            << "include <cmath>";
        return nullptr;
      }
      // Calls stand alone on the right of an assignment (lowerCall).
      R = materialize(ir::call(Sqrt, {R}, S, Loc), Pre, "_norm", Loc);
    }
  } else if (Name == "dot" && Other) {
    // Vectors of the same size, whichever their orientation: a row's k-th
    // coefficient is (0, k), a column's (k, 0).
    auto Size = [&](const EigenTerm &X) {
      return X.Rows->isOne()   ? X.Cols
             : X.Cols->isOne() ? X.Rows
                               : ir::mul(X.Rows, X.Cols, IndexTy);
    };
    if (!sameExtent(Size(T), Size(*Other), 5, Pre, Loc))
      return nullptr;
    bool Across = T.Rows->isOne() != Other->Rows->isOne();
    R = ir::ref(Sum("dot",
                    [&](ExprP C, ExprP I, ExprP J, ir::Block &B) -> ExprP {
                      ExprP O = Across ? eigenCoefficient(*Other, J, I, B)
                                       : eigenCoefficient(*Other, I, J, B);
                      return O ? ir::mul(C, O, S) : nullptr;
                    }),
                Loc);
  } else if (Name == "trace") {
    // The diagonal's sum: min(rows, cols) coefficients.
    Var *Acc = Local("trace", ir::floatConst(S, 0));
    ExprP N = ir::cond(ir::binary(BO_LT, T.Rows, T.Cols, Ctx.BoolTy, Loc),
                       T.Rows, T.Cols, IndexTy);
    if (T.Rows->K == ir::ExprKind::Const && T.Cols->K == ir::ExprKind::Const)
      N = T.Rows->IVal.getExtValue() < T.Cols->IVal.getExtValue() ? T.Rows
                                                                   : T.Cols;
    appendIndexLoop(0, N, Loc, Pre, [&](ExprP K, ir::Block &B) {
      ExprP C = eigenCoefficient(T, K, K, B);
      if (!C) {
        OK = false;
        return;
      }
      B.push_back(ir::assign(ir::ref(Acc), C, BO_AddAssign, Loc));
    });
    R = ir::ref(Acc, Loc);
  } else if (Name == "prod") {
    Var *Acc = Local("prod", ir::floatConst(S, 1));
    OK &= forEachEigenCoefficient(
        T, Pre, [&](ExprP C, ExprP, ExprP, ir::Block &B) {
          B.push_back(ir::assign(ir::ref(Acc), ir::mul(ir::ref(Acc), C, S),
                                 BO_Assign, Loc));
        });
    R = ir::ref(Acc, Loc);
  } else if (Name == "maxCoeff" || Name == "minCoeff") {
    // The first extreme coefficient, as Eigen's visitor selects it: its
    // derivative is the result's.
    ExprP Zero = ir::intConst(IndexTy, 0);
    ExprP First = eigenCoefficient(T, Zero, Zero, Pre);
    if (!First)
      return nullptr;
    Var *Acc = Local(Name == "maxCoeff" ? "max_coeff" : "min_coeff", First);
    BinaryOperatorKind Better = Name == "maxCoeff" ? BO_GT : BO_LT;
    OK &= forEachEigenCoefficient(
        T, Pre, [&](ExprP C, ExprP, ExprP, ir::Block &B) {
          ExprP X = Once(C, B);
          ir::Block Take;
          Take.push_back(ir::assign(ir::ref(Acc), X, BO_Assign, Loc));
          B.push_back(ir::ifStmt(
              ir::binary(Better, X, ir::ref(Acc), Ctx.BoolTy, Loc),
              std::move(Take), {}, Loc));
        });
    R = ir::ref(Acc, Loc);
  }
  return OK ? R : nullptr;
}

bool FunctionLowering::lowerEigenAssignment(ExprP Dst, BinaryOperatorKind Op,
                                            const clang::Expr *Rhs,
                                            ir::Block &Pre,
                                            SourceLocation Loc) {
  if (Dst->Ty->getPointeeType().isConstQualified()) {
    Diags.report(Loc, Diag::NotSupported)
        << ("assigning to '" + eigenStorageName(Dst) +
            "', which is read-only here")
        << "assign to a non-const Eigen variable";
    return false;
  }
  std::unique_ptr<EigenTerm> R = lowerEigenTerm(Rhs, Pre);
  return R && assignEigenTerm(Dst, Op, R, Pre, Loc);
}

/// Whether places A and B, objects held by others, may overlap: places in
/// different variables do not (as for any two variables of the function),
/// nor do two different members of objects of one class.
static bool mayOverlap(const ir::Expr &A, const ir::Expr &B) {
  if (A.rootVar() && B.rootVar() && A.rootVar() != B.rootVar())
    return false;
  if (A.K == ir::ExprKind::Member && B.K == ir::ExprKind::Member) {
    if (A.Field != B.Field)
      return A.Field->getParent() != B.Field->getParent();
    return mayOverlap(*A.Ops[0], *B.Ops[0]);
  }
  return true;
}

/// Whether T reads Dst, an object held by another, or what may overlap it.
static bool readsHeld(const EigenTerm &T, const ir::Expr &Dst) {
  if (T.K == EigenTerm::Kind::Variable) {
    if (ExprP Held = heldEigenObject(T.Storage))
      return mayOverlap(*Held, Dst);
    return T.Storage->rootVar() == Dst.rootVar();
  }
  return (T.A && readsHeld(*T.A, Dst)) || (T.B && readsHeld(*T.B, Dst));
}

/// Whether a part of T that reads coefficients other than the one it
/// computes reads V: `H + d * d.transpose()` mixes, but in a product that
/// does not read H, so H may be assigned it. A coefficient-wise sum,
/// difference, product, quotient, max, min or cast, and one with a number
/// that does not read V, is looked through; anything else that mixes and
/// reads V counts whole.
static bool mixingReads(const EigenTerm &T, const Var *V) {
  if (!T.Mixes || !T.Reads.count(V))
    return false;
  using K = EigenTerm::Kind;
  bool Coefficientwise =
      T.K == K::Add || T.K == K::Subtract || T.K == K::CwiseProduct ||
      T.K == K::CwiseQuotient || T.K == K::Max || T.K == K::Min ||
      T.K == K::Cast;
  bool WithNumber = T.K == K::Scale || T.K == K::DivideByScalar ||
                    T.K == K::AddScalar || T.K == K::SubScalar ||
                    T.K == K::ScalarMinus || T.K == K::ScalarOver;
  if (WithNumber && T.Value) {
    bool NumberReads = false;
    ir::forEachExpr(*T.Value, [&](const ir::Expr &E) {
      NumberReads |= E.K == ir::ExprKind::VarRef && E.V == V;
    });
    Coefficientwise = !NumberReads;
  }
  bool Operands = (T.A && T.A->Mixes) || (T.B && T.B->Mixes);
  if (!Coefficientwise || !Operands)
    return true;
  return (T.A && mixingReads(*T.A, V)) || (T.B && mixingReads(*T.B, V));
}

bool FunctionLowering::assignEigenTerm(ExprP Dst, BinaryOperatorKind Op,
                                       const std::unique_ptr<EigenTerm> &R,
                                       ir::Block &Pre, SourceLocation Loc,
                                       const EigenTerm *View) {
  // The variable written, or the object holding the member written (whose
  // reads then count as reads of the destination).
  Var *V = Dst->rootVar();
  EigenShape Shape = *eigenShape(eigenStorageType(Dst));
  std::string Name = eigenStorageName(Dst);
  // A member is read by the expression only through that member (another
  // member of the same object is other memory: `s.y = s.A * s.x`).
  ExprP Held = heldEigenObject(Dst);
  bool ReadsDst = Held ? readsHeld(*R, *Held) : R->Reads.count(V) > 0;
  if (!R->Scalar.isNull() &&
      !Ctx.hasSameUnqualifiedType(R->Scalar, Shape.Scalar.getUnqualifiedType())) {
    Diags.report(Loc, Diag::NotSupported)
        << "an Eigen expression of another scalar type"
        << ("convert it with .cast<" +
            Shape.Scalar.getUnqualifiedType().getAsString() + ">()");
    return false;
  }
  // Eigen's aliasing rule: a product or transpose reading the destination
  // needs a temporary; so does any expression reading the variable a view
  // writes (`v.segment(1, n) = v.segment(0, n)` reads what it overwrote).
  if (View && ReadsDst) {
    Diags.report(Loc, Diag::NotSupported)
        << ("assigning to a view of '" + Name +
            "' an expression that reads '" + (Held ? Name : V->Name) + "'")
        << "assign the expression to a local first, then the local to the "
           "view";
    return false;
  }
  if (R->Mixes && (Held ? ReadsDst : mixingReads(*R, V))) {
    Diags.report(Loc, Diag::NotSupported)
        << ("assigning to '" + Name +
            "' an expression that reads other coefficients of '" +
            (Held ? Name : V->Name) +
            "' than the one it computes (a product, a transpose, a cross "
            "product, a norm)")
        << "assign it to another variable (a local), then copy that";
    return false;
  }
  ExprP DstRef = Held ? Dst : ir::ref(V, Loc);
  std::unique_ptr<EigenTerm> Whole = eigenVariableTerm(DstRef, Shape, Loc);
  // What is assigned: the variable, or the view of it.
  const EigenTerm *DstTerm = View ? View : Whole.get();
  // The sizes must agree: checked here when the types fix them, and at run
  // time otherwise (Eigen would resize the destination instead).
  auto Known = [](const ExprP &X) { return X->K == ir::ExprKind::Const; };
  bool Static = Known(R->Rows) && Known(R->Cols) && Known(DstTerm->Rows) &&
                Known(DstTerm->Cols);
  // A vector takes a vector of either orientation.
  auto Count = [](const EigenTerm &T) -> int64_t {
    return T.Rows->IVal.getExtValue() * T.Cols->IVal.getExtValue();
  };
  bool DstVector = View ? View->Rows->isOne() || View->Cols->isOne()
                        : Shape.isVector();
  bool VectorPair = (R->Rows->isOne() || R->Cols->isOne()) && DstVector;
  if (Static) {
    bool Same = VectorPair ? Count(*R) == Count(*DstTerm)
                           : R->Rows->IVal == DstTerm->Rows->IVal &&
                                 R->Cols->IVal == DstTerm->Cols->IVal;
    if (!Same) {
      Diags.report(Loc, Diag::NotSupported)
          << ("assigning an Eigen expression of another shape to '" +
              Name + "'")
          << "give both sides the same number of rows and columns";
      return false;
    }
  } else {
    QualType L = Ctx.LongTy;
    auto Arg = [&](ExprP X) { return ir::cast(L, X); };
    ExprP DR = VectorPair ? ir::mul(DstTerm->Rows, DstTerm->Cols, L)
                          : DstTerm->Rows;
    ExprP DC = VectorPair ? ir::intConst(L, 1) : DstTerm->Cols;
    ExprP RR = VectorPair ? ir::mul(R->Rows, R->Cols, L) : R->Rows;
    ExprP RC = VectorPair ? ir::intConst(L, 1) : R->Cols;
    if (!runtimeCheck("eigen_same_size", {Arg(DR), Arg(DC), Arg(RR), Arg(RC)},
                      Pre, Loc))
      return false;
  }
  // A dynamic-size product into the whole variable is one call of
  // Eigen's kernels; other products are evaluated by calls into new
  // locals (LowerEigenProduct.cpp).
  // `a *= b`, `a /= b` on arrays: coefficient by coefficient, products
  // evaluated first.
  bool Scales = Op == BO_MulAssign || Op == BO_DivAssign;
  if (!View && !Scales) {
    bool Handled = false;
    if (!assignProduct(DstRef, Shape, Op, *R, Pre, Loc, Handled))
      return false;
    if (Handled)
      return true;
  }
  if (!evaluateProducts(*R, Pre))
    return false;
  QualType Elem = Dst->Ty->getPointeeType();
  QualType IndexTy = Ctx.getPointerDiffType();
  // The destination's element at coefficient (I, J) of the right side's
  // shape: a vector takes a vector of either orientation; a view is offset
  // in its variable.
  bool DstColumn = DstTerm->Cols->isOne();
  auto Place = [&](ExprP I, ExprP J) {
    if (VectorPair) {
      ExprP K = R->Cols->isOne() ? I : J;
      ExprP Zero = ir::intConst(IndexTy, 0);
      I = DstColumn ? K : Zero;
      J = DstColumn ? Zero : K;
    }
    if (View && View->K == EigenTerm::Kind::Diagonal)
      return eigenElement(*Whole, I, I);
    if (View) {
      I = ir::add(I, View->RowOffset, IndexTy);
      J = ir::add(J, View->ColOffset, IndexTy);
    }
    return eigenElement(*Whole, I, J);
  };
  // A product of a column-major matrix is accumulated column by column
  // into the destination (contiguous, and so is its reverse sweep); what
  // is applied to it coefficient by coefficient then reads it there.
  bool SameOrientation = !VectorPair || DstColumn == R->Cols->isOne();
  EigenTerm *P = SameOrientation && !View && !Scales
                     ? columnwiseProduct(*R, Op)
                     : nullptr;
  if (P) {
    bool Whole = P == R.get();
    // for j < cols: Body(j), without a loop for a vector.
    auto Columns = [&](ir::Block &Out,
                       llvm::function_ref<void(ExprP, ir::Block &)> Body) {
      if (P->Cols->isOne())
        Body(ir::intConst(IndexTy, 0), Out);
      else
        appendIndexLoop(0, P->Cols, Loc, Out, Body);
    };
    if (Op == BO_Assign)
      Columns(Pre, [&](ExprP J, ir::Block &Col) {
        appendIndexLoop(0, P->Rows, Loc, Col, [&](ExprP I, ir::Block &B) {
          B.push_back(ir::assign(Place(I, J), ir::floatConst(Elem, 0),
                                 BO_Assign, Loc));
        });
      });
    BinaryOperatorKind Acc = Op == BO_SubAssign ? BO_SubAssign : BO_AddAssign;
    bool OK = true;
    Columns(Pre, [&](ExprP J, ir::Block &Col) {
      appendIndexLoop(0, P->A->Cols, Loc, Col, [&](ExprP K, ir::Block &In) {
        ExprP B = eigenCoefficient(*P->B, K, J, In);
        if (!B) {
          OK = false;
          return;
        }
        if (!ir::isTrivial(*B))
          B = materialize(B, In, "_b", Loc);
        appendIndexLoop(0, P->A->Rows, Loc, In, [&](ExprP I, ir::Block &Row) {
          ExprP A = eigenCoefficient(*P->A, I, K, Row);
          Row.push_back(ir::assign(
              Place(I, J),
              ir::cast(Elem.getUnqualifiedType(), ir::mul(A, B, P->Scalar)),
              Acc, Loc));
        });
      });
    });
    if (!OK || Whole)
      return OK;
    // The product is now the destination's coefficient at the same place.
    *P = std::move(*eigenVariableTerm(DstRef, Shape, Loc));
    P->Rows = R->Rows;
    P->Cols = R->Cols;
    Op = BO_Assign;
  }
  QualType Scalar = Elem.getUnqualifiedType();
  return forEachEigenCoefficient(
      *R, Pre, [&](ExprP C, ExprP I, ExprP J, ir::Block &B) {
        ExprP X = Place(I, J);
        C = ir::cast(Scalar, C);
        if (Scales)
          B.push_back(ir::assign(X,
                                 Op == BO_MulAssign ? ir::mul(X, C, Scalar)
                                                    : ir::div(X, C, Scalar),
                                 BO_Assign, Loc));
        else
          B.push_back(ir::assign(X, C, Op, Loc));
      });
}

bool FunctionLowering::assignToArray(ExprP Dst, BinaryOperatorKind Op,
                                     const clang::Expr *Rhs, ir::Block &Pre,
                                     SourceLocation Loc,
                                     const EigenTerm *View) {
  if (Dst->Ty->getPointeeType().isConstQualified()) {
    Diags.report(Loc, Diag::NotSupported)
        << ("assigning to '" + eigenStorageName(Dst) +
            "', which is read-only here")
        << "assign to a non-const Eigen variable";
    return false;
  }
  std::unique_ptr<EigenTerm> R;
  if (bare(Rhs)->getType()->isArithmeticType()) {
    // A number, the same at every coefficient of the destination.
    ExprP V = lowerExpr(Rhs, Pre);
    if (!V)
      return false;
    std::unique_ptr<EigenTerm> Whole = eigenVariableTerm(
        Dst, *eigenShape(eigenStorageType(Dst)), Loc);
    const EigenTerm &Like = View ? *View : *Whole;
    R = std::make_unique<EigenTerm>();
    R->K = EigenTerm::Kind::Constant;
    R->Loc = Loc;
    R->Scalar = Whole->Scalar;
    R->Rows = Like.Rows;
    R->Cols = Like.Cols;
    R->Value = materialize(convertResult(V, Whole->Scalar, Pre), Pre, "_fill",
                           Loc);
  } else {
    R = lowerEigenTerm(Rhs, Pre);
  }
  return R && assignEigenTerm(Dst, Op, R, Pre, Loc, View);
}

/// The operator of a compound assignment Eigen overloads: =, +=, -=, *=,
/// /= (BO_Comma for any other).
static BinaryOperatorKind assignmentKind(OverloadedOperatorKind Op) {
  switch (Op) {
  case OO_Equal:
    return BO_Assign;
  case OO_PlusEqual:
    return BO_AddAssign;
  case OO_MinusEqual:
    return BO_SubAssign;
  case OO_StarEqual:
    return BO_MulAssign;
  case OO_SlashEqual:
    return BO_DivAssign;
  default:
    return BO_Comma;
  }
}

bool isArrayCompound(BinaryOperatorKind Op, const clang::Expr *Rhs) {
  bool Number = bare(Rhs)->getType()->isArithmeticType();
  return ((Op == BO_AddAssign || Op == BO_SubAssign) && Number) ||
         ((Op == BO_MulAssign || Op == BO_DivAssign) && !Number);
}

bool FunctionLowering::lowerWholeArrayAssignment(const CXXOperatorCallExpr *Op,
                                                 ir::Block &Pre, ExprP &Out) {
  BinaryOperatorKind K = assignmentKind(Op->getOperator());
  if (K == BO_Comma || Op->getNumArgs() != 2)
    return false;
  // `a.array() op= e` (or `a.matrix().array()`, `b.matrix() = e`): the
  // variable itself, seen as an array or a matrix.
  const clang::Expr *Target = bare(Op->getArg(0));
  const clang::Expr *Of = Target;
  while (const auto *MC = dyn_cast<CXXMemberCallExpr>(Of)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (!M || !M->getIdentifier() || !isInEigen(M) || MC->getNumArgs() ||
        (M->getName() != "array" && M->getName() != "matrix"))
      return false;
    Of = bare(MC->getImplicitObjectArgument());
  }
  if (Of == Target || isa<CallExpr>(Of) || !eigenShape(Of->getType()))
    return false;
  bool Array = isArrayExpression(Target->getType());
  bool Compound = Array && isArrayCompound(K, Op->getArg(1));
  // `x.array() /= 2.0`: the variable scaled, as `x /= 2.0` scales it.
  bool Scaled = (K == BO_MulAssign || K == BO_DivAssign) &&
                bare(Op->getArg(1))->getType()->isArithmeticType();
  if (!Compound && !Scaled && K != BO_Assign && K != BO_AddAssign &&
      K != BO_SubAssign)
    return false;
  SourceLocation Loc = Op->getExprLoc();
  ExprP Dst = eigenVariableOf(Of, Pre, Array ? "array()" : "matrix()",
                              /*Writable=*/true);
  if (!Dst)
    return true;
  if (Scaled && !Compound) {
    // What `x *= s` on the variable does.
    const auto *M = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    std::optional<EigenShape> Shape =
        eigenShape(Of->getType().getNonReferenceType());
    if (M && Shape)
      lowerEigenCall(Op, M, Dst, *Shape, Pre, Out);
    return true;
  }
  if (Compound ? assignToArray(Dst, K, Op->getArg(1), Pre, Loc, nullptr)
               : lowerEigenAssignment(Dst, K, Op->getArg(1), Pre, Loc))
    Out = Dst;
  return true;
}

bool FunctionLowering::lowerEigenViewAssignment(const clang::Expr *Target,
                                                BinaryOperatorKind Op,
                                                const clang::Expr *Rhs,
                                                ir::Block &Pre,
                                                SourceLocation Loc,
                                                ExprP &Out) {
  Out = nullptr;
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Target);
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || !isInEigen(M))
    return false;
  // A view seen as an array or a matrix (`H.diagonal().array() += l`) is
  // the view.
  while (M->getIdentifier() &&
         (M->getName() == "array" || M->getName() == "matrix") &&
         MC->getNumArgs() == 0) {
    const auto *In =
        dyn_cast<CXXMemberCallExpr>(bare(MC->getImplicitObjectArgument()));
    const CXXMethodDecl *IM = In ? In->getMethodDecl() : nullptr;
    if (!IM || !IM->getIdentifier() || !isInEigen(IM))
      return false;
    MC = In;
    M = IM;
    Target = In;
  }
  StringRef Name = M->getName();
  unsigned N = MC->getNumArgs();
  // The extents as arguments, or as template arguments (`head<2>()`, whose
  // extent is also a defaulted argument, `block<2, 2>(i, j)`).
  llvm::SmallVector<const clang::Expr *, 4> ViewArgs;
  llvm::SmallVector<int64_t, 2> ViewFixed;
  unsigned Arity = blockViewArity(Name);
  bool View = (Arity && blockViewIntegers(MC, Arity, ViewArgs, ViewFixed)) ||
              (N == 0 && Name == "diagonal");
  if (!View)
    return false;
  // The view's term reads its variable in place (LowerEigenExpr.cpp):
  // Block (or Diagonal) over Variable.
  std::unique_ptr<EigenTerm> Dst = lowerEigenTerm(Target, Pre);
  if (!Dst)
    return true;
  const EigenTerm *Of = Dst->A.get();
  bool Diagonal = Dst->K == EigenTerm::Kind::Diagonal;
  if ((Dst->K != EigenTerm::Kind::Block && !Diagonal) || !Of ||
      Of->K != EigenTerm::Kind::Variable ||
      Of->Storage->Ty->getPointeeType().isConstQualified()) {
    Diags.report(Loc, Diag::NotSupported)
        << ("assigning to '" + Name + "(...)' of an Eigen object that is not "
                                      "a writable variable of the function")
               .str()
        << "assign to a view of a local or output Eigen variable";
    return true;
  }
  // The variable stands for the call's value, used for its effect.
  // An array expression multiplied or divided in (`v.head(n).array() *=
  // w.array()`): coefficient by coefficient.
  if ((Op == BO_MulAssign || Op == BO_DivAssign) &&
      !bare(Rhs)->getType()->isArithmeticType()) {
    if (assignToArray(Of->Storage, Op, Rhs, Pre, Loc, Dst.get()))
      Out = Of->Storage;
    return true;
  }
  if (Op == BO_MulAssign || Op == BO_DivAssign) {
    // v.col(j) *= s: each coefficient of the view scaled where it is.
    ExprP S = lowerExpr(Rhs, Pre);
    if (!S)
      return true;
    QualType Scalar = Of->Storage->Ty->getPointeeType().getUnqualifiedType();
    S = materialize(convertResult(S, Scalar, Pre), Pre, "_scale", Loc);
    QualType IndexTy = Ctx.getPointerDiffType();
    appendIndexLoop(0, Dst->Cols, Loc, Pre, [&](ExprP J, ir::Block &Col) {
      appendIndexLoop(0, Dst->Rows, Loc, Col, [&](ExprP I, ir::Block &B) {
        ExprP X = Diagonal
                      ? eigenElement(*Of, I, I)
                      : eigenElement(*Of, ir::add(I, Dst->RowOffset, IndexTy),
                                     ir::add(J, Dst->ColOffset, IndexTy));
        B.push_back(ir::assign(X,
                               Op == BO_MulAssign ? ir::mul(X, S, Scalar)
                                                  : ir::div(X, S, Scalar),
                               BO_Assign, Loc));
      });
    });
    Out = Of->Storage;
    return true;
  }
  // An expression, or a number added to (or taken from, or given to)
  // every coefficient of an array view: `H.diagonal().array() += l`.
  if (assignToArray(Of->Storage, Op, Rhs, Pre, Loc, Dst.get()))
    Out = Of->Storage;
  return true;
}

const CXXConstructExpr *coefficientConstruct(const clang::Expr *E) {
  const auto *CE = dyn_cast<CXXConstructExpr>(bare(E));
  std::optional<uint64_t> N =
      CE ? containerFixedSize(CE->getType()) : std::nullopt;
  if (!N || CE->getNumArgs() != *N || *N < 2 ||
      !llvm::all_of(CE->arguments(), [](const clang::Expr *A) {
        return A->getType()->isArithmeticType();
      }))
    return nullptr;
  return CE;
}

bool FunctionLowering::assignCoefficients(const CXXConstructExpr *CE,
                                          ExprP Dst, ir::Block &Out) {
  SourceLocation Loc = CE->getExprLoc();
  QualType Elem = Dst->Ty->getPointeeType();
  for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
    ExprP Value = lowerExpr(CE->getArg(I), Out);
    if (!Value)
      return false;
    Out.push_back(ir::assign(
        ir::index(Dst, ir::intConst(Ctx.getSizeType(), I), Elem),
        convertResult(Value, Elem, Out), BO_Assign, Loc));
  }
  return true;
}

bool FunctionLowering::lowerEigenReturn(const clang::Expr *V,
                                        ir::Block &Out) {
  SourceLocation Loc = V->getExprLoc();
  ExprP Dst = ir::ref(Result, Loc);
  // `return Vector3d(x, y, z);`: one assignment per coefficient.
  if (const CXXConstructExpr *CE = coefficientConstruct(V))
    return assignCoefficients(CE, Dst, Out);
  // A dynamic-size result takes the size of what is returned.
  QualType T = Result->Origin->getType().getNonReferenceType();
  if (!containerFixedSize(T)) {
    if (const auto *CE = dyn_cast<CXXConstructExpr>(V->IgnoreImplicit());
        CE && CE->getNumArgs() == 1)
      V = CE->getArg(0);
    return assignSizing(Dst, *eigenShape(T), V, Out, Loc);
  }
  return lowerEigenAssignment(Dst, BO_Assign, V, Out, Loc);
}

EigenTerm *FunctionLowering::columnwiseProduct(EigenTerm &R,
                                               BinaryOperatorKind Op) {
  // The one product of the tree, reached from the root through
  // coefficient-wise operations only.
  EigenTerm *Found = nullptr;
  unsigned Products = 0;
  std::function<void(EigenTerm &, bool)> Walk = [&](EigenTerm &T,
                                                    bool OnPath) {
    if (T.K == EigenTerm::Kind::Product) {
      ++Products;
      if (OnPath)
        Found = &T;
    }
    bool Coefficientwise =
        T.K != EigenTerm::Kind::Transpose && T.K != EigenTerm::Kind::Block &&
        T.K != EigenTerm::Kind::Product && T.K != EigenTerm::Kind::Cross &&
        T.K != EigenTerm::Kind::Diagonal &&
        T.K != EigenTerm::Kind::AsDiagonal &&
        T.K != EigenTerm::Kind::SelfAdjoint;
    if (T.A)
      Walk(*T.A, OnPath && Coefficientwise);
    if (T.B)
      Walk(*T.B, OnPath && Coefficientwise);
  };
  Walk(R, true);
  if (Products != 1 || !Found)
    return nullptr;
  // Only `=` rewrites what surrounds the product; `+=` and `-=` take the
  // product alone.
  if (Op != BO_Assign && Found != &R)
    return nullptr;
  // Column by column pays off when the left factor's columns are
  // contiguous: a column-major matrix variable.
  const EigenTerm *A = Found->A.get();
  while (A->K == EigenTerm::Kind::Same)
    A = A->A.get();
  if (A->K != EigenTerm::Kind::Variable || A->Shape.RowMajor ||
      A->Shape.isVector())
    return nullptr;
  return Found;
}

bool FunctionLowering::lowerEigenExpressionCall(const CallExpr *E,
                                                ir::Block &Pre, ExprP &Out) {
  Out = nullptr;
  SourceLocation Loc = E->getExprLoc();
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && lowerWholeArrayAssignment(Op, Pre, Out))
    return true;
  // y.noalias() = e, += e, -= e; the same into a view (X.col(k) = e).
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getNumArgs() == 2 &&
      (Op->getOperator() == OO_Equal || Op->getOperator() == OO_PlusEqual ||
       Op->getOperator() == OO_MinusEqual)) {
    BinaryOperatorKind K = Op->getOperator() == OO_Equal       ? BO_Assign
                           : Op->getOperator() == OO_PlusEqual ? BO_AddAssign
                                                               : BO_SubAssign;
    const clang::Expr *Target = bare(Op->getArg(0));
    const auto *NA = dyn_cast<CXXMemberCallExpr>(Target);
    const CXXMethodDecl *M = NA ? NA->getMethodDecl() : nullptr;
    bool NoAlias = M && M->getIdentifier() && M->getName() == "noalias";
    if (NoAlias)
      Target = bare(NA->getImplicitObjectArgument());
    if (lowerEigenViewAssignment(Target, K, Op->getArg(1), Pre, Loc, Out))
      return true;
    if (!NoAlias)
      return false;
    bool Sizing = K == BO_Assign && unsizedEigenLocal(Target);
    ExprP Dst = eigenVariableOf(Target, Pre, "noalias()", /*Writable=*/false);
    if (!Dst)
      return true;
    if (Sizing ? assignSizing(Dst, *eigenShape(eigenStorageType(Dst)),
                              Op->getArg(1), Pre, Loc)
               : lowerEigenAssignment(Dst, K, Op->getArg(1), Pre, Loc))
      Out = Dst;
    return true;
  }
  // v.col(j) *= s, v.head(n) /= s; v.head(n).array() *= w.array().
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getNumArgs() == 2 &&
      (Op->getOperator() == OO_StarEqual ||
       Op->getOperator() == OO_SlashEqual) &&
      (Op->getArg(1)->getType()->isArithmeticType() ||
       isArrayExpression(bare(Op->getArg(0))->getType())) &&
      lowerEigenViewAssignment(bare(Op->getArg(0)),
                               Op->getOperator() == OO_StarEqual ? BO_MulAssign
                                                                 : BO_DivAssign,
                               Op->getArg(1), Pre, Loc, Out))
    return true;
  // A method, called as one (`e.coeff(i)`, `e.x()`) or as an operator
  // (`e(i)`, `e[i]`).
  const CXXMethodDecl *M = nullptr;
  const clang::Expr *Object = nullptr;
  llvm::SmallVector<const clang::Expr *, 2> Args;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    M = MC->getMethodDecl();
    Object = MC->getImplicitObjectArgument();
    Args.append(MC->arg_begin(), MC->arg_end());
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
             OC && OC->getNumArgs() >= 2 &&
             (OC->getOperator() == OO_Call ||
              OC->getOperator() == OO_Subscript)) {
    M = dyn_cast_or_null<CXXMethodDecl>(OC->getDirectCallee());
    Object = OC->getArg(0);
    Args.append(OC->arg_begin() + 1, OC->arg_end());
  }
  if (!M || !Object || !eigenNamespaceType(Object->getType()))
    return false;
  // A 1x1 expression read as a number (`double r = x.transpose() * y;`).
  if (isa<CXXConversionDecl>(M)) {
    std::unique_ptr<EigenTerm> T = lowerEigenTerm(Object, Pre);
    if (!T)
      return true;
    if (!T->Rows->isOne() || !T->Cols->isOne()) {
      Diags.report(Loc, Diag::NotSupported)
          << "reading an Eigen expression that is not 1x1 as a number"
          << "reduce it (sum(), dot(), squaredNorm()) or read a coefficient";
      return true;
    }
    // `x.transpose() * A * y`: A * y by Eigen's kernels.
    if (!evaluateProducts(*T, Pre))
      return true;
    ExprP Zero = ir::intConst(Ctx.getPointerDiffType(), 0);
    if (ExprP C = eigenCoefficient(*T, Zero, Zero, Pre))
      Out = materialize(ir::cast(E->getType().getUnqualifiedType(), C), Pre,
                        "_scalar", Loc);
    return true;
  }
  StringRef Name = M->getIdentifier() ? M->getName() : "";
  // A coefficient of an expression's value (`a.cross(b).z()`, `f(x)(1)`):
  // read where it is, once.
  bool Axis = Args.empty() && Name.size() == 1 &&
              StringRef("xyzw").contains(Name);
  bool Indexed = (Name == "coeff" || M->getOverloadedOperator() == OO_Call ||
                  M->getOverloadedOperator() == OO_Subscript) &&
                 (Args.size() == 1 || Args.size() == 2);
  if (Axis || Indexed) {
    std::unique_ptr<EigenTerm> T = lowerEigenTerm(Object, Pre);
    if (!T)
      return true;
    // One index into a matrix would be a position in storage order, which
    // the expression does not have.
    if (Args.size() == 1 && !T->Rows->isOne() && !T->Cols->isOne()) {
      Diags.report(Loc, Diag::NotSupported)
          << "one index into an Eigen expression that is not a vector"
          << "give the row and the column: e(i, j)";
      return true;
    }
    QualType IndexTy = Ctx.getPointerDiffType();
    llvm::SmallVector<ExprP, 2> Ix;
    if (Axis)
      Ix.push_back(ir::intConst(IndexTy, StringRef("xyzw").find(Name[0])));
    for (const clang::Expr *A : Args) {
      ExprP X = lowerExpr(A, Pre);
      if (!X)
        return true;
      Ix.push_back(ir::cast(IndexTy, X));
    }
    ExprP Zero = ir::intConst(IndexTy, 0);
    ExprP I = Ix[0], J = Ix.size() == 2 ? Ix[1] : Zero;
    if (Ix.size() == 1 && T->Rows->isOne()) // a row vector's one index
      std::swap(I, J);
    if (ExprP C = eigenCoefficient(*T, I, J, Pre))
      Out = materialize(
          ir::cast(E->getType().getNonReferenceType().getUnqualifiedType(), C),
          Pre, "_coef", Loc);
    return true;
  }
  if (Name == "determinant" && Args.empty()) {
    Out = lowerEigenDeterminant(Object, E->getType(), Pre, Loc);
    return true;
  }
  if (!isa<CXXMemberCallExpr>(E) || !isEigenReduction(Name, Args.size()))
    return false;
  std::unique_ptr<EigenTerm> T = lowerEigenTerm(Object, Pre);
  if (!T)
    return true;
  std::unique_ptr<EigenTerm> Other;
  if (Args.size() == 1 && !(Other = lowerEigenTerm(Args[0], Pre)))
    return true;
  // Products reduced whole are evaluated by Eigen's kernels first (a
  // trace reads only the diagonal: loops).
  if (Name != "trace" && (!evaluateProducts(*T, Pre) ||
                          (Other && !evaluateProducts(*Other, Pre))))
    return true;
  Out = reduceEigen(Name, *T, Other.get(), Pre, Loc);
  if (Out)
    Out = ir::cast(E->getType().getNonReferenceType().getUnqualifiedType(),
                   Out);
  return true;
}

} // namespace fluxion
