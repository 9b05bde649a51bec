//===- LowerResize.cpp - Size changes of local std::vectors ---------------===//
//
// A local std::vector whose size changes after its declaration has its
// count as an integer local (noteResizedContainer, LowerContainer.cpp).
// Each call that changes its size is lowered onto three things the engine
// already follows: a Resize the reverse sweep undoes (ReverseResize.cpp),
// ordinary element assignments, and an assignment of the count:
//
//   t.resize(n, v)     old = t_n; resize(t, n); t[k] = v for k in [old, n)
//   t.assign(n, v)     resize(t, n); t[k] = v for k in [0, n)
//   t.clear()          resize(t, 0)
//   t.pop_back()       resize(t, t_n - 1)
//   t = x              resize(t, x_n); t[k] = x[k] for k in [0, x_n)
//   t = {a, b}         resize(t, 2); t[0] = a; t[1] = b
//   std::swap(t, u)    both resized to the longer, elements exchanged,
//                      each resized to the other's old size
//   t.erase(p)         t[k] = t[k + 1] for k in [p, t_n - 1); resize(t, t_n - 1)
//   t.erase(p, q)      the same by q - p
//   t.assign(b, e)     resize(t, e - b); t[k] = x[b + k] (b, e in x)
//   t.insert(p, v)     resize(t, t_n + 1); t[k] = t[k - 1] for k from t_n
//                      down to p + 1; t[p] = v (v read first)
//   t.insert(p, n, v)  the same by n, with n copies of v; also by e - b
//   t.insert(p, b, e)  with x[b], ..., x[e - 1] (b, e in x), and by 2
//   t.insert(p, {a, b}) with a and b
//
// each followed by t_n = the new size. push_back (LowerContainer.cpp)
// grows by one without saving anything.
//
//===----------------------------------------------------------------------===//
#include "EigenLowering.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace fluxion {
using ir::ExprP;
using ir::Var;

