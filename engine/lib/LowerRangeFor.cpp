//===- LowerRangeFor.cpp - Range-based for over fixed-size arrays ----------===//
//
// `for (T v : a) body` over an array of known size N is the counted loop
// `for (int k = 0; k < N; ++k) { T v = a[k]; body }`; with a reference loop
// variable (`T &v`, `const T &v`, `auto &v`) every use of v is a[k] again,
// as LowerAlias.cpp does for local references. The reverse sweep then runs
// it backwards without a tape, exactly like the index loop a user would
// have written (ReverseBuilder::countedFor).
//
// Clang spells the loop with hidden variables: `auto &&__range = a;
// auto __begin = __range; ...; T v = *__begin;`. The range variable is an
// alias of `a` (evaluated at each use, so nothing `a` reads as a value may
// change in the body), the walking pointer `__begin` is never lowered, and
// `*__begin` is replaced by the expression `__range[k]` built here, k a
// variable of our own that the IR counter stands for.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::StmtKind;
using ir::Var;

namespace {

/// `*__begin`, the element the loop variable is initialised from.
bool isCurrentElement(const Expr *E, const VarDecl *Begin) {
  E = E->IgnoreParens();
  const Expr *Sub = nullptr;
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->getOpcode() == UO_Deref)
    Sub = UO->getSubExpr();
  // A container's iterator: `__begin.operator*()`.
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && OC->getOperator() == OO_Star && OC->getNumArgs() == 1)
    Sub = OC->getArg(0);
  if (!Sub)
    return false;
  const auto *DRE = dyn_cast<DeclRefExpr>(Sub->IgnoreParenImpCasts());
  return DRE && DRE->getDecl() == Begin;
}

/// Init (a by-value loop variable's initialiser) with Elem in place of
/// `*__begin`, keeping its conversions and copy constructor; null for a
/// shape not followed here.
Expr *withElement(ASTContext &Ctx, const Expr *Init, const VarDecl *Begin,
                  Expr *Elem) {
  Init = Init->IgnoreParens();
  if (isCurrentElement(Init, Begin))
    return Elem;
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(Init))
    return withElement(Ctx, EWC->getSubExpr(), Begin, Elem);
  if (const auto *ICE = dyn_cast<ImplicitCastExpr>(Init)) {
    // A conversion to a base class needs its path: not followed.
    if (ICE->path_size() != 0)
      return nullptr;
    Expr *Sub = withElement(Ctx, ICE->getSubExpr(), Begin, Elem);
    return Sub ? ImplicitCastExpr::Create(
                     Ctx, ICE->getType(), ICE->getCastKind(), Sub, nullptr,
                     ICE->getValueKind(),
                     ICE->getFPFeaturesInEffect(Ctx.getLangOpts()))
               : nullptr;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Init);
      CE && CE->getNumArgs() == 1 && !isa<CXXTemporaryObjectExpr>(CE)) {
    Expr *Arg = withElement(Ctx, CE->getArg(0), Begin, Elem);
    if (!Arg)
      return nullptr;
    return CXXConstructExpr::Create(
        Ctx, CE->getType(), CE->getLocation(), CE->getConstructor(),
        CE->isElidable(), {Arg}, CE->hadMultipleCandidates(),
        CE->isListInitialization(), CE->isStdInitListInitialization(),
        CE->requiresZeroInitialization(), CE->getConstructionKind(),
        CE->getParenOrBraceRange());
  }
  return nullptr;
}

} // namespace

bool FunctionLowering::lowerRangeFor(const CXXForRangeStmt *S, ir::Block &Out) {
  if (LoopDepth)
    return lowerRangeForLoop(S, Out);
  // What the body sizes once for all iterations (LoopEntry) runs before
  // the outermost loop, as for a `for` (lowerLoop).
  ir::Block Entry, Loop;
  LoopEntry = &Entry;
  bool OK = lowerRangeForLoop(S, Loop);
  LoopEntry = nullptr;
  for (ir::StmtP &X : Entry)
    Out.push_back(std::move(X));
  for (ir::StmtP &X : Loop)
    Out.push_back(std::move(X));
  return OK;
}

