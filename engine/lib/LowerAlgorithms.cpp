//===- LowerAlgorithms.cpp - <algorithm> and <numeric> over containers ---===//
//
// A standard algorithm over a container's positions (LowerIterators.cpp)
// becomes code the engine already differentiates:
//
//  - given an operation (a lambda, std::plus and the like), a loop in place
//    that calls it on the elements: std::transform, std::for_each,
//    std::generate, std::accumulate, std::inner_product. The lambda's body
//    is inlined at each call (LowerLambda.cpp), so captured variables get
//    their adjoints as in a lambda called by hand;
//  - otherwise a call of the runtime's version over pointers into the
//    storage (runtime/include/fluxion/algorithm.hpp: fill, copy,
//    partial_sum, sort, ...), whose body is differentiated like a callee
//    of the user's: the rules are data, and adding an algorithm is adding
//    a function there;
//  - std::copy, std::copy_n, std::fill and std::fill_n over containers of
//    numbers, a loop in place over the elements (out[k] = in[k]), as the
//    user would write it: the analyses then see that a copy's reverse
//    reads neither range, so the source, often a scratch buffer rewritten
//    at the next step, is not recorded for it;
//  - an algorithm returning a position (max_element, find, lower_bound, as
//    marked in algorithm.hpp) gives the first position plus an integer
//    that carries no derivative: *std::max_element(b, e) reads x[k].
//
// std::max({a, b, c}) and std::min({...}) are nested calls of the
// runtime's max_of / min_of (minmax.hpp), which select as the library
// does. An operation the engine cannot inline (a function pointer, a
// function object of the user's) and an algorithm the runtime does not
// have are located errors.
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ScopeExit.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

namespace {

bool isIterator(const clang::Expr *E) { return isIteratorExpr(E); }

/// The operator std::plus, std::minus, std::multiplies or std::divides
/// applies, for an argument of that type; BO_Comma for any other.
BinaryOperatorKind functionalOperator(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->isInStdNamespace() || !RD->getIdentifier())
    return BO_Comma;
  return llvm::StringSwitch<BinaryOperatorKind>(RD->getName())
      .Case("plus", BO_Add)
      .Case("minus", BO_Sub)
      .Case("multiplies", BO_Mul)
      .Case("divides", BO_Div)
      .Default(BO_Comma);
}

/// std::back_inserter(v), std::ostream_iterator and the like: positions
/// in no container.
bool isOutputIterator(const clang::Expr *E) {
  const auto *RD = E->getType().getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         RD->getName().ends_with("iterator") && !isIterator(E);
}

/// An argument that is an operation: a closure, a function object, a
/// function.
bool isOperation(const clang::Expr *E) {
  if (isOutputIterator(E))
    return false;
  QualType T = E->getType().getNonReferenceType();
  if (T->isFunctionPointerType() || T->isFunctionType())
    return true;
  const auto *RD = T->getAsCXXRecordDecl();
  return RD && !isIterator(E) && containerElement(T).isNull() &&
         !isDifferentiableRecord(T);
}

/// Where each argument of an algorithm that takes an operation goes.
struct LoopShape {
  int In1 = -1, Last = -1, In2 = -1, Out = -1, Init = -1, Op = -1, Op2 = -1;
};

std::optional<LoopShape> loopShape(StringRef Name, unsigned NArgs) {
  LoopShape S;
  if (Name == "transform" && NArgs == 4)
    S.In1 = 0, S.Last = 1, S.Out = 2, S.Op = 3;
  else if (Name == "transform" && NArgs == 5)
    S.In1 = 0, S.Last = 1, S.In2 = 2, S.Out = 3, S.Op = 4;
  else if (Name == "for_each" && NArgs == 3)
    S.In1 = 0, S.Last = 1, S.Op = 2;
  else if (Name == "generate" && NArgs == 3)
    S.Out = 0, S.Last = 1, S.Op = 2;
  else if (Name == "accumulate" && NArgs == 4)
    S.In1 = 0, S.Last = 1, S.Init = 2, S.Op = 3;
  else if (Name == "inner_product" && NArgs == 6)
    S.In1 = 0, S.Last = 1, S.In2 = 2, S.Init = 3, S.Op = 4, S.Op2 = 5;
  else if ((Name == "count_if" || Name == "any_of" || Name == "all_of" ||
            Name == "none_of" || Name == "max_element" ||
            Name == "min_element" || Name == "find_if" ||
            Name == "find_if_not") &&
           NArgs == 3)
    S.In1 = 0, S.Last = 1, S.Op = 2;
  else
    return std::nullopt;
  return S;
}

