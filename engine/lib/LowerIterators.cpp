//===- LowerIterators.cpp - Iterators of containers as positions ---------===//
//
// An iterator of a std::vector is a position in its storage: the container
// variable plus an integer. The lowering removes the iterator, so that the
// analyses and builders see an integer local and indexed elements, as for
// an index loop:
//
//   auto it = x.begin();        it_pos = 0
//   x.end(), std::end(x)        Size(x)
//   ++it, it += n, it = e       it_pos = it_pos + 1, it_pos + n, pos(e)
//   *it, it[n], it->m           x[it_pos], x[it_pos + n], x[it_pos].m
//   it != e, it < e             it_pos != Size(x), ...
//   e - it, std::distance       positions subtracted
//   std::next(it, n), prev      it_pos + n, it_pos - n
//   *std::max_element(b, e)     x[k], k the position the algorithm returns
//                               (LowerAlgorithms.cpp)
//
// The position is an integer the engine follows like any other (the reverse
// sweep restores it where it changes). Comparing or subtracting iterators
// of two containers, moving an iterator to another container, reverse
// iterators and iterators passed to functions are located errors.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/FunctionViews.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

namespace {

bool isIterator(const clang::Expr *E) { return isIteratorExpr(E); }

/// E without the copies, temporaries and conversions (iterator to
/// const_iterator) an iterator passes through.
const clang::Expr *bareIterator(const clang::Expr *E) {
  while (true) {
    E = E->IgnoreParens();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
      E = EWC->getSubExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      E = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
      E = BT->getSubExpr();
    else if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E))
      E = ICE->getSubExpr();
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
             CE && CE->getNumArgs() == 1 && !isa<CXXTemporaryObjectExpr>(CE) &&
             isIterator(CE->getArg(0)))
      E = CE->getArg(0);
    else
      return E;
  }
}

/// A std function's name, when E calls one (not a method).
StringRef stdFunction(const CallExpr *E) {
  const FunctionDecl *FD = E->getDirectCallee();
  if (!FD || isa<CXXMethodDecl>(FD) || !FD->isInStdNamespace() ||
      !FD->getIdentifier())
    return {};
  return FD->getName();
}

/// The container of x.begin(), x.end(), std::begin(x), std::end(x) (their
/// c-forms too), and in Name the function's name; null for anything else.
const clang::Expr *containerEnd(const CallExpr *CE, StringRef &Name) {
  const clang::Expr *Object = nullptr;
  MemberCall MC = memberCall(CE);
  if (MC.Method && MC.Method->getIdentifier() && !MC.Arrow &&
      CE->getNumArgs() == MC.FirstArg) {
    Object = MC.Object;
    Name = MC.Method->getName();
  } else if (StringRef F = stdFunction(CE); !F.empty() &&
             CE->getNumArgs() == 1) {
    Object = CE->getArg(0);
    Name = F;
  }
  if (!Object || containerElement(Object->getType()).isNull() ||
      eigenShape(Object->getType().getNonReferenceType()) ||
      !llvm::is_contained({"begin", "cbegin", "end", "cend"}, Name))
    return nullptr;
  return Object;
}

} // namespace

bool isIteratorExpr(const clang::Expr *E) {
  if (!containerIteratorElement(E->getType()).isNull())
    return true;
  // A std::array's iterators are pointers: its begin() and end(), and
  // those moved by an integer (c.begin() + 1).
  if (!E->getType()->isPointerType())
    return false;
  const clang::Expr *B = bareIterator(E);
  if (const auto *BO = dyn_cast<BinaryOperator>(B);
      BO && (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub)) {
    const clang::Expr *It = BO->getLHS(), *N = BO->getRHS();
    if (BO->getOpcode() == BO_Add && !It->getType()->isPointerType())
      std::swap(It, N);
    return N->getType()->isIntegerType() && isIteratorExpr(It);
  }
  StringRef Name;
  const auto *CE = dyn_cast<CallExpr>(B);
  return CE && containerEnd(CE, Name);
}

ExprP FunctionLowering::iteratorPointer(const IteratorPosition &P) {
  if (P.Pos->K == ir::ExprKind::Const && P.Pos->isZero())
    return P.Storage;
  return ir::binary(BO_Add, P.Storage, P.Pos, P.Storage->Ty);
}

