//===- LowerAlias.cpp - Local references and pointers as places ------------===//
//
// A reference is an address. `double &r = a[i];`, `auto &p = ps[k];`,
// `const double *row = A + i * n;` and `Particle *q = &p;` name a place; as
// long as nothing that determines the place (i, A, n: the variables the
// initialiser reads as values) changes while the variable is in scope, and
// the variable itself is never moved, every use of it is its initialiser
// again (row[j] is (A + i * n)[j]). The engine then sees only arrays,
// members and pointer parameters, which its analyses already follow.
// A pointer that walks (`const double *p = x; ... *p++`, `row += n`) is a
// base that stays put plus an integer position: `p` is `x + p_pos` at each
// use, and each step (`++p`, `p += n`, `p = x + k`) assigns the position,
// which the engine's analyses follow like any integer counter. Pointer
// comparisons and differences on one base compare positions.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"
#include "fluxion/engine/IR.h"

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
/// (`idx[0]`, `*p`, `p->n`, a reference's referent). With RowsStayPut, a
/// row of a table of pointers to reals (`A[i]` of a `const double *const
/// *A`) does not count: differentiated code never stores such a pointer
/// (lowerAssignment refuses it), so the row stays put.
bool readsMemory(const Stmt *S, bool RowsStayPut) {
  if (!S)
    return false;
  if (const auto *CE = dyn_cast<ImplicitCastExpr>(S))
    if (CE->getCastKind() == CK_LValueToRValue) {
      const auto *DRE = dyn_cast<DeclRefExpr>(CE->getSubExpr()->IgnoreParens());
      bool Row = RowsStayPut && CE->getType()->isPointerType() &&
                 isDifferentiableType(CE->getType());
      if (!Row && (!DRE || DRE->getDecl()->getType()->isReferenceType()))
        return true;
    }
  for (const Stmt *C : S->children())
    if (readsMemory(C, RowsStayPut))
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
  if (readsMemory(Init, /*RowsStayPut=*/true))
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

bool mayBeWritten(const Stmt *S, const VarDecl *V) {
  VarSet Self;
  Self.insert(V);
  return firstWritten(S, Self) != nullptr;
}

// --- Pointers that walk --------------------------------------------------

using ir::Block;
using ir::ExprP;
using ir::intConst;
using ir::ref;

const VarDecl *FunctionLowering::walkerRef(const Expr *E) const {
  E = E->IgnoreParens();
  while (const auto *CE = dyn_cast<ImplicitCastExpr>(E)) {
    if (CE->getCastKind() != CK_LValueToRValue && CE->getCastKind() != CK_NoOp)
      break;
    E = CE->getSubExpr()->IgnoreParens();
  }
  const VarDecl *V = varOf(E);
  return V && Walkers.count(V) ? V : nullptr;
}

const Expr *FunctionLowering::splitPointer(const Expr *E,
                                           SmallVectorImpl<PointerTerm> &Terms) {
  E = E->IgnoreParens();
  if (const VarDecl *W = walkerRef(E)) {
    Terms.push_back({E, false});
    return Walkers.lookup(W).Base;
  }
  if (const auto *CE = dyn_cast<ImplicitCastExpr>(E);
      CE && CE->getCastKind() == CK_NoOp)
    return splitPointer(CE->getSubExpr(), Terms);
  if (const auto *CE = dyn_cast<ImplicitCastExpr>(E);
      CE && CE->getCastKind() == CK_LValueToRValue)
    if (const VarDecl *V = varOf(CE->getSubExpr()))
      if (const Expr *Init = Aliases.lookup(V);
          Init && V->getType()->isPointerType())
        return splitPointer(Init, Terms);
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    const Expr *L = BO->getLHS(), *R = BO->getRHS();
    if (BO->getOpcode() == BO_Add && R->getType()->isPointerType())
      std::swap(L, R);
    if ((BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) &&
        L->getType()->isPointerType() && R->getType()->isIntegerType()) {
      const Expr *Base = splitPointer(L, Terms);
      Terms.push_back({R, BO->getOpcode() == BO_Sub});
      return Base;
    }
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf) {
    if (const auto *AS =
            dyn_cast<ArraySubscriptExpr>(UO->getSubExpr()->IgnoreParens())) {
      const Expr *Base = splitPointer(AS->getBase(), Terms);
      Terms.push_back({AS->getIdx(), false});
      return Base;
    }
    // &v[k] of a container: its storage, k on.
    const Expr *Index = nullptr;
    if (const Expr *C = containerStorage(UO->getSubExpr(), Index); C && Index) {
      Terms.push_back({Index, false});
      return C;
    }
  }
  // v.data(): the container stands for its storage.
  const Expr *Index = nullptr;
  if (const Expr *C = containerStorage(E, Index); C && !Index)
    return C;
  return E;
}

