//===- LowerEigenAuto.cpp - Locals holding Eigen expressions ---------------===//
//
// `auto d = p - q;` declares an Eigen expression object, not a vector: it
// refers to p and q, and each use of d computes p - q from their values at
// that use (a scalar factor, `auto e = s * v`, is copied where e is
// declared). The lowering does the same: d's initialiser is lowered where
// d is declared (scalars and offsets into new locals there), and each use
// of d in an Eigen expression reads a copy of that term, its variables
// where it is used. What cannot be followed is a located error:
//   - a view of a writable variable (`auto c = X.col(k);`), which may be
//     written through;
//   - a solve or an inverse, which lowering evaluates where it is written
//     (Eigen where it is used);
//   - a temporary object inside the expression (`p.normalized()`, the
//     result of a function): the expression refers to it after it is gone;
//   - d read other than as an Eigen expression (lowerDeclRef).
// A use passed to a parameter that only reads it is evaluated into a new
// local there, as for any expression (`f(p - q)`).
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

#include <functional>

using namespace clang;

namespace fluxion {

std::unique_ptr<EigenTerm> cloneEigenTerm(const EigenTerm &T) {
  auto C = std::make_unique<EigenTerm>();
  C->K = T.K;
  C->Scalar = T.Scalar;
  C->Rows = T.Rows;
  C->Cols = T.Cols;
  C->Storage = T.Storage;
  C->Shape = T.Shape;
  C->Value = T.Value;
  C->RowOffset = T.RowOffset;
  C->ColOffset = T.ColOffset;
  C->Part = T.Part;
  C->Fn = T.Fn;
  C->Reads = T.Reads;
  C->Mixes = T.Mixes;
  C->Plain = T.Plain;
  C->Loc = T.Loc;
  if (T.A)
    C->A = cloneEigenTerm(*T.A);
  if (T.B)
    C->B = cloneEigenTerm(*T.B);
  return C;
}

bool FunctionLowering::isEigenExpressionLocal(const VarDecl *VD) {
  QualType T = VD->getType().getNonReferenceType();
  const auto *RD = T->getAsCXXRecordDecl();
  return VD->getInit() && RD && isInEigen(RD) && !eigenShape(T) &&
         !plainObjectType(VD->getASTContext(), T).isNull();
}

bool FunctionLowering::lowerEigenExpressionLocal(const VarDecl *VD,
                                                 ir::Block &Out) {
  SourceLocation Loc = VD->getLocation();
  std::string Name = VD->getNameAsString();
  auto Refuse = [&](std::string What) {
    Diags.report(Loc, Diag::NotSupported)
        << ("'" + Name + "', an 'auto' holding " + What)
        << ("declare it with the type it evaluates to ('Eigen::VectorXd " +
            Name +
            " = ...;', 'Eigen::Vector3d', 'Eigen::MatrixXd'), which holds "
            "values");
    Poisoned.insert(VD);
    return false;
  };
  // A solve or an inverse somewhere in the initialiser.
  std::function<bool(const clang::Stmt *)> HoldsRule =
      [&](const clang::Stmt *S) {
        if (!S)
          return false;
        if (const auto *E = dyn_cast<clang::Expr>(S); E && isEigenRuleTerm(E))
          return true;
        for (const clang::Stmt *C : S->children())
          if (HoldsRule(C))
            return true;
        return false;
      };
  if (HoldsRule(VD->getInit()))
    return Refuse("a solve or an inverse (Eigen computes it where it is "
                  "used)");
  // An object the initialiser makes (normalized(), a function's result):
  // Eigen's expression refers to it once it is destroyed.
  std::function<const clang::CallExpr *(const clang::Stmt *)> Temporary =
      [&](const clang::Stmt *S) -> const clang::CallExpr * {
    if (!S)
      return nullptr;
    if (const auto *CE = dyn_cast<clang::CallExpr>(S))
      if (const FunctionDecl *FD = CE->getDirectCallee();
          FD && eigenShape(FD->getReturnType()) &&
          !FD->getReturnType()->isReferenceType())
        return CE;
    for (const clang::Stmt *C : S->children())
      if (const clang::CallExpr *Found = Temporary(C))
        return Found;
    return nullptr;
  };
  if (const clang::CallExpr *CE = Temporary(VD->getInit()))
    return Refuse("an expression over the result of '" +
                  CE->getDirectCallee()->getNameAsString() +
                  "', a temporary object that is destroyed where '" + Name +
                  "' is declared");
  std::unique_ptr<EigenTerm> T = lowerEigenTerm(VD->getInit(), Out);
  if (!T) {
    Poisoned.insert(VD);
    return false;
  }
  // A view of a variable that may be written through.
  const EigenTerm *X = T.get();
  while (X->K == EigenTerm::Kind::Same || X->K == EigenTerm::Kind::Transpose ||
         X->K == EigenTerm::Kind::Block)
    X = X->A.get();
  if (X != T.get() && X->K == EigenTerm::Kind::Variable &&
      !X->Storage->Ty->getPointeeType().isConstQualified())
    return Refuse("a view of '" + eigenStorageName(X->Storage) +
                  "', which may be written through");
  EigenLocals[VD] = std::move(T);
  return true;
}

} // namespace fluxion