void FunctionLowering::lowerSizeChange(const CallExpr *E, StringRef Name,
                                       Var *V, Var *Count, ir::Block &Pre,
                                       ExprP &Out) {
  Out = nullptr;
  SourceLocation Loc = E->getExprLoc();
  QualType SizeTy = Ctx.getSizeType();
  QualType Elem = V->Type->getPointeeType();
  ExprP Storage = ir::ref(V, Loc);
  unsigned First = isa<CXXOperatorCallExpr>(E) ? 1 : 0;
  unsigned NArgs = E->getNumArgs() - First;
  auto Arg = [&](unsigned I) { return E->getArg(I + First)->IgnoreImplicit(); };
  // Objects would need their members saved and restored by the size
  // changes' reverse; the engine follows sized vectors of them.
  if (Elem->isRecordType()) {
    std::string Class =
        Elem.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
    Diags.report(Loc, Diag::NotSupported)
        << ("calling '" + Name.str() + "' on '" + V->Name +
            "', a std::vector of objects ('" + Class +
            "'), to change its size or all of it")
        << "size it where it is declared ('std::vector<" + Class +
               "> v(n);') or fill it by push_back, and assign its "
               "elements' members";
    return;
  }
  // N elements from here on, the elements from Begin on given by Value.
  auto SizeTo = [&](ExprP N) {
    Pre.push_back(ir::resizeAgain(Storage, N, Loc));
  };
  auto Fill = [&](ExprP Begin, ExprP N, llvm::function_ref<ExprP(ExprP)> Value) {
    appendIndexLoop(Begin, N, Loc, Pre, [&](ExprP K, ir::Block &Body) {
      Body.push_back(ir::assign(ir::index(Storage, K, Elem), Value(K),
                                BO_Assign, Loc));
    });
  };
  auto Counted = [&](ExprP N) {
    Pre.push_back(ir::assign(ir::ref(Count), N, BO_Assign, Loc));
    Out = ir::intConst(Ctx.IntTy, 0);
  };
  auto Lowered = [&](const clang::Expr *A, QualType To, StringRef Name) {
    ExprP R = lowerExpr(A, Pre);
    return R ? materialize(To->isIntegerType() ? ir::cast(To, R)
                                               : convertResult(R, To, Pre),
                           Pre, Name, Loc)
             : nullptr;
  };
  // The braced list {a, b, c} of an argument, or none.
  auto ListOf = [](const clang::Expr *L) -> const InitListExpr * {
    if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(L))
      L = IL->getSubExpr()->IgnoreImplicit();
    return dyn_cast<InitListExpr>(L);
  };
  // Its values, read into locals before any element moves; false after an
  // error, reported.
  auto ListValues = [&](const InitListExpr *Init,
                        llvm::SmallVectorImpl<ExprP> &Values) {
    for (const clang::Expr *I : Init->inits()) {
      ExprP X = lowerExpr(I, Pre);
      if (!X)
        return false;
      Values.push_back(materialize(convertResult(X, Elem, Pre), Pre, "_v", Loc));
    }
    return true;
  };
  // {a, b, c}: that many elements, these values.
  auto FromList = [&](const clang::Expr *L) {
    const InitListExpr *Init = ListOf(L);
    if (!Init)
      return false;
    llvm::SmallVector<ExprP, 8> Values;
    if (!ListValues(Init, Values))
      return true;
    ExprP N = ir::intConst(SizeTy, int64_t(Values.size()));
    SizeTo(N);
    for (size_t K = 0; K < Values.size(); ++K)
      Pre.push_back(ir::assign(
          ir::index(Storage, ir::intConst(SizeTy, int64_t(K)), Elem),
          Values[K], BO_Assign, Loc));
    Counted(N);
    return true;
  };

  if (Name == "clear" && NArgs == 0) {
    SizeTo(ir::intConst(SizeTy, 0));
    return Counted(ir::intConst(SizeTy, 0));
  }
  if (Name == "pop_back" && NArgs == 0) {
    ExprP N = materialize(ir::binary(BO_Sub, ir::ref(Count),
                                     ir::intConst(SizeTy, 1), SizeTy),
                          Pre, "_n", Loc);
    SizeTo(N);
    return Counted(N);
  }
  if ((Name == "resize" || Name == "assign") && (NArgs == 1 || NArgs == 2) &&
      Arg(0)->getType()->isIntegerType() &&
      (Name == "resize" || NArgs == 2)) {
    ExprP N = Lowered(Arg(0), SizeTy, "_n");
    ExprP Value = N && NArgs == 2 ? Lowered(Arg(1), Elem, "_fill") : nullptr;
    if (!N || (NArgs == 2 && !Value))
      return;
    // resize keeps the elements there are; assign replaces them all.
    ExprP From = Name == "resize"
                     ? materialize(ir::ref(Count), Pre, "_old", Loc)
                     : ir::intConst(SizeTy, 0);
    SizeTo(N);
    if (Value)
      Fill(From, N, [&](ExprP) { return Value; });
    return Counted(N);
  }
  if ((Name == "assign" || Name == "operator=") && NArgs == 1 &&
      FromList(Arg(0)))
    return;
  // A position in t, given by an iterator of t (`t.begin() + k`, `it`).
  auto Position = [&](const clang::Expr *A) -> ExprP {
    std::optional<IteratorPosition> P = lowerIteratorPosition(A, Pre);
    if (!P || !P->Pos)
      return nullptr;
    if (P->Storage->K != ir::ExprKind::VarRef || P->Storage->V != V) {
      Diags.report(A->getExprLoc(), Diag::NotSupported)
          << ("an iterator of another container in '" + Name.str() +
              "' on '" + V->Name + "'")
          << "give positions in the same container ('t.begin() + k')";
      return nullptr;
    }
    return materialize(ir::cast(SizeTy, P->Pos), Pre, "_at", Loc);
  };
  bool FromIterator = NArgs >= 1 && isIteratorExpr(Arg(0));
  // [b, e) of another container of the function: its storage, where the
  // range starts and how long it is (none after an error, reported).
  struct OtherRange {
    ExprP Storage, From, N;
  };
  auto RangeOfAnother = [&](const clang::Expr *First, const clang::Expr *Last,
                            const std::string &What,
                            const std::string &Example)
      -> std::optional<OtherRange> {
    std::optional<IteratorPosition> B = lowerIteratorPosition(First, Pre);
    std::optional<IteratorPosition> E =
        B && B->Pos ? lowerIteratorPosition(Last, Pre) : std::nullopt;
    if (!B || !B->Pos || !E || !E->Pos)
      return std::nullopt;
    if (B->Storage->K != ir::ExprKind::VarRef ||
        E->Storage->K != ir::ExprKind::VarRef ||
        B->Storage->V != E->Storage->V || B->Storage->V == V) {
      Diags.report(Loc, Diag::NotSupported)
          << (What + " from iterators of two containers or of itself")
          << ("give the range of another container ('" + Example +
              "'), or copy the elements in a loop");
      return std::nullopt;
    }
    ExprP From = materialize(ir::cast(SizeTy, B->Pos), Pre, "_from", Loc);
    ExprP N = materialize(
        ir::binary(BO_Sub, ir::cast(SizeTy, E->Pos), From, SizeTy), Pre, "_n",
        Loc);
    return OtherRange{B->Storage, From, N};
  };
  // Element K of the range, converted to t's elements.
  auto RangeElement = [&](const OtherRange &R, ExprP K) {
    return ir::cast(Elem, ir::index(R.Storage,
                                    ir::binary(BO_Add, K, R.From, SizeTy),
                                    R.Storage->Ty->getPointeeType()));
  };
  // t.assign(b, e) from another container of the function: its elements
  // between the two positions.
  if (Name == "assign" && FromIterator && NArgs == 2 &&
      isIteratorExpr(Arg(1))) {
    std::optional<OtherRange> R =
        RangeOfAnother(Arg(0), Arg(1), "'assign' on '" + V->Name + "'",
                       "t.assign(x.begin(), x.end())");
    if (!R)
      return;
    SizeTo(R->N);
    Fill(ir::intConst(SizeTy, 0), R->N,
         [&](ExprP K) { return RangeElement(*R, K); });
    return Counted(R->N);
  }
  if (Name == "erase" && FromIterator &&
      (NArgs == 1 || (NArgs == 2 && isIteratorExpr(Arg(1))))) {
    ExprP At = Position(Arg(0));
    ExprP End = At && NArgs == 2 ? Position(Arg(1)) : nullptr;
    if (!At || (NArgs == 2 && !End))
      return;
    ExprP Gap = NArgs == 2 ? ir::binary(BO_Sub, End, At, SizeTy)
                           : ir::intConst(SizeTy, 1);
    Gap = materialize(Gap, Pre, "_gap", Loc);
    ExprP N = materialize(ir::binary(BO_Sub, ir::ref(Count), Gap, SizeTy), Pre,
                          "_n", Loc);
    Fill(At, N, [&](ExprP K) {
      return ir::index(Storage, ir::binary(BO_Add, K, Gap, SizeTy), Elem);
    });
    SizeTo(N);
    SizeChangeAt = At;
    return Counted(N);
  }
  if (((Name == "insert" || Name == "emplace") && FromIterator && NArgs == 2 &&
       Arg(1)->getType()->isArithmeticType()) ||
      (Name == "emplace" && FromIterator && NArgs == 1)) {
    ExprP At = Position(Arg(0));
    // The value first: it may be an element the move overwrites.
    // t.emplace(p) value-initialises: a zero.
    ExprP Value = !At ? nullptr
                  : NArgs == 1 ? ir::cast(Elem, ir::intConst(Ctx.IntTy, 0))
                               : Lowered(Arg(1), Elem, "_v");
    if (!Value)
      return;
    ExprP Old = materialize(ir::ref(Count), Pre, "_old", Loc);
    ExprP N = ir::binary(BO_Add, Old, ir::intConst(SizeTy, 1), SizeTy);
    SizeTo(N);
    // k counts down from the new last element: t[old - k] = t[old - k - 1].
    appendIndexLoop(ir::intConst(SizeTy, 0),
                    ir::binary(BO_Sub, Old, At, SizeTy), Loc, Pre,
                    [&](ExprP K, ir::Block &Body) {
                      ExprP J = ir::binary(BO_Sub, Old, K, SizeTy);
                      Body.push_back(ir::assign(
                          ir::index(Storage, J, Elem),
                          ir::index(Storage,
                                    ir::binary(BO_Sub, J,
                                               ir::intConst(SizeTy, 1), SizeTy),
                                    Elem),
                          BO_Assign, Loc));
                    });
    Pre.push_back(ir::assign(ir::index(Storage, At, Elem), Value, BO_Assign,
                             Loc));
    SizeChangeAt = At;
    return Counted(N);
  }
  // t.insert(p, n, v); t.insert(p, b, e) from another container of the
  // function; t.insert(p, {a, b}): a gap of n (e - b, the list's length)
  // elements opened at p, the tail moved up from the end, then filled.
  bool Repeated = (Name == "insert" && FromIterator && NArgs == 3 &&
                   Arg(1)->getType()->isIntegerType() &&
                   Arg(2)->getType()->isArithmeticType());
  bool Range = (Name == "insert" && FromIterator && NArgs == 3 &&
                isIteratorExpr(Arg(1)) && isIteratorExpr(Arg(2)));
  const InitListExpr *List =
      Name == "insert" && FromIterator && NArgs == 2 ? ListOf(Arg(1)) : nullptr;
  if (Repeated || Range || List) {
    ExprP At = Position(Arg(0));
    if (!At)
      return;
    // What fills the gap, read before anything moves.
    ExprP Gap, Value;
    std::optional<OtherRange> R;
    llvm::SmallVector<ExprP, 8> Listed;
    if (List) {
      if (!ListValues(List, Listed))
        return;
      Gap = ir::intConst(SizeTy, int64_t(Listed.size()));
    } else if (Repeated) {
      Gap = Lowered(Arg(1), SizeTy, "_gap");
      Value = Gap ? Lowered(Arg(2), Elem, "_v") : nullptr;
      if (!Value)
        return;
    } else {
      R = RangeOfAnother(Arg(1), Arg(2), "'insert' into '" + V->Name + "'",
                         "t.insert(p, x.begin(), x.end())");
      if (!R)
        return;
      Gap = R->N;
    }
    ExprP Old = materialize(ir::ref(Count), Pre, "_old", Loc);
    ExprP N = materialize(ir::binary(BO_Add, Old, Gap, SizeTy), Pre, "_n",
                          Loc);
    SizeTo(N);
    // k counts down from the old last element: t[j + gap] = t[j], j = old
    // - 1 - k.
    appendIndexLoop(ir::intConst(SizeTy, 0),
                    ir::binary(BO_Sub, Old, At, SizeTy), Loc, Pre,
                    [&](ExprP K, ir::Block &Body) {
                      ExprP J = ir::binary(
                          BO_Sub, ir::binary(BO_Sub, Old, ir::intConst(SizeTy, 1), SizeTy),
                          K, SizeTy);
                      Body.push_back(ir::assign(
                          ir::index(Storage, ir::binary(BO_Add, J, Gap, SizeTy),
                                    Elem),
                          ir::index(Storage, J, Elem), BO_Assign, Loc));
                    });
    if (List) {
      for (size_t K = 0; K < Listed.size(); ++K)
        Pre.push_back(ir::assign(
            ir::index(Storage,
                      ir::binary(BO_Add, At, ir::intConst(SizeTy, int64_t(K)),
                                 SizeTy),
                      Elem),
            Listed[K], BO_Assign, Loc));
    } else {
      Fill(At, ir::binary(BO_Add, At, Gap, SizeTy), [&](ExprP K) {
        return Value ? Value
                     : RangeElement(*R, ir::binary(BO_Sub, K, At, SizeTy));
      });
    }
    SizeChangeAt = At;
    return Counted(N);
  }
  if (Name == "swap" && NArgs == 1 &&
      lowerContainerSwap(isa<CXXMemberCallExpr>(E)
                             ? cast<CXXMemberCallExpr>(E)->getImplicitObjectArgument()
                             : E->getArg(0),
                         Arg(0), Loc, Pre, Out))
    return;
  if (Name == "operator=" && NArgs == 1) {
    // A copy of another container variable of the function.
    const clang::Expr *Src = Arg(0);
    ExprP X = isa<DeclRefExpr>(Src->IgnoreParens()) &&
                      !containerElement(Src->getType()).isNull()
                  ? lowerExpr(Src->IgnoreParens(), Pre)
                  : nullptr;
    if (X && X->K == ir::ExprKind::VarRef && isContainerStorageVar(X->V) &&
        !eigenShape(X->V->Origin->getType().getNonReferenceType())) {
      QualType SrcElem = X->Ty->getPointeeType();
      ExprP N = materialize(containerSize(X->V, Loc), Pre, "_n", Loc);
      SizeTo(N);
      Fill(ir::intConst(SizeTy, 0), N,
           [&](ExprP K) { return ir::cast(Elem, ir::index(X, K, SrcElem)); });
      return Counted(N);
    }
    if (!X && usesPoisoned(Src))
      return;
  }
  std::string TypeName = V->Origin->getType()
                             .getNonReferenceType()
                             .getUnqualifiedType()
                             .getAsString();
  Diags.report(Loc, Diag::NotSupported)
      << ("this form of '" + Name.str() + "' on '" + V->Name + "' (a '" +
          TypeName + "')")
      << "use resize(n), resize(n, v), assign(n, v), clear(), pop_back(), "
         "push_back(v), insert(p, v), insert(p, n, v), insert(p, b, e), "
         "insert(p, {a, b}), "
         "erase(p), erase(p, q), assign(b, e), "
         "swap(u), or assign another container variable or a braced list "
         "('t = x;', 't = {a, b};')";
}

