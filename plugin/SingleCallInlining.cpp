//===- SingleCallInlining.cpp - Inline sweeps called from one place -------===//
#include "SingleCallInlining.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace fluxion {

namespace {
/// Counts the references to the given functions in one body (a call is
/// one reference; so is taking the address).
class ReferenceCounter : public RecursiveASTVisitor<ReferenceCounter> {
public:
  ReferenceCounter(const llvm::SmallPtrSetImpl<const FunctionDecl *> &Known,
                   llvm::DenseMap<const FunctionDecl *, unsigned> &Counts)
      : Known(Known), Counts(Counts) {}

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    auto *FD = dyn_cast<FunctionDecl>(E->getDecl());
    if (!FD)
      return true;
    const FunctionDecl *Canon = FD->getCanonicalDecl();
    if (Known.count(Canon)) {
      ++Counts[Canon];
      if (Canon == Current)
        SelfCalling = true;
    }
    return true;
  }

  const FunctionDecl *Current = nullptr;
  bool SelfCalling = false;

private:
  const llvm::SmallPtrSetImpl<const FunctionDecl *> &Known;
  llvm::DenseMap<const FunctionDecl *, unsigned> &Counts;
};
} // namespace

void inlineSingleCallSweeps(
    llvm::ArrayRef<FunctionDecl *> Generated,
    llvm::function_ref<bool(const FunctionDecl *)> MayInline,
    ASTContext &Ctx) {
  llvm::SmallPtrSet<const FunctionDecl *, 32> Known;
  for (FunctionDecl *FD : Generated)
    Known.insert(FD->getCanonicalDecl());
  llvm::DenseMap<const FunctionDecl *, unsigned> Counts;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Recursive;
  ReferenceCounter Counter(Known, Counts);
  for (FunctionDecl *FD : Generated) {
    Counter.Current = FD->getCanonicalDecl();
    Counter.SelfCalling = false;
    Counter.TraverseStmt(FD->getBody());
    if (Counter.SelfCalling)
      Recursive.insert(Counter.Current);
  }
  for (FunctionDecl *FD : Generated) {
    const FunctionDecl *Canon = FD->getCanonicalDecl();
    // Entry points (a static f_vjp) may have callers in user code too;
    // recursive sweeps cannot be inlined into themselves.
    if (FD->isExternallyVisible() || !MayInline(FD) || Recursive.count(Canon) ||
        Counts.lookup(Canon) != 1 || FD->hasAttr<NoInlineAttr>() ||
        FD->hasAttr<AlwaysInlineAttr>())
      continue;
    FD->addAttr(AlwaysInlineAttr::CreateImplicit(Ctx));
  }
}

} // namespace fluxion