/// A declaration that exists only for the lowering (never emitted): lets
/// an IR variable be named by a clang expression handed to a lambda.
DeclRefExpr *loweringOnlyRef(ASTContext &Ctx, const FunctionDecl *Owner,
                             StringRef Name, QualType T, SourceLocation Loc,
                             VarDecl *&VD) {
  VD = VarDecl::Create(Ctx, const_cast<FunctionDecl *>(Owner), Loc, Loc,
                       &Ctx.Idents.get(Name), T,
                       Ctx.getTrivialTypeSourceInfo(T, Loc), SC_None);
  return DeclRefExpr::Create(Ctx, NestedNameSpecifierLoc(), SourceLocation(),
                             VD, false, Loc, T, VK_LValue);
}

clang::Expr *rvalue(ASTContext &Ctx, clang::Expr *E) {
  return ImplicitCastExpr::Create(Ctx, E->getType(), CK_LValueToRValue, E,
                                  nullptr, VK_PRValue, FPOptionsOverride());
}

} // namespace

bool FunctionLowering::lowerAlgorithmArgs(const CallExpr *E, ir::Block &Pre,
                                          llvm::SmallVectorImpl<ExprP> &Args,
                                          llvm::SmallVectorImpl<QualType> &Types,
                                          IteratorPosition *First) {
  for (const clang::Expr *A : E->arguments()) {
    if (isIterator(A)) {
      std::optional<IteratorPosition> P = lowerIteratorPosition(A, Pre);
      if (!P || !P->Pos)
        return false;
      if (First && Args.empty())
        *First = *P;
      Args.push_back(iteratorPointer(*P));
      Types.push_back(Args.back()->Ty);
      continue;
    }
    ExprP V = lowerExpr(A, Pre);
    if (!V)
      return false;
    Args.push_back(V);
    Types.push_back(V->Ty->isPointerType() ? V->Ty
                                           : A->getType().getNonReferenceType());
  }
  return true;
}

std::optional<FunctionLowering::IteratorPosition>
FunctionLowering::lowerPositionAlgorithm(const CallExpr *E, ir::Block &Pre) {
  const FunctionDecl *Callee = E->getDirectCallee();
  if (!Callee || !Callee->getIdentifier() || !Callee->isInStdNamespace() ||
      E->getNumArgs() == 0 || !isIterator(E->getArg(0)) ||
      !hasPositionMarker(Callee->getName()))
    return std::nullopt;
  StringRef Name = Callee->getName();
  SourceLocation Loc = E->getExprLoc();
  IteratorPosition Failed;
  for (const clang::Expr *A : E->arguments())
    if (isOperation(A)) {
      // A comparison (max_element, min_element) or a test (find_if,
      // find_if_not) of the user's: a loop in place keeping the index,
      // the lambda inlined; the index carries no derivative.
      ExprP K;
      if (!loopShape(Name, E->getNumArgs()) ||
          !(Name.ends_with("_element") || Name.starts_with("find_if"))) {
        Diags.report(A->getExprLoc(), Diag::NotSupported)
            << ("std::" + Name.str() + " with a comparison or test of its own")
            << "write the loop, keeping the index of the element you want";
        return Failed;
      }
      if (!lowerAlgorithmLoop(E, Name, Pre, K) || !K)
        return Failed;
      std::optional<IteratorPosition> First =
          lowerIteratorPosition(E->getArg(0), Pre);
      if (!First || !First->Pos)
        return Failed;
      First->Pos =
          ir::binary(BO_Add, First->Pos, K, Ctx.getPointerDiffType(), Loc);
      return First;
    }
  llvm::SmallVector<ExprP, 4> Args;
  llvm::SmallVector<QualType, 4> Types;
  IteratorPosition First;
  if (!lowerAlgorithmArgs(E, Pre, Args, Types, &First))
    return Failed;
  if (runtimeLookup(Ctx, Name).empty()) {
    Diags.report(Loc, Diag::NotSupported)
        << ("std::" + Name.str() + " over a container")
        << "write the loop, keeping the index of the element you want";
    return Failed;
  }
  FunctionDecl *FD = Runtime ? Runtime(Name, Types, Loc) : nullptr;
  if (!FD)
    return Failed;
  // first + k, k = algorithm(first, ...) - first: an integer that carries
  // no derivative.
  ExprP SG = ir::stopGrad(ir::call(FD, Args, FD->getReturnType(), Loc),
                          FD->getReturnType(), Loc);
  QualType Diff = Ctx.getPointerDiffType();
  ExprP K = materialize(ir::binary(BO_Sub, SG, Args[0], Diff), Pre, "_pos",
                        Loc);
  First.Pos = ir::binary(BO_Add, First.Pos, K, Diff, Loc);
  return First;
}