bool FunctionLowering::lowerContainerSwap(const clang::Expr *U,
                                          const clang::Expr *V,
                                          SourceLocation Loc, ir::Block &Pre,
                                          ExprP &Out) {
  // Two containers of the function whose counts it follows.
  auto Storage = [&](const clang::Expr *E) -> Var * {
    const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    if (!DRE || containerElement(E->getType()).isNull() ||
        containerElement(E->getType())->isRecordType() ||
        eigenShape(E->getType()))
      return nullptr;
    ExprP R = lowerExpr(DRE, Pre);
    return R && R->K == ir::ExprKind::VarRef && isContainerStorageVar(R->V) &&
                   GrowCounts.count(R->V)
               ? R->V
               : nullptr;
  };
  Var *A = Storage(U), *B = A ? Storage(V) : nullptr;
  if (!A || !B || !Ctx.hasSameUnqualifiedType(A->Type, B->Type))
    return false;
  Out = ir::intConst(Ctx.IntTy, 0);
  if (A == B)
    return true;
  // Both as long as the longer, elements exchanged one by one, then each
  // cut to the other's old size: what is overwritten is recorded like any
  // element, and the sizes change as resizes the reverse sweep undoes.
  QualType SizeTy = Ctx.getSizeType();
  QualType Elem = A->Type->getPointeeType();
  Var *CA = GrowCounts.lookup(A), *CB = GrowCounts.lookup(B);
  ExprP NA = materialize(ir::ref(CA), Pre, "_n", Loc);
  ExprP NB = materialize(ir::ref(CB), Pre, "_n", Loc);
  ExprP Longer = materialize(
      ir::cond(ir::binary(BO_LT, NA, NB, Ctx.BoolTy), NB, NA, SizeTy), Pre,
      "_n", Loc);
  Pre.push_back(ir::resizeAgain(ir::ref(A, Loc), Longer, Loc));
  Pre.push_back(ir::resizeAgain(ir::ref(B, Loc), Longer, Loc));
  Var *T = F->makeVar(Var::Kind::Temp, "_swapped", Elem.getUnqualifiedType());
  F->Locals.push_back(T);
  appendIndexLoop(0, Longer, Loc, Pre, [&](ExprP K, ir::Block &Body) {
    ExprP EA = ir::index(ir::ref(A, Loc), K, Elem);
    ExprP EB = ir::index(ir::ref(B, Loc), K, Elem);
    Body.push_back(ir::assign(ir::ref(T), EA, BO_Assign, Loc));
    Body.back()->IsInit = true;
    Body.push_back(ir::assign(EA, EB, BO_Assign, Loc));
    Body.push_back(ir::assign(EB, ir::ref(T), BO_Assign, Loc));
  });
  Pre.push_back(ir::resizeAgain(ir::ref(A, Loc), NB, Loc));
  Pre.push_back(ir::resizeAgain(ir::ref(B, Loc), NA, Loc));
  Pre.push_back(ir::assign(ir::ref(CA), NB, BO_Assign, Loc));
  Pre.push_back(ir::assign(ir::ref(CB), NA, BO_Assign, Loc));
  return true;
}

} // namespace fluxion
