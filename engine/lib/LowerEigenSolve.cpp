//===- LowerEigenSolve.cpp - Solves, inverses, determinants by rules -------===//
//
// `A.llt().solve(b)`, `A.inverse()` and `A.determinant()` are not
// coefficient-wise expressions: their derivatives are a solve with the
// transpose on the same factorisation, never the factorisation's loops
// differentiated. They are lowered to calls of the runtime's
//
//   fluxion::llt_solve(A, b, x)      (ldlt_solve, lu_solve, qr_solve)
//   fluxion::inverse(A, x)
//   fluxion::determinant(A)
//
// on variables of the function: A and b themselves when they are
// variables, else new locals holding their values, and x a new local
// holding the result, which the expression then reads like any variable.
// The calls' derivatives are custom rules written with Eigen
// (runtime/include/fluxion/eigen.hpp), found like a user's rules.
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

/// The runtime function solving with the decomposition Eigen's method
/// Name makes; empty for a decomposition without rules.
static StringRef solveFunction(StringRef Name) {
  return llvm::StringSwitch<StringRef>(Name)
      .Case("llt", "llt_solve")
      .Case("ldlt", "ldlt_solve")
      .Cases("partialPivLu", "lu", "lu_solve")
      .Case("householderQr", "qr_solve")
      .Default("");
}

/// The runtime function solving with M.triangularView<Mode>(); empty for
/// a strictly triangular view.
static StringRef triangularSolveFunction(const CXXMemberCallExpr *View) {
  const TemplateArgumentList *Args =
      View->getMethodDecl()->getTemplateSpecializationArgs();
  if (!Args || Args->size() != 1 ||
      Args->get(0).getKind() != TemplateArgument::Integral)
    return "";
  switch (Args->get(0).getAsIntegral().getZExtValue()) {
  case 1: // Lower
    return "lower_solve";
  case 2: // Upper
    return "upper_solve";
  case 5: // UnitLower
    return "unit_lower_solve";
  case 6: // UnitUpper
    return "unit_upper_solve";
  default:
    return "";
  }
}

bool FunctionLowering::isEigenRuleTerm(const clang::Expr *E) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(bare(E));
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || !isInEigen(M))
    return false;
  // An array's inverse() is coefficient-wise (LowerEigenExpr.cpp).
  if (M->getName() == "inverse" && MC->getNumArgs() == 0)
    return !isArrayExpression(bare(MC->getImplicitObjectArgument())->getType());
  if (M->getName() != "solve" || MC->getNumArgs() != 1)
    return false;
  const auto *Dec =
      dyn_cast<CXXMemberCallExpr>(bare(MC->getImplicitObjectArgument()));
  return Dec && Dec->getMethodDecl() && isInEigen(Dec->getMethodDecl());
}

ExprP FunctionLowering::eigenTemporary(StringRef Name, QualType T,
                                       const std::unique_ptr<EigenTerm> &Value,
                                       ExprP Count, StringRef What,
                                       ir::Block &Pre, SourceLocation Loc) {
  std::optional<EigenShape> Shape = eigenShape(T);
  std::optional<uint64_t> Fixed = containerFixedSize(T);
  // A dynamic-size matrix takes its rows from the value it is given.
  bool DynamicMatrix = Shape && !Fixed && !Shape->isVector();
  if (!Shape || (DynamicMatrix && !Value)) {
    Diags.report(Loc, Diag::NotSupported)
        << (What + " whose result is a matrix of dynamic size").str()
        << "solve for one vector at a time, or give the matrices fixed "
           "sizes";
    return nullptr;
  }
  // In a loop, a dynamic-size one is sized once, before the outermost
  // loop, when its size is known there (`layer(W, X.col(s))` has W's
  // rows), and assigned again at each iteration like a fixed-size one.
  bool SizedBeforeLoops =
      LoopDepth && !Fixed && LoopEntry && Count && knownBeforeLoops(*Count) &&
      (!DynamicMatrix || knownBeforeLoops(*Value->Rows));
  if (LoopDepth && !Fixed && !SizedBeforeLoops) {
    // Sized again at each iteration, it would need its old contents and
    // size recorded for the reverse sweep (a fixed-size one is assigned
    // again, like a local array).
    Diags.report(Loc, Diag::NotSupported)
        << (What + " inside a loop").str()
        << "compute it before the loop, into a local, and read the local in "
           "the loop";
    return nullptr;
  }
  auto *VD = VarDecl::Create(Ctx, F->Primal, Loc, Loc, &Ctx.Idents.get(Name),
                             T, Ctx.getTrivialTypeSourceInfo(T, Loc), SC_None);
  Var *V = F->makeVar(Var::Kind::Local, Name,
                      Ctx.getPointerType(Shape->Scalar.getUnqualifiedType()),
                      VD);
  F->Locals.push_back(V);
  ExprP Storage = ir::ref(V, Loc);
  ir::Block &SizeAt = SizedBeforeLoops ? *LoopEntry : Pre;
  if (!Fixed)
    SizeAt.push_back(ir::resize(
        Storage,
        materialize(ir::cast(Ctx.getSizeType(), Count), SizeAt, "_n", Loc),
        Loc,
        DynamicMatrix
            ? materialize(ir::cast(Ctx.getSizeType(), Value->Rows), SizeAt,
                          "_rows", Loc)
            : nullptr));
  if (Value && !assignEigenTerm(Storage, BO_Assign, Value, Pre, Loc))
    return nullptr;
  return Storage;
}