/// std::max({a, b, c}), std::min({...}): max_of(max_of(a, b), c).
static bool isListMinMax(const CallExpr *E, StringRef Name) {
  if ((Name != "max" && Name != "min") || E->getNumArgs() != 1)
    return false;
  const auto *RD = E->getArg(0)->getType()->getAsCXXRecordDecl();
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         RD->getName() == "initializer_list";
}

bool FunctionLowering::lowerAlgorithm(const CallExpr *E, ir::Block &Pre,
                                      ExprP &Out, bool Discarded) {
  Out = nullptr;
  const FunctionDecl *Callee = E->getDirectCallee();
  if (!Callee || isa<CXXMethodDecl>(Callee) || !Callee->isInStdNamespace() ||
      !Callee->getIdentifier())
    return false;
  StringRef Name = Callee->getName();
  SourceLocation Loc = E->getExprLoc();

  if (isListMinMax(E, Name)) {
    const clang::Expr *L = E->getArg(0)->IgnoreImplicit();
    if (const auto *SIL = dyn_cast<CXXStdInitializerListExpr>(L))
      L = SIL->getSubExpr()->IgnoreImplicit();
    const auto *IL = dyn_cast<InitListExpr>(L);
    if (!IL || IL->getNumInits() == 0) {
      Diags.report(Loc, Diag::NotSupported)
          << ("std::" + Name.str() + " of a list that is not written out")
          << "write the values in the call (std::max({a, b, c}))";
      return true;
    }
    QualType T = E->getType().getNonReferenceType().getUnqualifiedType();
    ExprP Acc = lowerExpr(IL->getInit(0), Pre);
    for (unsigned I = 1; Acc && I < IL->getNumInits(); ++I) {
      ExprP Next = lowerExpr(IL->getInit(I), Pre);
      FunctionDecl *FD = Next && Runtime
                             ? Runtime((Name + "_of").str(), {T, T}, Loc)
                             : nullptr;
      if (!FD)
        return true;
      Acc = materialize(ir::call(FD, {Acc, Next}, T, Loc), Pre,
                        ("_" + Name).str(), Loc);
    }
    Out = Acc;
    return true;
  }

  bool OverIterators = llvm::any_of(
      E->arguments(), [](const clang::Expr *A) { return isIterator(A); });
  // The folds also take pointers (std::accumulate(x, x + n, 0.)).
  bool OverPointers = (Name == "accumulate" || Name == "inner_product") &&
                      E->getNumArgs() > 0 &&
                      E->getArg(0)->getType()->isPointerType();
  if (!OverIterators && !OverPointers)
    return false;
  if (llvm::is_contained({"begin", "end", "cbegin", "cend", "next", "prev",
                          "distance", "move", "forward", "as_const"},
                         Name))
    return false;
  // A position (std::max_element(b, e) used other than through *): a
  // pointer into the storage.
  if (isIterator(E) && hasPositionMarker(Name)) {
    if (std::optional<IteratorPosition> P = lowerIteratorPosition(E, Pre);
        P && P->Pos)
      Out = iteratorPointer(*P);
    return true;
  }
  // A std::array's positions are pointers: the same, as a pointer.
  if (!isIterator(E) && E->getType()->isPointerType() &&
      hasPositionMarker(Name))
    if (std::optional<IteratorPosition> P = lowerPositionAlgorithm(E, Pre)) {
      if (P->Pos)
        Out = iteratorPointer(*P);
      return true;
    }
  if (isIterator(E) && !Discarded) {
    Diags.report(Loc, Diag::NotSupported)
        << ("using the iterator std::" + Name.str() + " returns")
        << "call it as a statement, and compute the position you need "
           "from the ranges you gave it";
    return true;
  }
  for (const clang::Expr *A : E->arguments())
    if (isOutputIterator(A)) {
      Diags.report(A->getExprLoc(), Diag::NotSupported)
          << ("std::" + Name.str() +
              " writing through an inserter or another kind of output "
              "iterator")
          << "size the output first ('out.resize(n);') and pass "
             "'out.begin()'";
      return true;
    }
  if (llvm::any_of(E->arguments(),
                   [](const clang::Expr *A) { return isOperation(A); }))
    return lowerAlgorithmLoop(E, Name, Pre, Out);

  if (lowerElementLoop(E, Name, Pre, Out))
    return true;
  // The runtime's version over pointers into the storage.
  if (runtimeLookup(Ctx, Name).empty()) {
    Diags.report(Loc, Diag::NotSupported)
        << ("std::" + Name.str() + " over a container")
        << "write the loop (a range-based for or an index loop)";
    return true;
  }
  llvm::SmallVector<ExprP, 4> Args;
  llvm::SmallVector<QualType, 4> Types;
  if (!lowerAlgorithmArgs(E, Pre, Args, Types))
    return true;
  FunctionDecl *FD = Runtime ? Runtime(Name, Types, Loc) : nullptr;
  if (!FD)
    return true;
  Out = ir::call(FD, Args,
                 isIterator(E) ? FD->getReturnType() : E->getType(), Loc);
  return true;
}

