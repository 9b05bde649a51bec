//===- LowerEigen.cpp - Eigen Matrix and Array variables as storage -------===//
//
// A dense Eigen object (`Eigen::Matrix`, `Eigen::Array`, fixed or dynamic
// size) is a container of its coefficients (DifferentiableTypes.cpp,
// eigenShape), stored column by column unless it is RowMajor. Its member
// calls lower onto what the engine has:
//
//   v(i), v[i], v.coeff(i), v.x() .. v.w()   v[i]
//   m(i, j), m.coeff(i, j)                   m[i + j * rows] (column-major)
//   size(), rows(), cols()                   Size (a constant when fixed)
//   data()                                   the storage
//   sum, squaredNorm, norm, dot, mean,       a counted loop into a local
//   prod, maxCoeff, minCoeff                 (norm: sqrt of squaredNorm)
//   setZero(), setOnes(), setConstant(c),    a counted loop of assignments
//   fill(c)
//   v << a, b, c (comma initialisation)      v[0] = a; v[1] = b; v[2] = c
//
// so the analyses see index loops over a pointer and the adjoint of a
// reduction is the usual reverse loop. Whole-object arithmetic (`A * x`,
// `a + b`, `.transpose()`, blocks, decompositions) is a located error
// naming the operation (refuseEigenOperation).
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

/// The spelling of an Eigen method in a message: `m(i, j)` for the call
/// operator, `name()` otherwise.
static std::string eigenOperationName(const FunctionDecl *FD) {
  if (FD->getOverloadedOperator() != OO_None)
    return "operator" +
           std::string(getOperatorSpelling(FD->getOverloadedOperator()));
  return FD->getNameAsString();
}

