//===- LowerAlias.cpp - Local references and pointers as places ------------===//
//
// A reference is an address. `double &r = a[i];`, `auto &p = ps[k];`,
// `const double *row = A + i * n;` and `Particle *q = &p;` name a place; as
// long as nothing that determines the place (i, A, n: the variables the
// initialiser reads as values) changes while the variable is in scope, and
// the variable itself is never moved, every use of it is its initialiser
// again (row[j] is (A + i * n)[j]). The engine then sees only arrays,
// members and pointer parameters, which its analyses already follow.
// A pointer that walks (p++, p += n) is not lowered this way and stays a
// located error.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace fluxion {
namespace {

using VarSet = llvm::SmallPtrSet<const VarDecl *, 8>;

const VarDecl *varOf(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParens());
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

/// The variables E reads as values (not those it only designates memory
/// of: `a` in a[i] for an array a, `p` in &p).
void valuesRead(const Stmt *S, VarSet &Out) {
  if (!S)
    return;
  if (const auto *CE = dyn_cast<ImplicitCastExpr>(S))
    if (CE->getCastKind() == CK_LValueToRValue)
      if (const VarDecl *V = varOf(CE->getSubExpr()))
        Out.insert(V);
  for (const Stmt *C : S->children())
    valuesRead(C, Out);
}

/// Something in S that a place built from these variables cannot follow:
/// a call, a conditional, a lambda. An element of a container (x[i]) is a
/// place like a[i].
bool hasUnfollowable(const Stmt *S) {
  if (!S)
    return false;
  if (isa<CallExpr, ConditionalOperator, BinaryConditionalOperator,
          LambdaExpr, StmtExpr>(S) &&
      !isContainerElementCall(S))
    return true;
  for (const Stmt *C : S->children())
    if (hasUnfollowable(C))
      return true;
  return false;
}

/// The first variable of Vars that S may change: assigned, incremented,
/// its address taken, bound to a non-const reference argument.
const VarDecl *firstWritten(const Stmt *S, const VarSet &Vars) {
  if (!S)
    return nullptr;
  auto In = [&](const Expr *E) -> const VarDecl * {
    const VarDecl *V = varOf(E->IgnoreImpCasts());
    return V && Vars.count(V) ? V : nullptr;
  };
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    if (BO->isAssignmentOp())
      if (const VarDecl *V = In(BO->getLHS()))
        return V;
  if (const auto *UO = dyn_cast<UnaryOperator>(S))
    if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
      if (const VarDecl *V = In(UO->getSubExpr()))
        return V;
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    // A lambda defined earlier writes, when it is called, what its body
    // writes of the variables it captured by reference.
    if (const auto *M = dyn_cast_or_null<CXXMethodDecl>(Callee);
        M && M->getParent()->isLambda())
      if (const VarDecl *V = firstWritten(M->getBody(), Vars))
        return V;
    unsigned Shift = isa<CXXOperatorCallExpr>(Call) &&
                             isa_and_nonnull<CXXMethodDecl>(Callee)
                         ? 1
                         : 0;
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      const VarDecl *V = In(Call->getArg(I));
      if (!V)
        continue;
      if (I < Shift)
        return V; // the object of a member operator
      const ParmVarDecl *P = Callee && I - Shift < Callee->getNumParams()
                                 ? Callee->getParamDecl(I - Shift)
                                 : nullptr;
      if (!P || (P->getType()->isReferenceType() &&
                 !P->getType()->getPointeeType().isConstQualified()))
        return V;
    }
  }
  // A lambda's body is among its children: what it writes is seen there.
  for (const Stmt *C : S->children())
    if (const VarDecl *V = firstWritten(C, Vars))
      return V;
  return nullptr;
}

/// What Clang's HasSideEffects says, except that an element of a container
/// (a call of operator[], at, front, back or data) has none of its own.
bool containsElementCall(const Stmt *S) {
  if (!S)
    return false;
  if (isContainerElementCall(S))
    return true;
  for (const Stmt *C : S->children())
    if (containsElementCall(C))
      return true;
  return false;
}

bool hasSideEffects(const Expr *E, const ASTContext &Ctx) {
  if (!containsElementCall(E))
    return E->HasSideEffects(Ctx);
  // Nodes with no effect of their own around the element: look inside.
  bool Transparent = isContainerElementCall(E) ||
                     isa<ParenExpr, ImplicitCastExpr, ArraySubscriptExpr,
                         MemberExpr, DeclRefExpr>(E);
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    Transparent = !UO->isIncrementDecrementOp();
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    Transparent = !BO->isAssignmentOp();
  if (!Transparent)
    return true;
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C); CE && hasSideEffects(CE, Ctx))
      return true;
  return false;
}

} // namespace

/// True if S reads a value from memory rather than from a variable
/// (`idx[0]`, `*p`, `p->n`, a reference's referent).
bool readsMemory(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *CE = dyn_cast<ImplicitCastExpr>(S))
    if (CE->getCastKind() == CK_LValueToRValue) {
      const auto *DRE = dyn_cast<DeclRefExpr>(CE->getSubExpr()->IgnoreParens());
      if (!DRE || DRE->getDecl()->getType()->isReferenceType())
        return true;
    }
  for (const Stmt *C : S->children())
    if (readsMemory(C))
      return true;
  return false;
}

std::string FunctionLowering::aliasProblem(const VarDecl *VD) {
  const Expr *Init = VD->getInit();
  bool Reference = VD->getType()->isReferenceType();
  if (!Init)
    return "declared without a value";
  if (hasSideEffects(Init, Ctx) || hasUnfollowable(Init))
    return "its initialiser calls a function or chooses between places";
  if (Reference && !Init->isGLValue())
    return "bound to a value";
  // `a[idx[0]]`: the place depends on memory, which a later write (to
  // idx[0], or through another name) may change unseen by the check on
  // variables below.
  if (readsMemory(Init))
    return "its place is chosen by a value read from memory";
  if (Scopes.empty())
    return "declared outside a block";
  // What determines the place, and the variable itself when it is a
  // pointer (a reference cannot be reseated).
  VarSet Watched;
  valuesRead(Init, Watched);
  if (!Reference)
    Watched.insert(VD);
  auto [Scope, Index] = Scopes.back();
  auto Body = Scope->body();
  for (auto It = Body.begin() + Index; It != Body.end(); ++It)
    if (const VarDecl *V = firstWritten(*It, Watched))
      return V == VD ? "it is moved or reassigned"
                     : "'" + V->getNameAsString() +
                           "', which chooses the place, changes while it is "
                           "in use";
  return "";
}

std::string FunctionLowering::placeProblem(const Expr *Place, const Stmt *S) {
  if (hasSideEffects(Place, Ctx) || hasUnfollowable(Place))
    return "it calls a function or chooses between places";
  VarSet Watched;
  valuesRead(Place, Watched);
  if (const VarDecl *V = firstWritten(S, Watched))
    return "'" + V->getNameAsString() +
           "', which chooses the place, changes while it is in use";
  return "";
}

} // namespace fluxion