bool FunctionLowering::lowerAlgorithmLoop(const CallExpr *E, StringRef Name,
                                          ir::Block &Pre, ExprP &Out) {
  SourceLocation Loc = E->getExprLoc();
  std::optional<LoopShape> S = loopShape(Name, E->getNumArgs());
  if (!S || !isIterator(E->getArg(S->Last)) ||
      (S->In1 >= 0 && !isIterator(E->getArg(S->In1)))) {
    Diags.report(Loc, Diag::NotSupported)
        << ("std::" + Name.str() + " with an operation of its own" +
            (S ? " over pointers" : ""))
        << "write the loop (a range-based for or an index loop over the "
           "container)";
    return true;
  }
  // Another range and the output: positions in containers of the
  // function, never an inserter.
  for (int Index : {S->In2, S->Out})
    if (Index >= 0 && !isIterator(E->getArg(Index))) {
      bool Output = Index == S->Out;
      Diags.report(E->getArg(Index)->getExprLoc(), Diag::NotSupported)
          << ("std::" + Name.str() +
              (Output ? " writing through an inserter or another kind of "
                        "output iterator"
                      : " reading a second range that is not a position in "
                        "a container"))
          << (Output ? "size the output first ('out.resize(n);') and pass "
                       "'out.begin()'"
                     : "pass a position in a container ('y.begin()')");
      return true;
    }
  // The operations: lambdas (inlined) or std::plus and the like.
  struct Operation {
    const CXXRecordDecl *Closure = nullptr;
    LambdaCopies Fresh;
    const LambdaCopies *Copies = nullptr;
    BinaryOperatorKind Op = BO_Comma;
  };
  Operation Ops[2];
  for (int I = 0; I < 2; ++I) {
    int Index = I == 0 ? S->Op : S->Op2;
    if (Index < 0)
      continue;
    const clang::Expr *A = withoutCopies(E->getArg(Index));
    Operation &O = Ops[I];
    O.Op = functionalOperator(A->getType());
    if (O.Op != BO_Comma)
      continue;
    O.Closure = A->getType().getNonReferenceType()->getAsCXXRecordDecl();
    if (!O.Closure || !O.Closure->isLambda()) {
      Diags.report(A->getExprLoc(), Diag::NotSupported)
          << ("a function or function object given to std::" + Name.str())
          << "pass a lambda that calls it ('[&](double v) { return f(v); "
             "}')";
      return true;
    }
    // The algorithm copies the closure once: its captures are taken now.
    O.Copies = closureCopies(A, O.Fresh, Pre, A->getExprLoc());
    if (!O.Copies)
      return true;
  }

  // The positions the ranges start at, and the count.
  const clang::Expr *FirstArg = E->getArg(S->In1 >= 0 ? S->In1 : S->Out);
  std::optional<IteratorPosition> First = lowerIteratorPosition(FirstArg, Pre);
  if (!First || !First->Pos)
    return true;
  QualType Diff = Ctx.getPointerDiffType();
  ExprP N = compareIterators(BO_Sub, E->getArg(S->Last), FirstArg, Diff, Pre,
                             Loc);
  if (!N)
    return true;
  N = materialize(N, Pre, "_n", Loc);
  const FunctionDecl *Owner = F->Primal;
  VarDecl *KDecl = nullptr;
  clang::Expr *KRef =
      loweringOnlyRef(Ctx, Owner, "__fluxion_algorithm_index", Diff, Loc, KDecl);
  Var *K = F->makeVar(Var::Kind::Local, "_k", Diff);
  F->Locals.push_back(K);
  Vars[KDecl] = K;
  // `x[k]`, or `x[k + s]` with s the start of the range, as clang
  // expressions a lambda's parameters can be bound to.
  auto Element = [&](const IteratorPosition &P, StringRef StartName,
                     clang::Expr *At = nullptr) -> clang::Expr * {
    clang::Expr *Idx = rvalue(Ctx, At ? At : KRef);
    if (!(P.Pos->K == ir::ExprKind::Const && P.Pos->isZero())) {
      VarDecl *SDecl = nullptr;
      clang::Expr *SRef =
          loweringOnlyRef(Ctx, Owner, StartName, Diff, Loc, SDecl);
      Var *Start = F->makeVar(Var::Kind::Local, "_start", Diff);
      F->Locals.push_back(Start);
      Vars[SDecl] = Start;
      Pre.push_back(ir::assign(ir::ref(Start), P.Pos, BO_Assign, Loc));
      Pre.back()->IsInit = true;
      Idx = BinaryOperator::Create(Ctx, Idx, rvalue(Ctx, SRef), BO_Add, Diff,
                                   VK_PRValue, OK_Ordinary, Loc,
                                   FPOptionsOverride());
    }
    QualType ElemTy = P.Storage->Ty->getPointeeType();
    auto *Elem = new (Ctx) ArraySubscriptExpr(
        const_cast<clang::Expr *>(P.Container), Idx, ElemTy, VK_LValue,
        OK_Ordinary, Loc);
    StablePlaces.insert(Elem);
    return Elem;
  };
  clang::Expr *In1 = S->In1 >= 0 ? Element(*First, "__fluxion_first1") : nullptr;
  clang::Expr *In2 = nullptr, *OutElem = nullptr;
  if (S->In2 >= 0) {
    std::optional<IteratorPosition> P =
        lowerIteratorPosition(E->getArg(S->In2), Pre);
    if (!P || !P->Pos)
      return true;
    In2 = Element(*P, "__fluxion_first2");
  }
  if (S->Out >= 0) {
    std::optional<IteratorPosition> P =
        S->Out == 0 ? First : lowerIteratorPosition(E->getArg(S->Out), Pre);
    if (!P || !P->Pos)
      return true;
    OutElem = Element(*P, "__fluxion_out");
  }
  // The accumulator of a fold, named by a clang expression too.
  Var *Acc = nullptr;
  clang::Expr *AccRef = nullptr;
  if (S->Init >= 0) {
    QualType T = E->getType().getNonReferenceType().getUnqualifiedType();
    VarDecl *AccDecl = nullptr;
    AccRef = loweringOnlyRef(Ctx, Owner, "__fluxion_acc", T, Loc, AccDecl);
    Acc = F->makeVar(Var::Kind::Local, "_acc", T);
    F->Locals.push_back(Acc);
    Vars[AccDecl] = Acc;
    size_t FirstInit = Pre.size();
    if (!lowerInitInto(ir::ref(Acc), T, E->getArg(S->Init), Pre))
      return true;
    for (size_t J = FirstInit; J < Pre.size(); ++J)
      if (Pre[J]->K == ir::StmtKind::Assign && Pre[J]->LHS->rootVar() == Acc)
        Pre[J]->IsInit = true;
  }

  // The position a comparison selects or a test finds: an index into the
  // range, with no derivative (n when nothing is found).
  bool Select = Name == "max_element" || Name == "min_element";
  bool Find = Name == "find_if" || Name == "find_if_not";
  clang::Expr *Best = nullptr;
  if (Select || Find) {
    VarDecl *BestDecl = nullptr;
    clang::Expr *BestRef = loweringOnlyRef(Ctx, Owner, "__fluxion_best", Diff,
                                           Loc, BestDecl);
    Acc = F->makeVar(Var::Kind::Local, Select ? "_best" : "_found", Diff);
    F->Locals.push_back(Acc);
    Vars[BestDecl] = Acc;
    Pre.push_back(ir::assign(ir::ref(Acc),
                             Select ? ir::intConst(Diff, 0) : N, BO_Assign,
                             Loc));
    Pre.back()->IsInit = true;
    if (Select)
      Best = Element(*First, "__fluxion_first_best", BestRef);
  }

  // The tests' counts and answers: an integer or a bool, folded in the
  // loop with no derivative (count_if, any_of, all_of, none_of).
  bool Test = Name == "count_if" || Name == "any_of" || Name == "all_of" ||
              Name == "none_of";
  if (Test) {
    QualType T = E->getType().getNonReferenceType().getUnqualifiedType();
    Acc = F->makeVar(Var::Kind::Local, ("_" + Name).str(), T);
    F->Locals.push_back(Acc);
    ExprP Start = T->isBooleanType()
                      ? ir::boolConst(Ctx, Name == "all_of")
                      : ir::intConst(T, 0);
    Pre.push_back(ir::assign(ir::ref(Acc), Start, BO_Assign, Loc));
    Pre.back()->IsInit = true;
  }

  ir::Block Body;
  ++LoopDepth;
  auto Leave = llvm::make_scope_exit([&] { --LoopDepth; });
  // Applies operation I to the arguments (clang expressions).
  auto Apply = [&](int I, ArrayRef<clang::Expr *> Args) -> ExprP {
    Operation &O = Ops[I];
    if (O.Op != BO_Comma) {
      ExprP A = lowerExpr(Args[0], Body);
      ExprP B = A ? lowerExpr(Args[1], Body) : nullptr;
      if (!B)
        return nullptr;
      // The usual arithmetic conversions, for numbers.
      QualType T = A->Ty.getUnqualifiedType();
      QualType U = B->Ty.getUnqualifiedType();
      if (U->isRealFloatingType() &&
          (!T->isRealFloatingType() || Ctx.getFloatingTypeOrder(U, T) > 0))
        T = U;
      return ir::binary(O.Op, ir::cast(T, A), ir::cast(T, B), T, Loc);
    }
    llvm::SmallVector<QualType, 2> Types;
    for (const clang::Expr *A : Args)
      Types.push_back(A->getType());
    const CXXMethodDecl *Call =
        O.Closure->isGenericLambda() && LambdaCall
            ? LambdaCall(O.Closure, Types, Loc)
            : O.Closure->getLambdaCallOperator();
    if (!Call || Call->getNumParams() != Args.size()) {
      Diags.report(Loc, Diag::NotSupported)
          << ("a lambda given to std::" + Name.str() +
              " that takes other arguments than the algorithm passes")
          << "take the elements as the lambda's parameters";
      return nullptr;
    }
    llvm::SmallVector<const clang::Expr *, 2> ArgsConst(Args.begin(),
                                                        Args.end());
    return inlineLambda(Call, *O.Copies, ArgsConst, Body, Loc);
  };
  ExprP Result;
  if (Name == "inner_product") {
    ExprP Product = Apply(1, {In1, In2});
    if (!Product)
      return true;
    // Named, so that the lambda's parameter can be bound to it.
    VarDecl *TDecl = nullptr;
    clang::Expr *TRef = loweringOnlyRef(Ctx, Owner, "__fluxion_term",
                                        Product->Ty.getUnqualifiedType(), Loc,
                                        TDecl);
    Var *Term = F->makeVar(Var::Kind::Local, "_term",
                           Product->Ty.getUnqualifiedType());
    F->Locals.push_back(Term);
    Vars[TDecl] = Term;
    Body.push_back(ir::assign(ir::ref(Term), Product, BO_Assign, Loc));
    Result = Apply(0, {AccRef, TRef});
  } else if (Name == "accumulate") {
    Result = Apply(0, {AccRef, In1});
  } else if (Name == "generate") {
    Result = Apply(0, {});
  } else if (In2) {
    Result = Apply(0, {In1, In2});
  } else if (Select) {
    // std::max_element keeps the first largest: it moves on when
    // comp(*best, *it); std::min_element when comp(*it, *best).
    Result = Name == "max_element" ? Apply(0, {Best, In1})
                                   : Apply(0, {In1, Best});
  } else {
    Result = Apply(0, {In1});
  }
  if (!Result)
    return true;
  // The result goes to the accumulator or the output element; an object
  // member by member.
  auto Store = [&](ExprP Place) {
    QualType T = Place->Ty.getUnqualifiedType();
    if (T->isRecordType())
      return copyMembers(Place, Result, T, Loc, Body);
    Body.push_back(
        ir::assign(Place, convertResult(Result, T, Body), BO_Assign, Loc));
    return true;
  };
  if (Select || Find) {
    ExprP Holds = ir::cast(Ctx.BoolTy, Result);
    if (Name == "find_if_not")
      Holds = ir::unary(UO_LNot, Holds, Ctx.BoolTy);
    if (Find)
      Holds = ir::binary(BO_LAnd,
                         ir::binary(BO_EQ, ir::ref(Acc), N, Ctx.BoolTy, Loc),
                         Holds, Ctx.BoolTy, Loc);
    Body.push_back(ir::assign(
        ir::ref(Acc), ir::cond(Holds, ir::ref(K), ir::ref(Acc), Diff),
        BO_Assign, Loc));
  } else if (Test) {
    QualType T = Acc->Type;
    ExprP Holds = ir::cast(Ctx.BoolTy, Result);
    ExprP Next =
        !T->isBooleanType()
            ? ir::binary(BO_Add, ir::ref(Acc),
                         ir::cond(Holds, ir::intConst(T, 1), ir::intConst(T, 0), T),
                         T, Loc)
        : Name == "all_of"
            ? ir::binary(BO_LAnd, ir::ref(Acc), Holds, T, Loc)
            : ir::binary(BO_LOr, ir::ref(Acc), Holds, T, Loc);
    Body.push_back(ir::assign(ir::ref(Acc), Next, BO_Assign, Loc));
    if (Name == "none_of")
      Out = ir::unary(UO_LNot, ir::ref(Acc, Loc), T);
  } else if (Acc) {
    if (!Store(ir::ref(Acc)))
      return true;
  } else if (OutElem) {
    ExprP Place = lowerExpr(OutElem, Body);
    if (!Place || !Store(Place))
      return true;
  }

  // k = 0; while (k < n) { body; k = k + 1; }
  Pre.push_back(ir::assign(ir::ref(K), ir::intConst(Diff, 0), BO_Assign, Loc));
  Pre.back()->IsInit = true;
  auto L = std::make_unique<ir::Stmt>(ir::StmtKind::Loop, Loc);
  L->TestFirst = true;
  L->V = K;
  L->Cond = ir::binary(BO_LT, ir::ref(K), N, Ctx.BoolTy, Loc);
  L->inc().push_back(ir::assign(
      ir::ref(K), ir::binary(BO_Add, ir::ref(K), ir::intConst(Diff, 1), Diff),
      BO_Assign, Loc));
  L->Then = std::move(Body);
  Pre.push_back(std::move(L));
  if (!Out)
    Out = Acc ? ir::ref(Acc, Loc) : ir::intConst(Ctx.IntTy, 0);
  return true;
}