bool FunctionLowering::eigenRuleOperand(const clang::Expr *X, StringRef Name,
                                        StringRef What, EigenRuleOperand &Out,
                                        ir::Block &Pre) {
  Out.Term = lowerEigenTerm(X, Pre);
  if (!Out.Term)
    return false;
  // A variable is passed as itself; a member of an object as a copy.
  if (Out.Term->K == EigenTerm::Kind::Variable &&
      !heldEigenObject(Out.Term->Storage)) {
    Out.Type = Out.Term->Storage->V->Origin->getType()
                   .getNonReferenceType()
                   .getUnqualifiedType();
    Out.Storage = Out.Term->Storage;
    return true;
  }
  Out.Type = plainObjectType(Ctx, bare(X)->getType());
  if (Out.Type.isNull())
    return false;
  Out.Storage = eigenTemporary(
      Name, Out.Type, Out.Term,
      ir::mul(Out.Term->Rows, Out.Term->Cols, Ctx.getPointerDiffType()), What,
      Pre, X->getExprLoc());
  return Out.Storage != nullptr;
}

ExprP FunctionLowering::callEigenRule(StringRef Fn,
                                      llvm::ArrayRef<ExprP> Inputs,
                                      llvm::ArrayRef<QualType> InputTypes,
                                      ExprP Output, QualType OutputType,
                                      QualType ResultType, ir::Block &Pre,
                                      SourceLocation Loc) {
  llvm::SmallVector<QualType, 3> Types;
  llvm::SmallVector<ExprP, 3> Args;
  for (unsigned I = 0; I < Inputs.size(); ++I) {
    // Read-only, as for a `const T&` parameter.
    QualType Elem = Inputs[I]->Ty->getPointeeType();
    Args.push_back(Elem.isConstQualified()
                       ? Inputs[I]
                       : ir::cast(Ctx.getPointerType(Elem.withConst()),
                                  Inputs[I]));
    Types.push_back(Ctx.getLValueReferenceType(InputTypes[I].withConst()));
  }
  if (Output) {
    Args.push_back(Output);
    Types.push_back(Ctx.getLValueReferenceType(OutputType));
  }
  FunctionDecl *Rule = Runtime ? Runtime(Fn, Types, Loc) : nullptr;
  if (!Rule)
    return nullptr;
  ExprP Call = ir::call(Rule, Args, ResultType, Loc);
  if (ResultType->isVoidType()) {
    Pre.push_back(ir::eval(Call, Loc));
    return Output;
  }
  // A call stands alone on the right of an assignment (lowerCall).
  return materialize(Call, Pre, "_det", Loc);
}

bool FunctionLowering::haveEigenRules(StringRef Fn, StringRef What,
                                      SourceLocation Loc) {
  if (!runtimeLookup(Ctx, Fn).empty() && Runtime)
    return true;
  Diags.report(Loc, Diag::NotSupported)
      << (What + " without Fluxion's rules for Eigen's solves").str()
      << "#include <fluxion/eigen.hpp> (or include Eigen before "
         "<fluxion/fluxion.hpp>)";
  return false;
}