bool FunctionLowering::lowerRangeForLoop(const CXXForRangeStmt *S,
                                         ir::Block &Out) {
  if (!lowerStmt(S->getInit(), Out))
    return false;
  const Expr *Range = S->getRangeInit();
  const VarDecl *LoopVar = S->getLoopVariable();
  const auto *RangeStmt = dyn_cast_or_null<DeclStmt>(S->getRangeStmt());
  const auto *BeginStmt = dyn_cast_or_null<DeclStmt>(S->getBeginStmt());
  const auto *RangeVar =
      RangeStmt && RangeStmt->isSingleDecl()
          ? dyn_cast<VarDecl>(RangeStmt->getSingleDecl())
          : nullptr;
  const auto *Begin = BeginStmt && BeginStmt->isSingleDecl()
                          ? dyn_cast<VarDecl>(BeginStmt->getSingleDecl())
                          : nullptr;
  if (!Range || !RangeVar || !Begin || !LoopVar)
    return unsupported(S);

  // The range, in the user's words.
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Spelled =
      Lexer::getSourceText(CharSourceRange::getTokenRange(Range->getSourceRange()),
                           SM, Ctx.getLangOpts())
          .str();
  if (Spelled.empty() || Spelled.size() > 40)
    Spelled = "the range";
  QualType RangeTy = RangeVar->getType().getNonReferenceType();
  const ConstantArrayType *AT = Ctx.getAsConstantArrayType(RangeTy);
  // A container parameter (LowerContainer.cpp): its storage, size() long.
  QualType ContainerElem = containerElement(RangeTy);
  if (!AT && ContainerElem.isNull()) {
    bool Braced = isa<InitListExpr, CXXStdInitializerListExpr>(
        Range->IgnoreImplicit());
    if (usesPoisoned(Range))
      ; // its declaration was refused, and said why
    else if (Braced)
      Diags.report(Range->getBeginLoc(), Diag::NotSupported)
          << "a range-based for over a braced list"
          << "put the values in a local array ('double v[] = {...};') and "
             "loop over that";
    else
      Diags.report(Range->getBeginLoc(), Diag::NotSupported)
          << ("a range-based for over '" + Spelled + "' (of type '" +
              Range->getType().getAsString() +
              "'; only arrays of known size are followed)")
          << ("write an index loop ('for (int i = 0; i < n; ++i)') and "
              "read the elements as '" +
              Spelled + "[i]'");
    return false;
  }
  // The range is evaluated again at each use of an element: it must name
  // the same array all along the loop.
  std::string Why = Range->isGLValue() ? placeProblem(Range, S->getBody())
                                       : "it is a temporary";
  if (Why.empty() && readsMemory(Range))
    Why = "it is chosen by a value read from memory";
  if (!Why.empty()) {
    Diags.report(Range->getBeginLoc(), Diag::NotSupported)
        << ("a range-based for over '" + Spelled + "' (" + Why + ")")
        << "write an index loop ('for (int i = 0; i < n; ++i)') and index "
           "the array at each use";
    return false;
  }
  if (isa<DecompositionDecl>(LoopVar)) {
    Diags.report(LoopVar->getLocation(), Diag::NotSupported)
        << "a structured binding as the variable of a range-based for"
        << "name the element ('const auto &e') and use its members";
    return false;
  }

  SourceLocation Loc = LoopVar->getLocation();
  // k, and `__range[k]`. The declaration of k exists only for the lowering
  // (it is not added to any scope); the IR counter K stands for it.
  auto *KDecl = VarDecl::Create(
      Ctx, const_cast<DeclContext *>(RangeVar->getDeclContext()), Loc, Loc,
      &Ctx.Idents.get("__fluxion_range_index"), Ctx.IntTy,
      Ctx.getTrivialTypeSourceInfo(Ctx.IntTy, Loc), SC_None);
  Var *K = F->makeVar(Var::Kind::Local, "_k", Ctx.IntTy);
  F->Locals.push_back(K);
  Vars[KDecl] = K;
  Aliases[RangeVar] = Range;
  auto *RangeRef = DeclRefExpr::Create(
      Ctx, NestedNameSpecifierLoc(), SourceLocation(),
      const_cast<VarDecl *>(RangeVar), /*RefersToEnclosingVariableOrCapture=*/false,
      Range->getExprLoc(), RangeTy, VK_LValue);
  // For a container, `__range[k]` is built on the container itself: only
  // the lowering reads it, which takes the range for its storage.
  Expr *Decayed = RangeRef;
  if (AT)
    Decayed = ImplicitCastExpr::Create(
        Ctx, Ctx.getArrayDecayedType(RangeTy), CK_ArrayToPointerDecay,
        RangeRef, nullptr, VK_PRValue, FPOptionsOverride());
  QualType ElemTy = AT ? AT->getElementType()
                       : ContainerElem.withCVRQualifiers(
                             RangeTy.getCVRQualifiers());
  ExprP Count;
  if (AT) {
    Count = ir::intConst(Ctx.IntTy, AT->getSize().getZExtValue());
  } else {
    ir::Block Ignored;
    ExprP Storage = lowerExpr(Range, Ignored);
    if (!Storage)
      return false;
    // A container held by another or by an object (an Eigen member too).
    bool Place = isContainerPlace(*Storage) ||
                 ((Storage->K == ir::ExprKind::Member ||
                   Storage->K == ir::ExprKind::Index) &&
                  eigenShape(Storage->Ty) && !eigenShape(Storage->Ty)->View);
    if ((!Place && (Storage->K != ir::ExprKind::VarRef ||
                    !isContainerStorageVar(Storage->V))) ||
        !Ignored.empty()) {
      Diags.report(Range->getBeginLoc(), Diag::NotSupported)
          << ("a range-based for over '" + Spelled +
              "', a container that is not a variable of the function")
          << "pass the container to the function as a parameter of its own";
      return false;
    }
    if (std::optional<uint64_t> N = containerFixedSize(RangeTy))
      Count = ir::intConst(Ctx.IntTy, int64_t(*N));
    else if (Place) // its size never changes in differentiated code
      Count = ir::cast(Ctx.IntTy, ir::sizeOf(Storage, Ctx.getSizeType()));
    else
      Count = ir::cast(Ctx.IntTy, containerSize(Storage->V, Loc));
  }
  auto *KRef = DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(),
                                   SourceLocation(), KDecl, false, Loc,
                                   Ctx.IntTy, VK_LValue);
  auto *KValue = ImplicitCastExpr::Create(Ctx, Ctx.IntTy, CK_LValueToRValue,
                                          KRef, nullptr, VK_PRValue,
                                          FPOptionsOverride());
  auto *Elem = new (Ctx) ArraySubscriptExpr(Decayed, KValue, ElemTy,
                                            VK_LValue, OK_Ordinary,
                                            Range->getExprLoc());

  // The loop: k = 0; while (k < N) { v = a[k]; body; k = k + 1; }, the
  // shape lowerFor gives an index loop, with k its counter.
  auto Init = ir::assign(ir::ref(K), ir::intConst(Ctx.IntTy, 0), BO_Assign,
                         S->getForLoc());
  Init->IsInit = true;
  Out.push_back(std::move(Init));
  auto L = std::make_unique<ir::Stmt>(StmtKind::Loop, S->getForLoc());
  L->TestFirst = true;
  L->V = K;
  L->Cond = ir::binary(BO_LT, ir::ref(K), Count, Ctx.BoolTy, S->getForLoc());
  L->inc().push_back(ir::assign(
      ir::ref(K), ir::binary(BO_Add, ir::ref(K), ir::intConst(Ctx.IntTy, 1),
                             Ctx.IntTy),
      BO_Assign, S->getForLoc()));

  QualType VT = LoopVar->getType();
  const Expr *VInit = LoopVar->getInit();
  // A reference bound to a converted copy keeps a temporary alive.
  const MaterializeTemporaryExpr *Temporary = nullptr;
  if (VInit) {
    const Expr *E = VInit->IgnoreParens();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
      E = EWC->getSubExpr()->IgnoreParens();
    Temporary = dyn_cast<MaterializeTemporaryExpr>(E);
  }
  bool OK = true;
  if (VT->isReferenceType() && VInit && !Temporary) {
    // Bound to the element itself (const added at most): an alias of a[k].
    const Expr *E = VInit->IgnoreParens();
    while (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
      if (ICE->getCastKind() != CK_NoOp)
        break;
      E = ICE->getSubExpr()->IgnoreParens();
    }
    if (!isCurrentElement(E, Begin)) {
      Diags.report(Loc, Diag::NotSupported)
          << ("loop variable '" + LoopVar->getNameAsString() +
              "' bound to a conversion of the element")
          << "declare it with the element type, or as 'auto &'";
      return false;
    }
    Aliases[LoopVar] = Elem;
  } else if (!Temporary && VInit && ElemTy.isConstQualified() &&
             VT->isArithmeticType() &&
             Ctx.hasSameUnqualifiedType(VT.getNonReferenceType(), ElemTy) &&
             !mayBeWritten(S->getBody(), LoopVar)) {
    // A copy of an element of a constant range that the body never changes
    // is the element itself: read again where it is used, never recorded
    // (nothing in the body changes the range).
    Aliases[LoopVar] = Elem;
  } else {
    // A copy of the element (or a reference bound to a converted copy,
    // which is a local holding it): `T v = a[k];` at the top of the body.
    if (Temporary)
      VInit = Temporary->getSubExpr();
    VT = VT.getNonReferenceType().getUnqualifiedType();
    Expr *NewInit = VInit ? withElement(Ctx, VInit, Begin, Elem) : nullptr;
    if (VT->isPointerType() || !NewInit) {
      Diags.report(Loc, Diag::NotSupported)
          << ("loop variable '" + LoopVar->getNameAsString() + "' of type '" +
              LoopVar->getType().getAsString() + "'")
          << (VT->isPointerType()
                  ? "loop over the rows by reference ('auto &" +
                        LoopVar->getNameAsString() + "')"
                  : std::string("declare it with the element type, by value "
                                "or by reference"));
      return false;
    }
    // A row of a vector of vectors: a local container, copied from it at
    // each iteration (LowerContainerInit.cpp).
    if (!containerElement(VT).isNull()) {
      ++LoopDepth;
      bool Copied = lowerContainerLocal(LoopVar, L->body(), NewInit);
      if (Copied)
        noteResizedContainer(LoopVar, L->body());
      --LoopDepth;
      if (!Copied)
        return false;
      ++LoopDepth;
      OK &= lowerStmt(S->getBody(), L->body());
      --LoopDepth;
      Out.push_back(std::move(L));
      return OK;
    }
    if (!checkType(VT, Loc, "local variable"))
      return false;
    Var *V = F->makeVar(Var::Kind::Local, LoopVar->getName(),
                        assignableType(VT), const_cast<VarDecl *>(LoopVar));
    Vars[LoopVar] = V;
    F->Locals.push_back(V);
    ir::Block &Body = L->body();
    size_t First = Body.size();
    if (!lowerInitInto(ir::ref(V), V->Type, NewInit, Body))
      return false;
    // Set once per iteration from the counter: the reverse sweep may
    // compute it again instead of recording it.
    for (size_t I = First; I < Body.size(); ++I)
      if (Body[I]->K == StmtKind::Assign && Body[I]->LHS->rootVar() == V)
        Body[I]->IsInit = true;
  }
  ++LoopDepth;
  OK &= lowerStmt(S->getBody(), L->body());
  --LoopDepth;
  Out.push_back(std::move(L));
  return OK;
}

} // namespace fluxion
