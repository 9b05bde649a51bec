//===- ReverseResize.cpp - Size changes of containers in both sweeps ------===//
//
// A local container is sized where it is declared (outside loops: once,
// nothing to undo) and may change size later: push_back grows it by one,
// and resize, clear, assign, a copy or a declaration inside a loop give it
// any size (LowerContainer.cpp marks those Undo). The reverse sweep walks
// back through the same sizes, so that each element and its adjoint are
// where the forward sweep had them:
//
//   forward                              reverse
//   [save t[n], ..., t[old - 1]]         d_t.resize(old)
//   save old = t.size()                  [t.resize(old); restore the tail]
//   t.resize(n); d_t.resize(n)
//
// A growth adds zeros, which are constants: the reverse sweep drops them
// and their adjoints. A shrink destroys elements, which nothing after it
// reads (their adjoints are zero there); the reverse sweep gives them back
// when it reads the container. A push_back's old size is the new one less
// one: nothing is saved for it.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/ReverseBuilder.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace fluxion {
using namespace ir;

bool ReverseBuilder::resizeStmt(const ir::Stmt &S, Sweeps &Out) {
  Var *C = S.LHS->rootVar();
  bool Active = C && Activity.isActive(C);
  // A parameter's adjoint is the caller's: it holds the seeds, of the size
  // the container has at the end, when the reverse sweep starts (checked
  // there), and follows the sizes back from there.
  bool Param = C && C->K == Var::Kind::Param;
  if (Param && Active && !llvm::is_contained(ResizedParams, C))
    ResizedParams.push_back(C);
  auto AlsoAdjoint = [&](ExprP N, bool Keep, Block &To) {
    if (Active && (!Param || &To == &Out.Rev))
      To.push_back(resize(ref(adjointVar(C)), std::move(N), S.Loc,
                          Keep ? nullptr : S.Cond, Keep));
  };
  if (!S.Keep) {
    // Sized once (never in a loop): its adjoint gets the same size, zeroed,
    // before any reverse code adds into it. The values the resize
    // overwrites were never read: nothing to record.
    Out.Fwd.push_back(clone(S));
    AlsoAdjoint(S.RHS, false, Out.Fwd);
    return true;
  }
  QualType SizeTy = Ctx.getSizeType();
  // The reverse sweep reads the elements: they must be where they were.
  bool Restore = needsRecording(C);
  auto Less = [&](Var *X) {
    return binary(BO_Sub, sizeOf(ref(X), SizeTy), intConst(SizeTy, 1),
                  SizeTy);
  };
  if (!S.Undo) {
    // push_back: one zero more, dropped again by the reverse sweep.
    Out.Fwd.push_back(clone(S));
    AlsoAdjoint(S.RHS, true, Out.Fwd);
    if (Active)
      AlsoAdjoint(Less(adjointVar(C)), true, Out.Rev);
    if (Restore)
      Out.Rev.push_back(resize(ref(C), Less(C), S.Loc, nullptr, true));
    return true;
  }
  if (!Active && !Restore) {
    Out.Fwd.push_back(clone(S));
    return true;
  }
  QualType Elem = C->Type->getPointeeType().getUnqualifiedType();
  Var *SizeTape = tapeFor(SizeTy);
  Var *ElemTape = Restore ? tapeFor(Elem) : nullptr;
  // The tail [From, To) of C's storage, saved or given back.
  auto Tail = [&](ExprP From, ExprP To, bool Save) {
    ExprP First = addrOf(index(ref(C), From, Elem), Ctx.getPointerType(Elem));
    ExprP Count = cast(Ctx.LongTy, binary(BO_Sub, To, From, SizeTy));
    Block B;
    B.push_back(Save ? pushRange(ElemTape, First, Count)
                     : popRange(ElemTape, First, Count));
    return ir::ifStmt(binary(BO_LT, From, To, Ctx.BoolTy), std::move(B), {},
                  S.Loc);
  };
  // Forward: what a shrink drops (pushed before the size, so that a tape
  // both share pops them in the right order), the old size, the resize.
  Var *NewSize = temp("_new_size", SizeTy);
  Out.Fwd.push_back(decl(NewSize, cast(SizeTy, S.RHS)));
  if (Restore)
    Out.Fwd.push_back(Tail(ref(NewSize), sizeOf(ref(C), SizeTy), true));
  Out.Fwd.push_back(push(SizeTape, sizeOf(ref(C), SizeTy)));
  Out.Fwd.push_back(resize(S.LHS, ref(NewSize), S.Loc, nullptr, true));
  AlsoAdjoint(ref(NewSize), true, Out.Fwd);
  // Reverse: the old size back, then the elements the shrink dropped.
  Var *Old = temp("_old_size", SizeTy);
  Out.Rev.push_back(decl(Old, pop(SizeTape)));
  AlsoAdjoint(ref(Old), true, Out.Rev);
  if (Restore) {
    Var *Cur = temp("_cur_size", SizeTy);
    Out.Rev.push_back(decl(Cur, sizeOf(ref(C), SizeTy)));
    Out.Rev.push_back(resize(ref(C), ref(Old), S.Loc, nullptr, true));
    Out.Rev.push_back(Tail(ref(Cur), ref(Old), false));
    // The restore and its range are no reads to record C for.
    RangeRefs[C] += 3;
  }
  return true;
}

void ReverseBuilder::checkSeedSizes(Block &Rev) {
  QualType Long = Ctx.LongTy;
  for (Var *C : ResizedParams) {
    FunctionDecl *Check =
        Oracle.runtimeFunction("seed_size", {Long, Long}, F.Primal
                                                              ? F.Primal->getLocation()
                                                              : SourceLocation());
    if (!Check)
      return;
    QualType SizeTy = Ctx.getSizeType();
    Rev.insert(Rev.begin(),
               eval(call(Check,
                         {cast(Long, sizeOf(ref(C), SizeTy)),
                          cast(Long, sizeOf(ref(adjointVar(C)), SizeTy))},
                         Check->getReturnType())));
  }
}

} // namespace fluxion