/// True if A and B designate the same memory (`x` and `x`, `v.data()` and
/// `v.data()`): the same expression once conversions are set aside.
static bool sameBase(const ASTContext &Ctx, const Expr *A, const Expr *B) {
  llvm::FoldingSetNodeID IA, IB;
  A->IgnoreParenImpCasts()->Profile(IA, Ctx, /*Canonical=*/true);
  B->IgnoreParenImpCasts()->Profile(IB, Ctx, /*Canonical=*/true);
  return IA == IB;
}

/// Why a step of the walking pointer VD in S cannot be followed: a write
/// that is not `++p`, `p--`, `p += n` or `p = base + k` on the same base,
/// its address taken, a non-const reference or a lambda that could move it.
static std::string badWalk(const Stmt *S, const VarDecl *VD, const Expr *Base,
                           FunctionLowering &L) {
  if (!S)
    return "";
  auto IsVD = [&](const Expr *E) { return varOf(E->IgnoreImpCasts()) == VD; };
  if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (UO->isIncrementDecrementOp() && IsVD(UO->getSubExpr()))
      return "";
    if (UO->getOpcode() == UO_AddrOf && IsVD(UO->getSubExpr()))
      return "its address is taken";
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(S);
      BO && BO->isAssignmentOp() && IsVD(BO->getLHS())) {
    if (BO->getOpcode() == BO_Assign) {
      SmallVector<FunctionLowering::PointerTerm, 4> Terms;
      const Expr *Other = L.splitPointer(BO->getRHS(), Terms);
      if (!sameBase(L.context(), Other, Base))
        return "it is set to a place in other memory";
    }
    return badWalk(BO->getRHS(), VD, Base, L);
  }
  if (const auto *LE = dyn_cast<LambdaExpr>(S))
    for (const LambdaCapture &C : LE->captures())
      if (C.capturesVariable() && C.getCapturedVar() == VD)
        return "a lambda captures it";
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    VarSet Self;
    Self.insert(VD);
    // A non-const reference argument (the other writes firstWritten knows
    // of are the operators above, handled before it is asked).
    for (const Expr *A : Call->arguments())
      if (IsVD(A) && firstWritten(Call, Self))
        return "it is passed to a non-const reference";
  }
  for (const Stmt *C : S->children())
    if (std::string Why = badWalk(C, VD, Base, L); !Why.empty())
      return Why;
  return "";
}

std::string FunctionLowering::walkProblem(const VarDecl *VD,
                                          const Expr *Base) {
  if (hasSideEffects(Base, Ctx) || hasUnfollowable(Base))
    return "its base calls a function or chooses between places";
  if (readsMemory(Base, /*RowsStayPut=*/true))
    return "its base is chosen by a value read from memory";
  if (Scopes.empty())
    return "declared outside a block";
  VarSet Watched;
  valuesRead(Base, Watched);
  // A parameter that walks keeps its entry value as a base.
  for (const auto &[V, W] : Walkers)
    if (W.Entry)
      Watched.erase(V);
  auto [Scope, Index] = Scopes.back();
  auto Body = Scope->body();
  for (auto It = Body.begin() + Index; It != Body.end(); ++It) {
    if (const VarDecl *V = firstWritten(*It, Watched))
      return "'" + V->getNameAsString() +
             "', which chooses its base, changes while it is in use";
    if (std::string Why = badWalk(*It, VD, Base, *this); !Why.empty())
      return Why;
  }
  return "";
}