void FunctionLowering::lowerEigenCall(const CallExpr *E,
                                      const CXXMethodDecl *Method,
                                      ExprP Storage, const EigenShape &Shape,
                                      ir::Block &Pre, ExprP &Out) {
  Out = nullptr;
  SourceLocation Loc = E->getExprLoc();
  QualType Elem = Storage->Ty->getPointeeType();
  QualType Scalar = Elem.getUnqualifiedType();
  bool IsOperator = isa<CXXOperatorCallExpr>(E);
  llvm::SmallVector<const clang::Expr *, 2> Args;
  for (unsigned I = IsOperator ? 1 : 0; I < E->getNumArgs(); ++I)
    Args.push_back(E->getArg(I));
  OverloadedOperatorKind Op = Method->getOverloadedOperator();
  std::string Name = Method->getIdentifier() ? Method->getName().str() : "";
  QualType IndexTy = Ctx.getPointerDiffType(); // Eigen::Index

  // Extents: constants where the type fixes them (eigenVariableTerm).
  std::unique_ptr<EigenTerm> Whole = eigenVariableTerm(Storage, Shape, Loc);
  auto Extent = [&](ir::Extent Which) -> ExprP {
    if (Which == ir::Extent::Rows)
      return Whole->Rows;
    if (Which == ir::Extent::Cols)
      return Whole->Cols;
    if (Shape.Rows >= 0 && Shape.Cols >= 0)
      return ir::intConst(IndexTy, Shape.Rows * Shape.Cols);
    ExprP Held = heldEigenObject(Storage);
    return ir::sizeOf(Held ? Held : Storage, IndexTy, ir::Extent::Elements);
  };
  auto Index = [&](const clang::Expr *A) -> ExprP {
    // The index as written (`x(i)`): Eigen converts it to its Index.
    ExprP I = lowerExpr(A->IgnoreImpCasts(), Pre);
    if (I && !I->Ty->isIntegerType())
      I = ir::cast(IndexTy, I);
    return I;
  };
  auto Element = [&](ExprP Idx) {
    ExprP R = eigenStorageElement(Storage, Idx, Elem);
    std::const_pointer_cast<ir::Expr>(R)->Loc = Loc;
    return R;
  };

  // Coefficients.
  bool Coefficient = Op == OO_Call || Op == OO_Subscript || Name == "coeff" ||
                     Name == "coeffRef";
  if (Coefficient && Args.size() == 1) {
    if (ExprP I = Index(Args[0]))
      Out = Element(I);
    return;
  }
  if (Coefficient && Args.size() == 2) {
    ExprP I = Index(Args[0]), J = Index(Args[1]);
    if (!I || !J)
      return;
    // Column-major: m(i, j) is m[i + j * rows]; row-major: m[i * cols + j].
    Out = eigenElement(*Whole, I, J);
    std::const_pointer_cast<ir::Expr>(Out)->Loc = Loc;
    return;
  }
  if (Args.empty() && Name.size() == 1 && StringRef("xyzw").contains(Name)) {
    Out = Element(ir::intConst(Ctx.IntTy, StringRef("xyzw").find(Name[0])));
    return;
  }
  if (Args.empty() && (Name == "size" || Name == "rows" || Name == "cols")) {
    ir::Extent Which = Name == "rows"   ? ir::Extent::Rows
                       : Name == "cols" ? ir::Extent::Cols
                                        : ir::Extent::Elements;
    Out = ir::cast(E->getType(), Extent(Which));
    return;
  }
  if (Args.empty() && Name == "data") {
    Out = Storage;
    return;
  }

  if (Args.empty() && Name == "determinant") {
    const auto *MC = cast<CXXMemberCallExpr>(E);
    Out = lowerEigenDeterminant(MC->getImplicitObjectArgument(), Scalar, Pre,
                                Loc);
    return;
  }
  // Reductions: a loop into a local (LowerEigenExpr.cpp).
  if (isEigenReduction(Name, Args.size())) {
    const auto *MC = cast<CXXMemberCallExpr>(E);
    std::unique_ptr<EigenTerm> T =
        lowerEigenTerm(MC->getImplicitObjectArgument(), Pre);
    std::unique_ptr<EigenTerm> Other =
        T && Args.size() == 1 ? lowerEigenTerm(Args[0], Pre) : nullptr;
    // Products reduced whole are evaluated by Eigen's kernels first (a
    // trace reads only the diagonal: loops).
    bool Evaluated = Name == "trace" ||
                     (T && evaluateProducts(*T, Pre) &&
                      (!Other || evaluateProducts(*Other, Pre)));
    if (T && (Args.empty() || Other) && Evaluated)
      if ((Out = reduceEigen(Name, *T, Other.get(), Pre, Loc)))
        Out = ir::cast(Scalar, Out);
    return;
  }

  // Arrays: `a += s`, `a -= s` for a number s; `a *= b`, `a /= b` for an
  // array expression b.
  if (Shape.IsArray && Args.size() == 1 &&
      (Op == OO_PlusEqual || Op == OO_MinusEqual || Op == OO_StarEqual ||
       Op == OO_SlashEqual)) {
    BinaryOperatorKind K = Op == OO_PlusEqual    ? BO_AddAssign
                           : Op == OO_MinusEqual ? BO_SubAssign
                           : Op == OO_StarEqual  ? BO_MulAssign
                                                 : BO_DivAssign;
    if (isArrayCompound(K, Args[0])) {
      if (assignToArray(Storage, K, Args[0], Pre, Loc, nullptr))
        Out = Storage;
      return;
    }
  }
  // a = e, a += e, a -= e for an Eigen expression e; a *= s, a /= s.
  if ((Op == OO_Equal || Op == OO_PlusEqual || Op == OO_MinusEqual) &&
      Args.size() == 1) {
    BinaryOperatorKind K = Op == OO_Equal       ? BO_Assign
                           : Op == OO_PlusEqual ? BO_AddAssign
                                                : BO_SubAssign;
    if (lowerEigenAssignment(Storage, K, Args[0], Pre, Loc))
      Out = Storage;
    return;
  }
  if ((Op == OO_StarEqual || Op == OO_SlashEqual) && Args.size() == 1 &&
      Args[0]->getType()->isArithmeticType() && !Elem.isConstQualified()) {
    ExprP S = lowerExpr(Args[0], Pre);
    if (!S)
      return;
    S = materialize(convertResult(S, Scalar, Pre), Pre, "_scale", Loc);
    appendIndexLoop(0, Extent(ir::Extent::Elements), Loc, Pre,
                    [&](ExprP K, ir::Block &Body) {
                      ExprP X = Element(K);
                      Body.push_back(ir::assign(
                          X,
                          Op == OO_StarEqual ? ir::mul(X, S, Scalar)
                                             : ir::div(X, S, Scalar),
                          BO_Assign, Loc));
                    });
    Out = Storage;
    return;
  }

  // Fills of the whole object, without resizing it.
  bool Fill = (Args.empty() && (Name == "setZero" || Name == "setOnes")) ||
              (Args.size() == 1 && (Name == "setConstant" || Name == "fill"));
  if (Fill) {
    if (Elem.isConstQualified()) {
      Diags.report(Loc, Diag::NotSupported)
          << ("'" + Name + "' on '" + eigenStorageName(Storage) +
              "', which is read-only here")
          << "fill a non-const Eigen variable";
      return;
    }
    ExprP Value = Name == "setZero"  ? ir::floatConst(Scalar, 0)
                  : Name == "setOnes" ? ir::floatConst(Scalar, 1)
                                      : lowerExpr(Args[0], Pre);
    if (!Value)
      return;
    Value = materialize(convertResult(Value, Scalar, Pre), Pre, "_fill", Loc);
    appendIndexLoop(0, Extent(ir::Extent::Elements), Loc, Pre,
                    [&](ExprP K, ir::Block &Body) {
                      Body.push_back(
                          ir::assign(Element(K), Value, BO_Assign, Loc));
                    });
    Out = Storage;
    return;
  }

  std::string TypeName =
      eigenStorageType(Storage).getUnqualifiedType().getAsString();
  if (Name == "resize" || Name == "conservativeResize" ||
      ((Name == "setZero" || Name == "setOnes") && !Args.empty()) ||
      (Name == "setConstant" && Args.size() > 1)) {
    // Only a local declared empty is sized, once (sizeEigenLocal): a size
    // change later would need what it destroys recorded.
    Diags.report(Loc, Diag::NotSupported)
        << ("'" + Name + "' giving '" + eigenStorageName(Storage) +
            "' (a '" + TypeName + "') a size after it has one")
        << "size a local once, where it is declared ('" + TypeName +
               " y(n);') or by the first resize, fill or assignment after "
               "an empty declaration in the same block; use another local "
               "for another size";
    return;
  }
  Diags.report(Loc, Diag::NotSupported)
      << ("the Eigen operation '" + eigenOperationName(Method) + "' on '" +
          eigenStorageName(Storage) + "' (a '" + TypeName + "')")
      << "write it with coefficient loops (v(i), m(i, j)) or with the "
         "operations that are differentiated (docs/eigen.md)";
}