std::unique_ptr<EigenTerm>
FunctionLowering::lowerEigenRuleTerm(const clang::Expr *E, ir::Block &Pre) {
  const auto *MC = cast<CXXMemberCallExpr>(bare(E));
  SourceLocation Loc = MC->getExprLoc();
  if (usesPoisoned(E))
    return nullptr;
  bool Inverse = MC->getMethodDecl()->getName() == "inverse";
  const clang::Expr *Matrix = MC->getImplicitObjectArgument();
  StringRef Fn = "inverse";
  std::string What = "an inverse ('inverse()')";
  if (!Inverse) {
    const auto *Dec = cast<CXXMemberCallExpr>(bare(Matrix));
    StringRef DecName = Dec->getMethodDecl()->getName();
    Fn = DecName == "triangularView" ? triangularSolveFunction(Dec)
                                     : solveFunction(DecName);
    if (Fn.empty() || Dec->getNumArgs() != 0) {
      Diags.report(Loc, Diag::NotSupported)
          << ("a linear solve with '" + DecName.str() + "()'" +
              (DecName == "triangularView" ? " of a strictly triangular "
                                             "(singular) matrix"
                                           : ""))
          << "solve with llt(), ldlt(), partialPivLu(), householderQr() or "
             "a triangularView<Lower>, <Upper>, <UnitLower> or <UnitUpper>";
      return nullptr;
    }
    What = ("a linear solve ('" + DecName + "().solve')").str();
    Matrix = Dec->getImplicitObjectArgument();
  }
  if (!haveEigenRules(Fn, What, Loc))
    return nullptr;
  EigenRuleOperand A, B;
  if (!eigenRuleOperand(Matrix, "_solve_A", What, A, Pre) ||
      (!Inverse && !eigenRuleOperand(MC->getArg(0), "_solve_b", What, B, Pre)))
    return nullptr;
  // A square system (householderQr also takes more rows than columns).
  if ((Fn != "qr_solve" &&
       !sameExtent(A.Term->Rows, A.Term->Cols, 3, Pre, Loc)) ||
      (!Inverse && !sameExtent(A.Term->Rows, B.Term->Rows, 4, Pre, Loc)))
    return nullptr;
  // The result: an operand's type when it is the plain type of the result
  // (as the user spelled it), else that plain type.
  QualType XTy = plainObjectType(Ctx, bare(E)->getType());
  if (XTy.isNull())
    return nullptr;
  if (Ctx.hasSameType(XTy, (Inverse ? A : B).Type))
    XTy = (Inverse ? A : B).Type;
  QualType IndexTy = Ctx.getPointerDiffType();
  ExprP Count = ir::mul(A.Term->Cols, Inverse ? A.Term->Rows : B.Term->Cols,
                        IndexTy);
  if (LoopDepth) {
    // The call would write its result again at each iteration, and what a
    // call overwrites is not recorded.
    Diags.report(Loc, Diag::NotSupported)
        << (What + " inside a loop")
        << "compute it before the loop, or in a function of its own called "
           "in the loop";
    return nullptr;
  }
  ExprP X = eigenTemporary(Inverse ? "_inverse" : "_solve", XTy, nullptr,
                           Count, What, Pre, Loc);
  if (!X)
    return nullptr;
  llvm::SmallVector<ExprP, 2> In = {A.Storage};
  llvm::SmallVector<QualType, 2> InTypes = {A.Type};
  if (!Inverse) {
    In.push_back(B.Storage);
    InTypes.push_back(B.Type);
  }
  if (!callEigenRule(Fn, In, InTypes, X, XTy, Ctx.VoidTy, Pre, Loc))
    return nullptr;
  return eigenVariableTerm(X, *eigenShape(XTy), Loc);
}

ExprP FunctionLowering::lowerEigenDeterminant(const clang::Expr *Object,
                                              QualType ResultType,
                                              ir::Block &Pre,
                                              SourceLocation Loc) {
  std::string What = "a determinant ('determinant()')";
  if (!haveEigenRules("determinant", What, Loc))
    return nullptr;
  EigenRuleOperand A;
  if (!eigenRuleOperand(Object, "_det_A", What, A, Pre) ||
      !sameExtent(A.Term->Rows, A.Term->Cols, 3, Pre, Loc))
    return nullptr;
  return callEigenRule("determinant", {A.Storage}, {A.Type}, nullptr,
                       QualType(), A.Term->Scalar, Pre, Loc);
}

} // namespace fluxion