std::string FunctionLowering::lowerWalkingPointer(const VarDecl *VD,
                                                  Block &Out) {
  if (!VD->getInit())
    return "declared without a value";
  SmallVector<PointerTerm, 4> Terms;
  const Expr *Base = splitPointer(VD->getInit(), Terms);
  if (std::string Why = walkProblem(VD, Base); !Why.empty())
    return Why;
  ir::Var *Pos = F->makeVar(ir::Var::Kind::Local, (VD->getName() + "_pos").str(),
                            Ctx.getPointerDiffType());
  F->Locals.push_back(Pos);
  Walkers[VD] = {Base, Pos};
  ExprP Start = sumPointerTerms(Terms, Out);
  if (!Start) {
    Poisoned.insert(VD);
    return "its start could not be lowered";
  }
  Out.push_back(ir::assign(ref(Pos), Start, BO_Assign, VD->getLocation()));
  Out.back()->IsInit = true;
  return "";
}

ExprP FunctionLowering::sumPointerTerms(ArrayRef<PointerTerm> Terms,
                                        Block &Pre) {
  QualType Ty = Ctx.getPointerDiffType();
  ExprP Sum;
  for (const PointerTerm &T : Terms) {
    ExprP E;
    if (const VarDecl *W = walkerRef(T.E))
      E = ref(Walkers.lookup(W).Pos);
    else if (!(E = lowerExpr(T.E, Pre)))
      return nullptr;
    E = ir::cast(Ty, E);
    if (!Sum)
      Sum = T.Negate ? ir::unary(UO_Minus, E, Ty) : E;
    else
      Sum = ir::binary(T.Negate ? BO_Sub : BO_Add, Sum, E, Ty);
  }
  return Sum ? Sum : intConst(Ty, 0);
}

bool FunctionLowering::lowerWalkingParams(const FunctionDecl *Def) {
  bool OK = true;
  for (const ParmVarDecl *P : Def->parameters()) {
    QualType T = P->getType();
    ir::Var *Entry = Vars.lookup(P);
    if (!Entry || Entry->ByRef || !T->isPointerType() ||
        !(T->getPointeeType()->isArithmeticType() ||
          isDifferentiableRecord(T->getPointeeType())))
      continue;
    VarSet Self;
    Self.insert(P);
    if (!firstWritten(Def->getBody(), Self))
      continue;
    auto *Base = DeclRefExpr::Create(
        Ctx, NestedNameSpecifierLoc(), SourceLocation(),
        const_cast<ParmVarDecl *>(P), false, P->getLocation(), T, VK_LValue);
    if (std::string Why = badWalk(Def->getBody(), P, Base, *this);
        !Why.empty()) {
      Diags.report(P->getLocation(), Diag::NotSupported)
          << ("moving pointer parameter '" + P->getNameAsString() + "' (" +
              Why + ")")
          << ("index from it (" + P->getNameAsString() +
              "[k]) or walk a local pointer that starts at it");
      OK = false;
      continue;
    }
    ir::Var *Pos = F->makeVar(ir::Var::Kind::Local,
                              (P->getName() + "_pos").str(),
                              Ctx.getPointerDiffType());
    F->Locals.push_back(Pos);
    F->Body.push_back(ir::assign(ref(Pos), intConst(Pos->Type, 0)));
    F->Body.back()->IsInit = true;
    Walkers[P] = {Base, Pos, Entry};
  }
  return OK;
}