bool FunctionLowering::sizeEigenLocal(const CallExpr *E, StringRef Name,
                                      ExprP Storage, const EigenShape &Shape,
                                      ir::Block &Pre, ExprP &Out) {
  Out = nullptr;
  SourceLocation Loc = E->getExprLoc();
  llvm::SmallVector<const clang::Expr *, 3> Args;
  for (unsigned I = isa<CXXOperatorCallExpr>(E) ? 1 : 0; I < E->getNumArgs();
       ++I)
    Args.push_back(E->getArg(I));
  if (Name == "operator=" && Args.size() == 1) {
    if (assignSizing(Storage, Shape, Args[0], Pre, Loc))
      Out = Storage;
    return true;
  }
  // v.resize(n), m.resize(r, c), v.setZero(n), m.setOnes(r, c),
  // v.setConstant(n, c): the sizes first, a value last.
  bool Constant = Name == "setConstant";
  if (Constant && Args.empty())
    return false;
  unsigned Sizes = Args.size() - (Constant ? 1 : 0);
  if (Sizes != (Shape.isVector() ? 1u : 2u))
    return false;
  for (unsigned I = 0; I < Sizes; ++I)
    if (!Args[I]->IgnoreImpCasts()->getType()->isIntegerType())
      return false;
  QualType SizeTy = Ctx.getSizeType();
  llvm::SmallVector<ExprP, 2> Extents;
  for (unsigned I = 0; I < Sizes; ++I) {
    ExprP X = lowerExpr(Args[I], Pre);
    if (!X)
      return true;
    Extents.push_back(ir::cast(SizeTy, X));
  }
  // Declared in a loop: sized before it, zeros again at each iteration.
  ir::Block *At = sizingBlock(Storage, Extents, Pre, Loc);
  if (!At)
    return true;
  for (unsigned I = 0; I < Sizes; ++I)
    Extents[I] = materialize(Extents[I], *At, I + 1 < Sizes ? "_rows" : "_n",
                             Loc);
  ExprP Fill;
  QualType Elem = Storage->Ty->getPointeeType();
  if (At != &Pre)
    Fill = ir::floatConst(Elem, 0);
  if (Name == "setOnes")
    Fill = ir::floatConst(Elem, 1);
  if (Constant) {
    Fill = lowerExpr(Args.back(), Pre);
    if (!Fill)
      return true;
    Fill = materialize(convertResult(Fill, Elem, Pre), Pre, "_fill", Loc);
  }
  ExprP Rows = Sizes == 2 ? Extents[0] : nullptr;
  ExprP N = Rows ? materialize(ir::mul(Rows, Extents[1], SizeTy), *At, "_n",
                               Loc)
                 : Extents[0];
  // Zeros where Eigen's resize leaves the coefficients as they come.
  At->push_back(ir::resize(Storage, N, Loc, Rows));
  if (Fill)
    appendIndexLoop(0, N, Loc, Pre, [&](ExprP K, ir::Block &Body) {
      Body.push_back(ir::assign(eigenStorageElement(Storage, K, Elem), Fill,
                                BO_Assign, Loc));
    });
  Out = Storage;
  return true;
}