std::optional<FunctionLowering::IteratorPosition>
FunctionLowering::lowerIteratorPosition(const clang::Expr *E, ir::Block &Pre) {
  if (!isIterator(E))
    return std::nullopt;
  QualType Diff = Ctx.getPointerDiffType();
  SourceLocation Loc = E->getExprLoc();
  const clang::Expr *B = bareIterator(E);
  IteratorPosition Failed;
  auto Moved = [&](std::optional<IteratorPosition> P, ExprP Step,
                   BinaryOperatorKind Op) -> IteratorPosition {
    if (!P || !P->Pos || !Step)
      return Failed;
    P->Pos = ir::binary(Op, P->Pos, ir::cast(Diff, Step), Diff, Loc);
    return *P;
  };

  // A local iterator.
  if (const auto *DR = dyn_cast<DeclRefExpr>(B))
    if (const auto *VD = dyn_cast<VarDecl>(DR->getDecl())) {
      if (Poisoned.count(VD))
        return Failed;
      if (auto It = Iterators.find(VD); It != Iterators.end()) {
        IteratorPosition P;
        P.Container = It->second.Container;
        P.Storage = lowerExpr(P.Container, Pre);
        P.Pos = P.Storage ? ir::ref(It->second.Pos, Loc) : nullptr;
        return P;
      }
    }

  // c.begin() + n of a std::array: a pointer moved.
  if (const auto *BO = dyn_cast<BinaryOperator>(B);
      BO && (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub)) {
    const clang::Expr *It = BO->getLHS(), *N = BO->getRHS();
    if (BO->getOpcode() == BO_Add && !It->getType()->isPointerType())
      std::swap(It, N);
    return Moved(lowerIteratorPosition(It, Pre), lowerExpr(N, Pre),
                 BO->getOpcode());
  }
  if (const auto *CE = dyn_cast<CallExpr>(B)) {
    // x.begin(), x.end(), std::begin(x), std::end(x).
    StringRef Name;
    if (const clang::Expr *Object = containerEnd(CE, Name)) {
      const clang::Expr *Container = Object->IgnoreParenImpCasts();
      ExprP Storage =
          isa<DeclRefExpr>(Container) ? lowerExpr(Container, Pre) : nullptr;
      if (!Storage || Storage->K != ir::ExprKind::VarRef ||
          !isContainerStorageVar(Storage->V)) {
        if (!isa<DeclRefExpr>(Container) || Storage)
          Diags.report(Loc, Diag::NotSupported)
              << "an iterator of a container that is not a variable of the "
                 "function (a member, an element of another container, a "
                 "temporary)"
              << "pass the container to the function as a parameter of its "
                 "own, or index it";
        return Failed;
      }
      IteratorPosition P;
      P.Container = Container;
      P.Storage = Storage;
      P.Pos = Name.ends_with("end")
                  ? ir::cast(Diff, containerSize(Storage->V, Loc))
                  : ir::intConst(Diff, 0);
      return P;
    }
    // t.erase(p), t.insert(p, v): the size change, then the position p
    // (the element after the erased ones, the inserted one).
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE);
        MC && MC->getMethodDecl()->getIdentifier() &&
        (MC->getMethodDecl()->getName() == "erase" ||
         MC->getMethodDecl()->getName() == "insert" ||
         MC->getMethodDecl()->getName() == "emplace")) {
      const clang::Expr *Container =
          MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
      SizeChangeAt = nullptr;
      ExprP Ignored;
      if (!lowerContainerCall(MC, Pre, Ignored) || !SizeChangeAt)
        return Failed;
      IteratorPosition P;
      P.Container = Container;
      P.Storage = lowerExpr(Container, Pre);
      P.Pos = P.Storage ? ir::cast(Diff, SizeChangeAt) : nullptr;
      return P;
    }
    StringRef F = stdFunction(CE);
    // std::next(it, n), std::prev(it, n).
    if ((F == "next" || F == "prev") && CE->getNumArgs() >= 1) {
      ExprP N = CE->getNumArgs() > 1 ? lowerExpr(CE->getArg(1), Pre)
                                     : ir::intConst(Diff, 1);
      return Moved(lowerIteratorPosition(CE->getArg(0), Pre), N,
                   F == "next" ? BO_Add : BO_Sub);
    }
    // A position an algorithm returns (*std::max_element(b, e)).
    if (!F.empty())
      if (std::optional<IteratorPosition> P = lowerPositionAlgorithm(CE, Pre))
        return *P;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(CE)) {
      OverloadedOperatorKind K = Op->getOperator();
      if ((K == OO_Plus || K == OO_Minus) && Op->getNumArgs() == 2) {
        const clang::Expr *It = Op->getArg(0), *N = Op->getArg(1);
        if (!isIterator(It) && K == OO_Plus)
          std::swap(It, N);
        if (isIterator(It) && N->getType()->isIntegerType())
          return Moved(lowerIteratorPosition(It, Pre), lowerExpr(N, Pre),
                       K == OO_Plus ? BO_Add : BO_Sub);
      }
      if (K == OO_PlusPlus || K == OO_MinusMinus || K == OO_PlusEqual ||
          K == OO_MinusEqual || K == OO_Equal)
        return moveIterator(Op, Pre);
    }
  }
  Diags.report(Loc, Diag::NotSupported)
      << "this use of an iterator (only *it, it[n], it->m, ++it, --it, "
         "it += n, it + n, comparisons and differences of iterators of one "
         "container, std::next, std::prev and std::distance are followed)"
      << "index the container ('x[i]'), or keep the iterator in a local "
         "('auto it = x.begin();')";
  return Failed;
}