bool FunctionLowering::lowerElementLoop(const CallExpr *E, StringRef Name,
                                        ir::Block &Pre, ExprP &Out) {
  bool Copy = Name == "copy" || Name == "copy_n";
  bool Counted = Name == "copy_n" || Name == "fill_n";
  if ((!Copy && Name != "fill" && Name != "fill_n") || E->getNumArgs() != 3)
    return false;
  // The ranges: copy(first, last, out), copy_n(first, n, out),
  // fill(first, last, v), fill_n(first, n, v). Every position must be an
  // iterator of a container of numbers; anything else (a raw pointer, an
  // inserter, objects) goes to the runtime's version.
  const clang::Expr *First = E->getArg(0);
  const clang::Expr *Last = Counted ? nullptr : E->getArg(1);
  const clang::Expr *Dest = Copy ? E->getArg(2) : nullptr;
  if (!isIterator(First) || (Last && !isIterator(Last)) ||
      (Dest && !isIterator(Dest)))
    return false;
  SourceLocation Loc = E->getExprLoc();
  QualType Diff = Ctx.getPointerDiffType();
  ir::Block Setup;
  std::optional<IteratorPosition> From = lowerIteratorPosition(First, Setup);
  std::optional<IteratorPosition> To =
      !From ? From : Dest ? lowerIteratorPosition(Dest, Setup) : From;
  if (!From || !To)
    return false;
  // An error, reported.
  if (!From->Pos || !To->Pos)
    return true;
  auto Numbers = [](const IteratorPosition &P) {
    return P.Storage && P.Storage->Ty->isPointerType() &&
           P.Storage->Ty->getPointeeType()->isArithmeticType();
  };
  if (!Numbers(*From) || !Numbers(*To))
    return false;
  ExprP N = Last ? compareIterators(BO_Sub, Last, First, Diff, Setup, Loc)
                 : lowerExpr(E->getArg(1), Setup);
  ExprP Value = Copy || !N ? nullptr : lowerExpr(E->getArg(2), Setup);
  if (!N || (!Copy && !Value))
    return true;
  llvm::append_range(Pre, llvm::make_range(
                              std::make_move_iterator(Setup.begin()),
                              std::make_move_iterator(Setup.end())));
  // Evaluated once, before any element is written (the library takes the
  // fill value by reference but copies it first; a count below zero
  // copies nothing).
  N = materialize(ir::cast(Diff, N), Pre, "_n", Loc);
  // Where each range starts (k itself from the first element, the form
  // the recording of whole ranges recognises).
  auto Start = [&](const IteratorPosition &P) -> ExprP {
    ExprP S = ir::cast(Diff, P.Pos);
    return S->K == ir::ExprKind::Const ? S : materialize(S, Pre, "_at", Loc);
  };
  auto At = [&](const IteratorPosition &P, ExprP S, ExprP K) {
    ExprP Idx = S->K == ir::ExprKind::Const && S->isZero()
                    ? K
                    : ir::binary(BO_Add, S, K, Diff);
    return ir::index(P.Storage, Idx, P.Storage->Ty->getPointeeType());
  };
  ExprP Src = Copy ? Start(*From) : nullptr;
  ExprP Dst = Start(*To);
  QualType DstElem = To->Storage->Ty->getPointeeType().getUnqualifiedType();
  if (Value)
    Value = materialize(ir::cast(DstElem, Value), Pre, "_v", Loc);
  appendIndexLoop(0, N, Loc, Pre, [&](ExprP K, ir::Block &Body) {
    ExprP V = Copy ? ir::cast(DstElem, At(*From, Src, K)) : Value;
    Body.push_back(ir::assign(At(*To, Dst, K), V, BO_Assign, Loc));
  });
  Out = ir::intConst(Ctx.IntTy, 0);
  return true;
}

} // namespace fluxion