bool FunctionLowering::assignSizing(ExprP Storage, const EigenShape &Shape,
                                    const clang::Expr *Rhs, ir::Block &Pre,
                                    SourceLocation Loc) {
  std::unique_ptr<EigenTerm> R = lowerEigenTerm(Rhs, Pre);
  if (!R)
    return false;
  QualType SizeTy = Ctx.getSizeType();
  ExprP Rows = Shape.isVector() ? nullptr : ir::cast(SizeTy, R->Rows);
  ExprP N =
      ir::cast(SizeTy, ir::mul(R->Rows, R->Cols, Ctx.getPointerDiffType()));
  // Declared in a loop: sized before it.
  ir::Block *At = sizingBlock(Storage, {N}, Pre, Loc);
  if (!At)
    return false;
  if (Rows)
    Rows = materialize(Rows, *At, "_rows", Loc);
  N = materialize(N, *At, "_n", Loc);
  At->push_back(ir::resize(Storage, N, Loc, Rows));
  return assignEigenTerm(Storage, BO_Assign, R, Pre, Loc);
}

const VarDecl *FunctionLowering::unsizedEigenLocal(const clang::Expr *E) const {
  const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  return VD && eigenShape(VD->getType()) && sizedHere(VD) ? VD : nullptr;
}

bool FunctionLowering::sizedHere(const VarDecl *VD) const {
  auto It = UnsizedLocals.find(VD);
  return It != UnsizedLocals.end() && It->second == Scopes.size() &&
         UnsizedInLoops.lookup(VD) == LoopDepth;
}

ir::Block *FunctionLowering::sizingBlock(ExprP Storage,
                                         llvm::ArrayRef<ExprP> Extents,
                                         ir::Block &Pre, SourceLocation Loc) {
  const auto *VD = Storage->K == ir::ExprKind::VarRef
                       ? dyn_cast_or_null<VarDecl>(Storage->V->Origin)
                       : nullptr;
  if (!LoopDepth || !VD || !UnsizedInLoops.count(VD))
    return &Pre;
  if (LoopEntry && llvm::all_of(Extents, [&](const ExprP &X) {
        return knownBeforeLoops(*X);
      }))
    return LoopEntry;
  Diags.report(Loc, Diag::NotSupported)
      << ("sizing the local '" + VD->getNameAsString() +
          "', declared inside a loop, by what the loop computes")
      << "declare it before the loop, or size it by what is known before "
         "the loop (the size of a parameter, or an integer declared before "
         "the loop that nothing changes)";
  return nullptr;
}