FunctionLowering::IteratorPosition
FunctionLowering::moveIterator(const CXXOperatorCallExpr *Op,
                               ir::Block &Pre) {
  IteratorPosition Failed;
  SourceLocation Loc = Op->getOperatorLoc();
  const clang::Expr *Target = bareIterator(Op->getArg(0));
  const auto *DR = dyn_cast<DeclRefExpr>(Target);
  const auto *VD = DR ? dyn_cast<VarDecl>(DR->getDecl()) : nullptr;
  auto It = VD ? Iterators.find(VD) : Iterators.end();
  if (It == Iterators.end()) {
    if (!VD || !Poisoned.count(VD))
      Diags.report(Loc, Diag::NotSupported)
          << "changing an iterator that is not a local variable"
          << "keep the iterator in a local ('auto it = x.begin();')";
    return Failed;
  }
  Var *Pos = It->second.Pos;
  QualType Diff = Pos->Type;
  OverloadedOperatorKind K = Op->getOperator();
  ExprP Value;
  if (K == OO_PlusPlus || K == OO_MinusMinus) {
    Value = ir::binary(K == OO_PlusPlus ? BO_Add : BO_Sub, ir::ref(Pos),
                       ir::intConst(Diff, 1), Diff, Loc);
  } else if (K == OO_Equal) {
    std::optional<IteratorPosition> P =
        lowerIteratorPosition(Op->getArg(1), Pre);
    if (!P || !P->Pos)
      return Failed;
    ExprP Own = lowerExpr(It->second.Container, Pre);
    if (!Own)
      return Failed;
    if (Own->K != ir::ExprKind::VarRef || P->Storage->K != ir::ExprKind::VarRef ||
        Own->V != P->Storage->V) {
      Diags.report(Loc, Diag::NotSupported)
          << ("moving iterator '" + VD->getNameAsString() +
              "' to another container")
          << "declare an iterator of its own for each container";
      return Failed;
    }
    Value = P->Pos;
  } else {
    ExprP N = lowerExpr(Op->getArg(1), Pre);
    if (!N)
      return Failed;
    Value = ir::binary(K == OO_PlusEqual ? BO_Add : BO_Sub, ir::ref(Pos),
                       ir::cast(Diff, N), Diff, Loc);
  }
  Pre.push_back(ir::assign(ir::ref(Pos), Value, BO_Assign, Loc));
  IteratorPosition P;
  P.Container = It->second.Container;
  P.Storage = lowerExpr(P.Container, Pre);
  if (!P.Storage)
    return Failed;
  P.Pos = ir::ref(Pos, Loc);
  // it++ and it-- yield the position before the step.
  if (Op->getNumArgs() == 2 && (K == OO_PlusPlus || K == OO_MinusMinus))
    P.Pos = ir::binary(K == OO_PlusPlus ? BO_Sub : BO_Add, P.Pos,
                       ir::intConst(Diff, 1), Diff, Loc);
  return P;
}

bool FunctionLowering::lowerIteratorLocal(const VarDecl *VD, ir::Block &Out) {
  const clang::Expr *Init = VD->getInit();
  std::optional<IteratorPosition> P =
      Init ? lowerIteratorPosition(Init, Out) : std::nullopt;
  if (!P) {
    Diags.report(VD->getLocation(), Diag::NotSupported)
        << ("iterator '" + VD->getNameAsString() + "' declared without a "
            "position in a container")
        << "initialise it where it is declared ('auto it = x.begin();')";
    return false;
  }
  if (!P->Pos)
    return false;
  Var *Pos = F->makeVar(Var::Kind::Local, (VD->getName() + "_pos").str(),
                        Ctx.getPointerDiffType());
  F->Locals.push_back(Pos);
  Out.push_back(ir::assign(ir::ref(Pos), P->Pos, BO_Assign, VD->getLocation()));
  Out.back()->IsInit = true;
  Iterators[VD] = {P->Container, Pos};
  return true;
}

