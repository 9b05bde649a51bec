//===- ParamUse.cpp - How a function uses the memory behind a parameter ---===//
//
// A non-const array parameter may be an input that is only read (much C
// code leaves out the const), an output, or both. f_jacobian needs to know
// which: an unwritten array is a block of columns, a written one a block
// of rows; a call must not pass memory it writes twice. This walks the body (and the bodies of callees it is passed to)
// and notes how the pointed-to memory is used.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/FunctionViews.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace fluxion {
namespace {

enum Use : unsigned { None = 0, Read = 1, Write = 2 };

/// Follows one parameter through a body: P, or the object `this` points to
/// when P is null.
class ParamUseWalker {
public:
  ParamUseWalker(const ParmVarDecl *P, llvm::SmallPtrSetImpl<const Decl *> &Seen)
      : P(P), Seen(Seen) {}

  unsigned walk(const Stmt *S) {
    visitStmt(S);
    return Found;
  }

private:
  const ParmVarDecl *P;
  llvm::SmallPtrSetImpl<const Decl *> &Seen;
  unsigned Found = None;

  /// Statements and expressions whose value is not used as memory.
  void visitStmt(const Stmt *S) {
    if (!S)
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      visit(E, Read);
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      // A local reference or pointer to non-const memory may write it
      // later under its own name (`double &r = p->x; r = 1;`).
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit()) {
          QualType T = VD->getType();
          bool MayWrite = (T->isReferenceType() || T->isPointerType()) &&
                          !T->getPointeeType().isConstQualified();
          visit(VD->getInit(), MayWrite ? Read | Write : Read);
        }
      return;
    }
    if (const auto *RF = dyn_cast<CXXForRangeStmt>(S)) {
      // The loop variable is each element of the range in turn: one bound
      // by non-const reference may write them.
      QualType T = RF->getLoopVariable()->getType();
      bool Writes = T->isReferenceType() &&
                    !T.getNonReferenceType().isConstQualified();
      visitStmt(RF->getInit());
      visit(RF->getRangeInit(), Writes ? Read | Write : Read);
      visitStmt(RF->getBody());
      return;
    }
    for (const Stmt *C : S->children())
      visitStmt(C);
  }

  /// E is used as U: for a pointer or array expression, U says what
  /// happens to the memory it designates.
  void visit(const Expr *E, unsigned U) {
    if (!E)
      return;
    E = E->IgnoreParens();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (P && DRE->getDecl() == P)
        Found |= U;
      return;
    }
    if (isa<CXXThisExpr>(E)) {
      if (!P)
        Found |= U;
      return;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      // Moving a pointer (`b -= 1`, `p = x + k`) changes which memory it
      // designates, not that memory: it is used as the expression is.
      if (BO->isAssignmentOp() && BO->getType()->isPointerType()) {
        visit(BO->getLHS(), U);
        visit(BO->getRHS(), U);
        return;
      }
      if (BO->isAssignmentOp()) {
        visit(BO->getLHS(), BO->isCompoundAssignmentOp() ? Read | Write : Write);
        visit(BO->getRHS(), Read);
        return;
      }
      // Pointer arithmetic designates the same memory.
      if (BO->getType()->isPointerType()) {
        visit(BO->getLHS(), U);
        visit(BO->getRHS(), U);
        return;
      }
      visit(BO->getLHS(), Read);
      visit(BO->getRHS(), Read);
      return;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->isIncrementDecrementOp()) {
        // `*b++`: the memory is used as the expression is (a pointer that
        // walks, LowerAlias.cpp); a number is read and written.
        visit(UO->getSubExpr(),
              UO->getType()->isPointerType() ? U : Read | Write);
        return;
      }
      if (UO->getOpcode() == UO_Deref || UO->getOpcode() == UO_AddrOf) {
        visit(UO->getSubExpr(), U);
        return;
      }
      visit(UO->getSubExpr(), Read);
      return;
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      visit(AS->getBase(), U);
      visit(AS->getIdx(), Read);
      return;
    }
    // A data member is part of the object: p->m and s.m use p's memory.
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (isa<FieldDecl>(ME->getMemberDecl())) {
        visit(ME->getBase(), U);
        return;
      }
    }
    if (const auto *CE = dyn_cast<CastExpr>(E)) {
      // Loading an element reads it; loading the pointer itself, decays
      // and other conversions of a pointer keep the use.
      const Expr *Sub = CE->getSubExpr();
      bool Memory = Sub->getType()->isPointerType() ||
                    Sub->getType()->isArrayType();
      visit(Sub, CE->getCastKind() == CK_LValueToRValue && !Memory ? Read : U);
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (!visitContainerCall(Call, U))
        visitCall(Call);
      // A function returning a reference (`at(y, i) = v`,
      // LowerPlaceCall.cpp) designates memory its arguments or object
      // reach: used as the call is.
      if (Call->isLValue() && U != Read)
        for (const Expr *A : Call->arguments())
          if (A->getType()->isPointerType() || A->getType()->isArrayType() ||
              A->isLValue())
            visit(A, U);
      return;
    }
    // A lambda: its body uses the captured variables by their own names
    // (captured by reference or by copy alike); an init-capture stores
    // what it is initialised with.
    if (const auto *L = dyn_cast<LambdaExpr>(E)) {
      auto Init = L->capture_init_begin();
      for (const LambdaCapture &C : L->captures()) {
        if (L->isInitCapture(&C) && *Init)
          visit(*Init, (*Init)->getType()->isPointerType() ||
                               (*Init)->getType()->isArrayType()
                           ? Read | Write
                           : Read);
        ++Init;
      }
      visitStmt(L->getBody());
      return;
    }
    // Anything else (a pointer stored in a local, ...): it may be read and
    // written.
    for (const Stmt *C : E->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(C))
        visit(CE, (CE->getType()->isPointerType() ||
                   CE->getType()->isArrayType())
                      ? Read | Write
                      : Read);
  }

  /// A member call of a std::vector, std::array or Eigen object of reals
  /// (LowerContainer.cpp): an element, or the storage, is used as the call
  /// is; a const member only reads; anything else may write.
  bool visitContainerCall(const CallExpr *Call, unsigned U) {
    MemberCall MC = memberCall(Call);
    if (!MC.Object || !MC.Method)
      return false;
    // (An Eigen object's methods are its bases': see through the cast.)
    QualType T = MC.Object->IgnoreParenImpCasts()->getType();
    if (MC.Arrow && T->isPointerType())
      T = T->getPointeeType();
    if (containerElement(T).isNull())
      return false;
    bool Element = isContainerElementCall(Call);
    // An Eigen view of the object (v.transpose(), m.col(k), v.array()) is
    // used as the call is, whichever overload was chosen.
    static const char *const Views[] = {
        "transpose", "col",  "row",     "block",  "head",    "tail",
        "segment",   "array", "matrix", "noalias", "topRows", "bottomRows",
        "leftCols",  "rightCols", "diagonal"};
    bool View = eigenShape(T) && MC.Method->getIdentifier() &&
                llvm::is_contained(Views, MC.Method->getName());
    if (MC.Method->isConst())
      visit(MC.Object, Read);
    else if (Element || View)
      visit(MC.Object, U | Read);
    else
      visit(MC.Object, Read | Write);
    for (unsigned I = MC.FirstArg; I < Call->getNumArgs(); ++I)
      visit(Call->getArg(I), Read);
    return true;
  }

  void visitCall(const CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    unsigned First = visitObject(Call);
    if (!isa<CXXMemberCallExpr>(Call))
      visit(Call->getCallee(), Read);
    for (unsigned I = First; I < Call->getNumArgs(); ++I) {
      const Expr *A = Call->getArg(I);
      QualType T = A->getType();
      const ParmVarDecl *Param = Callee && I - First < Callee->getNumParams()
                                     ? Callee->getParamDecl(I - First)
                                     : nullptr;
      // Memory: a pointer, an array, or an lvalue bound to a reference.
      bool ByRef = Param && Param->getType()->isReferenceType();
      if (!T->isPointerType() && !T->isArrayType() && !ByRef) {
        visit(A, Read);
        continue;
      }
      if (Param &&
          (Param->getType()->isPointerType() || ByRef) &&
          Param->getType()->getPointeeType().isConstQualified()) {
        visit(A, Read);
        continue;
      }
      visit(A, Param ? paramUse(Callee, Param) : (Read | Write));
    }
  }

  /// The object of a member call (obj.m(), p->m(), a member operator) is
  /// used as the method uses `*this`. Returns the index of the call's first
  /// argument that is an argument of the method.
  unsigned visitObject(const CallExpr *Call) {
    // The method the lowering calls (memberCall): the same resolution of
    // virtual calls.
    MemberCall MC = memberCall(Call);
    if (!MC.Object)
      return MC.FirstArg;
    if (!MC.Method || MC.Dynamic)
      visit(MC.Object, Read | Write);
    else if (MC.Method->isStatic() || MC.Method->isConst())
      visit(MC.Object, Read);
    else
      visit(MC.Object, thisUse(MC.Method));
    return MC.FirstArg;
  }

  /// How method M uses `*this`, from its body.
  unsigned thisUse(const CXXMethodDecl *M) {
    const FunctionDecl *Def = nullptr;
    if (!M->hasBody(Def) || !Seen.insert(Def).second)
      return Read | Write;
    unsigned U = ParamUseWalker(nullptr, Seen).walk(Def->getBody());
    Seen.erase(Def);
    return U;
  }

  /// How Callee uses its parameter Param, from its body; unknown (a body
  /// not visible, recursion) counts as read and written.
  unsigned paramUse(const FunctionDecl *Callee, const ParmVarDecl *Param) {
    const FunctionDecl *Def = nullptr;
    if (!Callee->hasBody(Def) || !Seen.insert(Def).second)
      return Read | Write;
    unsigned I = Param->getFunctionScopeIndex();
    unsigned U =
        ParamUseWalker(Def->getParamDecl(I), Seen).walk(Def->getBody());
    Seen.erase(Def);
    return U;
  }
};

} // namespace

ParamMemoryUse paramMemoryUse(const FunctionDecl *Def, unsigned I) {
  // A view: `self` is `this`, `result` is written, the rest are the
  // original's parameters.
  const ParmVarDecl *P = nullptr;
  if (const FunctionView *View = asView(Def)) {
    const FunctionDecl *OrigDef = nullptr;
    if (!View->Of->hasBody(OrigDef) ||
        (View->Result && I == unsigned(View->Self)))
      return {true, true};
    Def = OrigDef;
    if (I >= View->firstParam())
      P = OrigDef->getParamDecl(I - View->firstParam());
  } else {
    P = Def->getParamDecl(I);
  }
  llvm::SmallPtrSet<const Decl *, 8> Seen;
  Seen.insert(Def);
  unsigned U = ParamUseWalker(P, Seen).walk(Def->getBody());
  return {(U & Read) != 0, (U & Write) != 0};
}

} // namespace fluxion