ExprP FunctionLowering::walkerPointer(const VarDecl *VD, ExprP Pos,
                                      Block &Pre) {
  // The base: a parameter that walks is its entry value, not its position.
  const Expr *BaseExpr = Walkers.lookup(VD).Base;
  ExprP Base;
  if (const VarDecl *B = varOf(BaseExpr->IgnoreImpCasts());
      B && Walkers.lookup(B).Entry)
    Base = ref(Walkers.lookup(B).Entry);
  else
    Base = lowerExpr(BaseExpr, Pre);
  if (!Base)
    return nullptr;
  // A container held by an object (`s.a.data()`): its first element's
  // address.
  if (Base->Ty->isRecordType()) {
    QualType Elem = containerElement(Base->Ty);
    if (Elem.isNull())
      return nullptr;
    if (BaseExpr->getType().getNonReferenceType().isConstQualified())
      Elem.addConst();
    Base = ir::addrOf(
        ir::index(Base, intConst(Ctx.getPointerDiffType(), 0), Elem),
        Ctx.getPointerType(Elem));
  }
  return ir::cast(VD->getType().getUnqualifiedType(),
                  ir::binary(BO_Add, Base, Pos, Base->Ty));
}

ExprP FunctionLowering::lowerWalkingStep(const UnaryOperator *UO,
                                         Block &Out) {
  const VarDecl *VD = walkerRef(UO->getSubExpr());
  if (!VD)
    return nullptr;
  ir::Var *Pos = Walkers.lookup(VD).Pos;
  QualType Ty = Pos->Type;
  BinaryOperatorKind Op = UO->isIncrementOp() ? BO_Add : BO_Sub;
  SourceLocation Loc = UO->getOperatorLoc();
  Out.push_back(ir::assign(ref(Pos),
                           ir::binary(Op, ref(Pos), intConst(Ty, 1), Ty, Loc),
                           BO_Assign, Loc));
  ExprP Value = ref(Pos);
  if (UO->isPostfix())
    Value = ir::binary(Op == BO_Add ? BO_Sub : BO_Add, ref(Pos),
                       intConst(Ty, 1), Ty, Loc);
  return walkerPointer(VD, Value, Out);
}

bool FunctionLowering::lowerWalkingAssignment(const BinaryOperator *BO,
                                              Block &Out) {
  const VarDecl *VD = walkerRef(BO->getLHS());
  ir::Var *Pos = Walkers.lookup(VD).Pos;
  QualType Ty = Pos->Type;
  SmallVector<PointerTerm, 4> Terms;
  ExprP Value;
  if (BO->getOpcode() == BO_Assign) {
    splitPointer(BO->getRHS(), Terms);
    Value = sumPointerTerms(Terms, Out);
  } else {
    Terms.push_back({BO->getRHS(), BO->getOpcode() == BO_SubAssign});
    ExprP Step = sumPointerTerms(Terms, Out);
    Value = Step ? ir::binary(BO_Add, ref(Pos), Step, Ty) : nullptr;
  }
  if (!Value)
    return false;
  Out.push_back(ir::assign(ref(Pos), Value, BO_Assign, BO->getOperatorLoc()));
  return true;
}

ExprP FunctionLowering::lowerWalkingComparison(const BinaryOperator *E,
                                               Block &Pre) {
  if (!(E->isComparisonOp() || E->getOpcode() == BO_Sub) ||
      !E->getLHS()->getType()->isPointerType() ||
      !E->getRHS()->getType()->isPointerType())
    return nullptr;
  SmallVector<PointerTerm, 4> L, R;
  const Expr *LB = splitPointer(E->getLHS(), L);
  const Expr *RB = splitPointer(E->getRHS(), R);
  bool Walks = llvm::any_of(L, [&](auto &T) { return walkerRef(T.E); }) ||
               llvm::any_of(R, [&](auto &T) { return walkerRef(T.E); });
  if (!Walks || !sameBase(Ctx, LB, RB))
    return nullptr;
  ExprP A = sumPointerTerms(L, Pre);
  ExprP B = A ? sumPointerTerms(R, Pre) : nullptr;
  if (!B)
    return nullptr;
  return ir::cast(E->getType(), ir::binary(E->getOpcode(), A, B,
                                           E->getOpcode() == BO_Sub
                                               ? A->Ty
                                               : E->getType(),
                                           E->getOperatorLoc()));
}

} // namespace fluxion