ExprP FunctionLowering::compareIterators(BinaryOperatorKind Op,
                                         const clang::Expr *L,
                                         const clang::Expr *R, QualType Ty,
                                         ir::Block &Pre, SourceLocation Loc) {
  std::optional<IteratorPosition> A = lowerIteratorPosition(L, Pre);
  if (!A || !A->Pos)
    return nullptr;
  std::optional<IteratorPosition> B = lowerIteratorPosition(R, Pre);
  if (!B || !B->Pos)
    return nullptr;
  if (A->Storage->K != ir::ExprKind::VarRef ||
      B->Storage->K != ir::ExprKind::VarRef || A->Storage->V != B->Storage->V) {
    Diags.report(Loc, Diag::NotSupported)
        << "comparing or subtracting iterators of two containers"
        << "compare iterators of one container, or compare indices";
    return nullptr;
  }
  QualType Diff = Ctx.getPointerDiffType();
  return ir::cast(Ty, ir::binary(Op, A->Pos, B->Pos,
                                 Op == BO_Sub ? Diff : Ctx.BoolTy, Loc));
}

bool FunctionLowering::lowerIteratorComparison(
    const CXXRewrittenBinaryOperator *E, ir::Block &Pre, ExprP &Out) {
  CXXRewrittenBinaryOperator::DecomposedForm D = E->getDecomposedForm();
  if (!isIterator(D.LHS) || !isIterator(D.RHS))
    return false;
  Out = compareIterators(D.Opcode, D.LHS, D.RHS, E->getType(), Pre,
                         E->getOperatorLoc());
  return true;
}

bool FunctionLowering::lowerIteratorOp(const CallExpr *E, ir::Block &Pre,
                                       ExprP &Out) {
  Out = nullptr;
  SourceLocation Loc = E->getExprLoc();
  if (stdFunction(E) == "distance" && E->getNumArgs() == 2 &&
      isIterator(E->getArg(0))) {
    Out = compareIterators(BO_Sub, E->getArg(1), E->getArg(0), E->getType(),
                           Pre, Loc);
    return true;
  }
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
  if (!Op || Op->getNumArgs() == 0 ||
      !llvm::any_of(Op->arguments(),
                    [](const clang::Expr *A) { return isIterator(A); }))
    return false;
  OverloadedOperatorKind K = Op->getOperator();
  switch (K) {
  case OO_Star:
  case OO_Arrow:
  case OO_Subscript: {
    std::optional<IteratorPosition> P =
        lowerIteratorPosition(Op->getArg(0), Pre);
    if (!P || !P->Pos)
      return true;
    ExprP Pos = P->Pos;
    if (K == OO_Subscript) {
      ExprP N = lowerExpr(Op->getArg(1), Pre);
      if (!N)
        return true;
      Pos = ir::binary(BO_Add, Pos, ir::cast(Pos->Ty, N), Pos->Ty, Loc);
    }
    if (K == OO_Arrow) {
      Out = iteratorPointer({P->Container, P->Storage, Pos});
      return true;
    }
    Out = ir::index(P->Storage, Pos, P->Storage->Ty->getPointeeType());
    std::const_pointer_cast<ir::Expr>(Out)->Loc = Loc;
    return true;
  }
  case OO_EqualEqual:
  case OO_ExclaimEqual:
  case OO_Less:
  case OO_Greater:
  case OO_LessEqual:
  case OO_GreaterEqual:
  case OO_Minus:
    if (Op->getNumArgs() == 2 && isIterator(Op->getArg(0)) &&
        isIterator(Op->getArg(1))) {
      Out = compareIterators(
          BinaryOperator::getOverloadedOpcode(K), Op->getArg(0),
          Op->getArg(1), E->getType(), Pre, Loc);
      return true;
    }
    break;
  default:
    break;
  }
  // ++it, it += n, it + n, it = e: a position (its change made in Pre),
  // as a pointer where a value is needed.
  std::optional<IteratorPosition> P = lowerIteratorPosition(E, Pre);
  if (!P)
    Diags.report(Loc, Diag::NotSupported)
        << "this operation on an iterator"
        << "index the container ('x[i]')";
  else if (P->Pos)
    Out = iteratorPointer(*P);
  return true;
}

} // namespace fluxion