bool FunctionLowering::lowerEigenCommaInit(const CallExpr *E, ir::Block &Pre,
                                           ExprP &Out) {
  // `v << a, b, c` is operator,(operator,(operator<<(v, a), b), c): the
  // coefficients in storage order, each a scalar.
  Out = nullptr;
  llvm::SmallVector<const clang::Expr *, 8> Items;
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
  while (Op && Op->getOperator() == OO_Comma && Op->getNumArgs() == 2) {
    Items.push_back(Op->getArg(1));
    Op = dyn_cast<CXXOperatorCallExpr>(Op->getArg(0)->IgnoreImplicit());
  }
  if (!Op || Op->getOperator() != OO_LessLess || Op->getNumArgs() != 2)
    return false;
  const clang::Expr *Object = Op->getArg(0)->IgnoreParenImpCasts();
  std::optional<EigenShape> Shape = eigenShape(Object->getType());
  if (!Shape)
    return false;
  Items.push_back(Op->getArg(1));
  std::reverse(Items.begin(), Items.end());
  SourceLocation Loc = Op->getExprLoc();
  ExprP Storage = eigenVariableOf(Object, Pre, "comma initialisation ('<<')",
                                  /*Writable=*/true);
  if (!Storage)
    return true;
  std::optional<uint64_t> Fixed = containerFixedSize(Object->getType());
  if (Fixed && *Fixed != Items.size()) {
    Diags.report(Loc, Diag::NotSupported)
        << ("comma initialisation with " + std::to_string(Items.size()) +
            " values of an object of " + std::to_string(*Fixed) +
            " coefficients")
        << "give one value per coefficient";
    return true;
  }
  QualType Elem = Storage->Ty->getPointeeType();
  // Values are given row by row: the k-th goes to (k / cols, k % cols).
  int64_t Cols = Shape->isVector() ? 1 : Shape->Cols;
  // Of a dynamic size: as many values as coefficients, checked at run time
  // as Eigen's debug build does, and placed by the extents it has there.
  ExprP DynRows, DynCols;
  if (!Fixed) {
    QualType L = Ctx.LongTy;
    std::unique_ptr<EigenTerm> Whole = eigenVariableTerm(Storage, *Shape, Loc);
    DynRows = materialize(ir::cast(L, Whole->Rows), Pre, "_rows", Loc);
    DynCols = materialize(ir::cast(L, Whole->Cols), Pre, "_cols", Loc);
    if (!runtimeCheck("eigen_comma_count",
                      {ir::mul(DynRows, DynCols, L),
                       ir::intConst(L, int64_t(Items.size()))},
                      Pre, Loc))
      return true;
  }
  // The storage index of the k-th value.
  auto FlatIndex = [&](int64_t K) -> ExprP {
    if (Shape->isVector())
      return ir::intConst(Ctx.IntTy, K);
    if (DynRows) {
      QualType L = Ctx.LongTy;
      ExprP KE = ir::intConst(L, K);
      ExprP Row = ir::binary(BO_Div, KE, DynCols, L);
      ExprP Col = ir::binary(BO_Rem, KE, DynCols, L);
      return Shape->RowMajor ? ir::add(ir::mul(Row, DynCols, L), Col, L)
                             : ir::add(Row, ir::mul(Col, DynRows, L), L);
    }
    int64_t Row = K / Cols, Col = K % Cols;
    return ir::intConst(Ctx.IntTy, Shape->RowMajor ? Row * Shape->Cols + Col
                                                   : Row + Col * Shape->Rows);
  };
  for (size_t K = 0; K < Items.size(); ++K) {
    const clang::Expr *Item = Items[K];
    if (!Item->getType()->isArithmeticType()) {
      Diags.report(Item->getExprLoc(), Diag::NotSupported)
          << "comma initialisation from Eigen blocks or expressions"
          << "give the coefficients one by one, as numbers";
      return true;
    }
    ExprP Value = lowerExpr(Item, Pre);
    if (!Value)
      return true;
    Pre.push_back(ir::assign(eigenStorageElement(Storage, FlatIndex(K), Elem),
                             convertResult(Value, Elem.getUnqualifiedType(),
                                           Pre),
                             BO_Assign, Item->getExprLoc()));
  }
  Out = Storage;
  return true;
}

bool FunctionLowering::refuseEigenOperation(const CallExpr *E) {
  const FunctionDecl *FD = E->getDirectCallee();
  if (!FD)
    return false;
  // An operation of Eigen's: a function or method declared in namespace
  // Eigen (its operators, views and decompositions).
  if (!isInEigen(FD))
    return false;
  if (usesPoisoned(E))
    return true;
  std::string What;
  if (isa<CXXConversionDecl>(FD))
    What = "the conversion of a 1x1 Eigen expression to a number";
  else if (FD->getOverloadedOperator() != OO_None)
    What = "the Eigen operator '" +
           std::string(getOperatorSpelling(FD->getOverloadedOperator())) +
           "' on whole objects";
  else
    What = "the Eigen operation '" + FD->getNameAsString() + "'" +
           (isa<CXXMemberCallExpr>(E) ? " on an Eigen expression" : "");
  Diags.report(E->getExprLoc(), Diag::NotSupported)
      << (What + " (arithmetic on whole Eigen objects, views and "
                 "decompositions are not differentiated yet)")
      << "compute it with loops over the coefficients of Eigen variables "
         "(v(i), m(i, j)) into a local, and use the local";
  return true;
}

} // namespace fluxion
