//===- EffectGlobals.cpp - Counters and flags that derivative code writes -===//
//
// Differentiated code may write integer, bool and enum globals (a call
// counter, a "converged" flag), also through a reference or a pointer to
// one that a callee writes: such a write carries no derivative, runs in
// the forward sweep as in the primal, and is never recorded or restored, so
// the effect happens once per forward sweep. Globals are not recorded, so a
// reverse sweep must not read one that may have changed since its forward
// sweep read it: reads of a global that differentiated code writes go
// through a local (LowerExpr.cpp), which the engine records like any
// local. Which globals those are is found before a function is lowered, in
// its body and its callees' (a caller's writes were seen when the caller
// was lowered); a global read directly by derivative code made before its
// first writer was seen is a located error at the write.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace fluxion {

bool isCounterGlobal(const VarDecl *VD) {
  if (!VD || !VD->hasGlobalStorage() || VD->isStaticLocal())
    return false;
  QualType T = VD->getType();
  return !T.isConstQualified() && !VD->isConstexpr() &&
         T->isIntegralOrEnumerationType();
}

namespace {
/// Collects the counter globals a body (and the bodies of its callees)
/// writes.
class WriteFinder : public RecursiveASTVisitor<WriteFinder> {
public:
  WriteFinder(ASTContext &Ctx,
              llvm::SmallVectorImpl<std::pair<const VarDecl *, SourceLocation>>
                  &Out)
      : Ctx(Ctx), Out(Out) {}

  void body(const FunctionDecl *FD) {
    const FunctionDecl *Def = nullptr;
    if (!FD->hasBody(Def) || !Seen.insert(Def).second ||
        Ctx.getSourceManager().isInSystemHeader(Def->getLocation()))
      return;
    TraverseStmt(Def->getBody());
  }

  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      note(BO->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    // Its address may be written through (`bump(&calls)`).
    if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
      note(UO->getSubExpr());
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *Callee = CE->getDirectCallee();
    if (Callee)
      body(Callee);
    // Bound to a non-const reference (`bump(calls)`): written through it.
    unsigned First = isa<CXXOperatorCallExpr>(CE) && Callee &&
                             isa<CXXMethodDecl>(Callee)
                         ? 1
                         : 0;
    for (unsigned I = First; Callee && I < CE->getNumArgs(); ++I)
      if (I - First < Callee->getNumParams()) {
        QualType P = Callee->getParamDecl(I - First)->getType();
        if (P->isLValueReferenceType() &&
            !P.getNonReferenceType().isConstQualified())
          note(CE->getArg(I));
      }
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    body(CE->getConstructor());
    return true;
  }
  // A lambda's body is visited where it is defined.
  bool shouldVisitLambdaBodies() const { return true; }

  llvm::SmallPtrSet<const FunctionDecl *, 16> Seen; ///< bodies visited

private:
  void note(const Expr *E) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
          VD && isCounterGlobal(VD))
        Out.push_back({VD, DRE->getLocation()});
  }
  ASTContext &Ctx;
  llvm::SmallVectorImpl<std::pair<const VarDecl *, SourceLocation>> &Out;
};
} // namespace

bool EffectGlobals::noteWriters(ASTContext &Ctx, const FunctionDecl *FD,
                                DiagReporter &Diags) {
  llvm::SmallVector<std::pair<const VarDecl *, SourceLocation>, 4> Writes;
  WriteFinder Finder(Ctx, Writes);
  Finder.body(FD);
  bool OK = true;
  for (const auto &[VD, Loc] : Writes) {
    if (!Written.insert(VD).second)
      continue;
    // Derivative code of a function these calls reach, made before this
    // write was known, reads it in place: it may be called between the
    // write and its own reverse sweep.
    auto It = ReadDirectly.find(VD);
    if (It == ReadDirectly.end() || !Finder.Seen.count(It->second))
      continue;
    Diags.report(Loc, Diag::NotSupported)
        << ("writing '" + VD->getNameAsString() +
            "' while the derivatives of '" + It->second->getNameAsString() +
            "' (generated earlier) read it as a constant")
        << ("define this function before the annotated functions that call '" +
            It->second->getNameAsString() + "'");
    OK = false;
  }
  return OK;
}

} // namespace fluxion
