//===- ReadExtent.cpp - How far a function reads through a pointer --------===//
#include "fluxion/engine/ReadExtent.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace clang;

namespace fluxion {
namespace {

/// One walk of the body that collects every reference, which references
/// only read a value, the subscripts of the pointer parameter, and the
/// counters declared by `for` statements.
class UseScanner : public RecursiveASTVisitor<UseScanner> {
public:
  explicit UseScanner(const ParmVarDecl *P) : P(P) {}

  bool VisitImplicitCastExpr(ImplicitCastExpr *E) {
    if (E->getCastKind() == CK_LValueToRValue)
      if (auto *Ref = dyn_cast<DeclRefExpr>(E->getSubExpr()->IgnoreParens()))
        Reads.insert(Ref);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    Refs[E->getDecl()].push_back(E);
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    if (auto *Ref = dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts()))
      if (Ref->getDecl() == P) {
        Subscripts.push_back(E);
        Bases.insert(Ref);
      }
    return true;
  }
  bool VisitForStmt(ForStmt *S) {
    if (auto *DS = dyn_cast_or_null<DeclStmt>(S->getInit()))
      if (DS->isSingleDecl())
        if (auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl()))
          LoopOf[VD] = S;
    return true;
  }

  /// Every reference to D only reads its value (Except aside).
  bool onlyRead(const ValueDecl *D, const DeclRefExpr *Except = nullptr) const {
    auto It = Refs.find(D);
    if (It == Refs.end())
      return true;
    return llvm::all_of(It->second, [&](const DeclRefExpr *R) {
      return R == Except || Reads.count(R);
    });
  }

  const ParmVarDecl *P;
  llvm::DenseSet<const DeclRefExpr *> Reads, Bases;
  llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const DeclRefExpr *, 4>>
      Refs;
  llvm::SmallVector<const ArraySubscriptExpr *, 4> Subscripts;
  llvm::DenseMap<const VarDecl *, const ForStmt *> LoopOf;
};

const DeclRefExpr *refTo(const Expr *E, const ValueDecl *D = nullptr) {
  auto *Ref = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  return Ref && (!D || Ref->getDecl() == D) ? Ref : nullptr;
}

std::optional<int64_t> nonNegativeConstant(const Expr *E) {
  auto *Lit = E ? dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts()) : nullptr;
  if (!Lit || Lit->getValue().getActiveBits() > 62)
    return std::nullopt;
  return static_cast<int64_t>(Lit->getValue().getZExtValue());
}

/// The increment of a counted loop: ++i, i++ or i += 1; its reference to I.
const DeclRefExpr *unitIncrement(const Expr *Inc, const VarDecl *I) {
  Inc = Inc ? Inc->IgnoreParens() : nullptr;
  if (auto *U = dyn_cast_or_null<UnaryOperator>(Inc))
    return U->isIncrementOp() ? refTo(U->getSubExpr(), I) : nullptr;
  if (auto *A = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
    auto One = nonNegativeConstant(A->getRHS());
    return A->getOpcode() == BO_AddAssign && One && *One == 1
               ? refTo(A->getLHS(), I)
               : nullptr;
  }
  return nullptr;
}

const ParmVarDecl *countedBound(const UseScanner &Uses, const VarDecl *I,
                                const FunctionDecl *FD);

/// E >= 0: a constant, the counter of an enclosing counted loop (which
/// starts at a value >= 0 and only grows), or a sum of such.
bool nonNegative(const UseScanner &Uses, const Expr *E,
                 const FunctionDecl *FD) {
  if (!E)
    return false;
  if (nonNegativeConstant(E))
    return true;
  E = E->IgnoreParenImpCasts();
  if (auto *B = dyn_cast<BinaryOperator>(E))
    return B->getOpcode() == BO_Add && nonNegative(Uses, B->getLHS(), FD) &&
           nonNegative(Uses, B->getRHS(), FD);
  const DeclRefExpr *Ref = refTo(E);
  auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && countedBound(Uses, V, FD);
}

/// For `for (int i = c; i < n; ++i)`: n, if it is a by-value integer
/// parameter of FD, c >= 0, and the loop changes i only in its increment.
const ParmVarDecl *countedBound(const UseScanner &Uses, const VarDecl *I,
                                const FunctionDecl *FD) {
  auto It = Uses.LoopOf.find(I);
  if (It == Uses.LoopOf.end() || !I->getType()->isIntegerType() ||
      !nonNegative(Uses, I->getInit(), FD))
    return nullptr;
  const ForStmt *L = It->second;
  auto *Cmp = dyn_cast_or_null<BinaryOperator>(
      L->getCond() ? L->getCond()->IgnoreParens() : nullptr);
  if (!Cmp || (Cmp->getOpcode() != BO_LT && Cmp->getOpcode() != BO_GT))
    return nullptr;
  const Expr *Counter = Cmp->getLHS(), *Bound = Cmp->getRHS();
  if (Cmp->getOpcode() == BO_GT)
    std::swap(Counter, Bound);
  const DeclRefExpr *BoundRef = refTo(Bound);
  auto *N = BoundRef ? dyn_cast<ParmVarDecl>(BoundRef->getDecl()) : nullptr;
  if (!refTo(Counter, I) || !N || N->getDeclContext() != FD ||
      !N->getType()->isIntegerType())
    return nullptr;
  const DeclRefExpr *IncRef = unitIncrement(L->getInc(), I);
  if (!IncRef || !Uses.onlyRead(I, IncRef) || !Uses.onlyRead(N))
    return nullptr;
  return N;
}

} // namespace

std::optional<ReadExtent> pointerReadExtent(const FunctionDecl *FD,
                                            unsigned ParamIdx,
                                            bool AnyPointer) {
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || ParamIdx >= Def->getNumParams())
    return std::nullopt;
  const ParmVarDecl *P = Def->getParamDecl(ParamIdx);
  QualType T = P->getType();
  if (!T->isPointerType() ||
      (!AnyPointer && !T->getPointeeType().isConstQualified()))
    return std::nullopt;
  UseScanner Uses(P);
  Uses.TraverseStmt(Def->getBody());
  // Nothing but subscripts may use the pointer (no arithmetic, no passing
  // it on, no reassignment).
  auto Refs = Uses.Refs.find(P);
  if (Refs == Uses.Refs.end())
    return std::nullopt;
  for (const DeclRefExpr *R : Refs->second)
    if (!Uses.Bases.count(R))
      return std::nullopt;
  ReadExtent Extent;
  const ParmVarDecl *Count = nullptr;
  for (const ArraySubscriptExpr *E : Uses.Subscripts) {
    if (auto C = nonNegativeConstant(E->getIdx())) {
      Extent.MinCount = std::max(Extent.MinCount, *C + 1);
      continue;
    }
    const DeclRefExpr *Idx = refTo(E->getIdx());
    auto *I = Idx ? dyn_cast<VarDecl>(Idx->getDecl()) : nullptr;
    const ParmVarDecl *N = I ? countedBound(Uses, I, Def) : nullptr;
    if (!N || (Count && Count != N))
      return std::nullopt;
    Count = N;
  }
  if (!Count)
    return std::nullopt;
  Extent.CountParam = Count->getFunctionScopeIndex();
  return Extent;
}

} // namespace fluxion
