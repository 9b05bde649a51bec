//===- ReverseBuilder.cpp - Forward and reverse sweeps ---------------------===//
#include "fluxion/engine/ReverseBuilder.h"
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SetOperations.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

using namespace clang;

namespace fluxion {
using namespace ir;

ReverseBuilder::ReverseBuilder(Function &F, ASTContext &Ctx,
                               const ActivityInfo &Activity,
                               DerivativeOracle &Oracle, DiagReporter &Diags,
                               llvm::DenseMap<Var *, Var *> &Adjoints)
    : F(F), Ctx(Ctx), Activity(Activity), Assignments(F), Oracle(Oracle),
      Diags(Diags), Adjoints(Adjoints) {
  for (auto &KV : Adjoints)
    Generated.insert(KV.second);
  forEachExpr(F.Body, [&](const Expr &E) {
    if (E.K == ExprKind::AddrOf)
      AddressTaken.insert(E.rootVar());
  });
}

std::optional<AdjointParts> ReverseBuilder::build() {
  // The sweeps are rebuilt until the set of variables the reverse sweep
  // reads stops growing: recording a variable can make its index
  // expressions needed in turn.
  size_t Storage = F.Storage.size(), Locals = F.Locals.size();
  auto SavedAdjoints = Adjoints;
  findRestoredRanges();
  countMentions();
  for (unsigned Round = 0;; ++Round) {
    ReadLater.clear();
    Unread.clear();
    UnreadAtLoop.clear();
    RangeRefs.clear();
    ResizedParams.clear();
    BodyReadsGrew = false;
    Sweeps S;
    if (!stmts(F.Body, S))
      return std::nullopt;
    llvm::DenseMap<const Var *, unsigned> Reads, SizeReads;
    forEachExpr(S.Rev, [&](const Expr &E) {
      if (E.K == ExprKind::VarRef && !Generated.count(E.V) &&
          (E.V->K != Var::Kind::Global || Adjoints.count(E.V)))
        ++Reads[E.V];
      // A container's size (which never changes after it is sized) is not
      // its elements: reading it needs none of them kept.
      if (E.K == ExprKind::Size && E.Ops[0]->K == ExprKind::VarRef)
        ++SizeReads[E.Ops[0]->V];
    });
    bool Grew = false;
    for (const auto &[V, Count] : Reads) {
      Grew |= Needed.insert(V).second;
      if (Count > RangeRefs.lookup(V) + SizeReads.lookup(V))
        Grew |= NeededAtWrites.insert(V).second;
    }
    Grew |= BodyReadsGrew;
    if (!Grew || Round == 16) {
      checkSeedSizes(S.Rev);
      Oracle.noteCalls(S.Fwd);
      Oracle.noteCalls(S.Rev);
      // Saved on entry, given back last.
      for (const auto &[P, Count] : llvm::reverse(RestoredRanges)) {
        Var *Tape = tapeFor(P->Type->getPointeeType().getUnqualifiedType());
        S.Fwd.insert(S.Fwd.begin(), pushRange(Tape, ref(P), Count));
        S.Rev.push_back(popRange(Tape, ref(P), Count));
      }
      AdjointParts Parts;
      Parts.Forward = std::move(S.Fwd);
      Parts.Reverse = std::move(S.Rev);
      // A counted loop's reverse sets its counter before reading it, and
      // saved ranges are popped before they are read.
      // Recomputed locals are set again before the reverse reads them.
      llvm::DenseSet<const Var *> Counters;
      for (const auto &KV : Counted) {
        Counters.insert(KV.second.Counter);
        Counters.insert(KV.second.RecomputedVars.begin(),
                        KV.second.RecomputedVars.end());
      }
      for (Var *V : F.Locals)
        if (NeededAtWrites.count(V) && !Generated.count(V) &&
            !Counters.count(V))
          Parts.EndState.push_back(V);
      for (Var *P : F.Params)
        if (Needed.count(P) && !Assignments.isConstant(P) && !P->isPointer())
          Parts.EndState.push_back(P);
      return Parts;
    }
    // Start over from a clean slate of generated variables.
    for (size_t I = Storage; I < F.Storage.size(); ++I)
      Generated.erase(F.Storage[I].get());
    F.Storage.resize(Storage);
    F.Locals.resize(Locals);
    Adjoints = SavedAdjoints;
    Tapes.clear();
    Counted.clear();
    CounterInits.clear();
    RecomputedInits.clear();
    HoistedRecords.clear();
  }
}

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

Var *ReverseBuilder::temp(StringRef Name, QualType T) {
  Var *V = F.makeVar(Var::Kind::Temp, Name, T.getUnqualifiedType());
  Generated.insert(V);
  return V;
}

Var *ReverseBuilder::adjointTemp(StringRef Name, QualType T) {
  Var *V = temp(Name, T);
  V->Adjoint = true;
  return V;
}

Var *ReverseBuilder::adjointVar(Var *V) {
  auto It = Adjoints.find(V);
  if (It != Adjoints.end())
    return It->second;
  std::string Name = V->Name.front() == '_' ? "_d" + V->Name : "_d_" + V->Name;
  Var *A = F.makeVar(Var::Kind::Local, Name, V->Type.getUnqualifiedType());
  A->Primal = V;
  A->ZeroInit = true;
  A->Adjoint = true;
  F.Locals.push_back(A);
  Generated.insert(A);
  Adjoints[V] = A;
  return A;
}

Var *ReverseBuilder::tapeFor(QualType T) {
  QualType C = T.getCanonicalType().getUnqualifiedType();
  auto It = Tapes.find(C.getTypePtr());
  if (It != Tapes.end())
    return It->second;
  // Records are named by their own name (makeVar keeps names unique).
  std::string Name = "_tape_" + (C->getAsRecordDecl()
                                     ? C->getAsRecordDecl()->getNameAsString()
                                     : C.getAsString(Ctx.getPrintingPolicy()));
  for (char &Ch : Name)
    if (!llvm::isAlnum(Ch))
      Ch = '_';
  Var *V = F.makeVar(Var::Kind::Tape, Name, C);
  V->TapeElement = C;
  F.Locals.push_back(V);
  Generated.insert(V);
  Tapes[C.getTypePtr()] = V;
  return V;
}

bool ReverseBuilder::needsRecording(const Var *V) const {
  return mustRestore(V) ||
         (V && (V->K != Var::Kind::Global || Adjoints.count(V)) &&
          NeededAtWrites.count(V) &&
          !Assignments.isConstant(V));
}

/// The number of elements an extent covers, given the value of its count
/// argument: max(Count, MinCount) when constant indices reach further.
static ExprP extentCount(ExprP Count, const ReadExtent &Extent,
                         ASTContext &Ctx) {
  if (Extent.MinCount <= 0)
    return Count;
  ExprP Min = intConst(Count->Ty, Extent.MinCount);
  return cond(binary(BO_GT, Count, Min, Ctx.BoolTy), Count, Min, Count->Ty);
}

bool ReverseBuilder::mustRestore(const Var *V) const {
  if (!RestorePointerParams || !V || V->K != Var::Kind::Param ||
      !V->isPointer() || V->Type->getPointeeType().isConstQualified())
    return false;
  return llvm::none_of(RestoredRanges,
                       [&](const auto &R) { return R.first == V; });
}

void ReverseBuilder::findRestoredRanges() {
  RestoredRanges.clear();
  // First order only: second order differentiates these sweeps again.
  if (!RestorePointerParams || !F.Primal || !Oracle.checkpointsEnabled())
    return;
  for (unsigned I = 0; I < F.Params.size(); ++I) {
    Var *P = F.Params[I];
    if (!P->isPointer() || P->Type->getPointeeType().isConstQualified() ||
        !P->Type->getPointeeType()->isScalarType())
      continue;
    auto Extent = pointerReadExtent(F.Primal, I, /*AnyPointer=*/true);
    if (!Extent || Extent->CountParam >= F.Params.size())
      continue;
    RestoredRanges.push_back(
        {P, extentCount(ref(F.Params[Extent->CountParam]), *Extent, Ctx)});
  }
}

void ReverseBuilder::record(const ExprP &LV, Sweeps &Out, Block &Restore) {
  saveAndRestore(LV, Out.Fwd, Restore);
}

void ReverseBuilder::saveAndRestore(const ExprP &LV, Block &Fwd,
                                    Block &Restore) {
  QualType Elem = LV->isLValue() && LV->Ty->isArrayType()
                      ? Ctx.getBaseElementType(LV->Ty)
                      : LV->Ty;
  // The tape keeps trivially copyable values only: an object with an Eigen
  // member (or another that is not) is recorded number by number, and
  // restored in the reverse order.
  if (Elem->isRecordType() && !Elem.isTriviallyCopyableType(Ctx)) {
    llvm::SmallVector<ExprP, 16> Leaves;
    forEachScalar(Ctx, LV, nullptr, LV->Ty,
                  [&](ExprP Dst, ExprP, QualType) { Leaves.push_back(Dst); });
    for (const ExprP &X : Leaves)
      Fwd.push_back(push(tapeFor(X->Ty.getUnqualifiedType()), X));
    for (const ExprP &X : llvm::reverse(Leaves))
      Restore.push_back(assign(X, pop(tapeFor(X->Ty.getUnqualifiedType()))));
    return;
  }
  Var *Tape = tapeFor(Elem);
  Fwd.push_back(push(Tape, LV));
  Restore.push_back(assign(LV, pop(Tape)));
}

void ReverseBuilder::noteReverseReads(const Block &Rev) {
  // Elements read: a container's size alone (E.Ops[0] of a Size) is not.
  llvm::DenseMap<const Var *, unsigned> Refs, Sizes;
  forEachExpr(Rev, [&](const Expr &E) {
    if (E.K == ExprKind::VarRef)
      ++Refs[E.V];
    if (E.K == ExprKind::Size && E.Ops[0]->K == ExprKind::VarRef)
      ++Sizes[E.Ops[0]->V];
  });
  for (const auto &[V, N] : Refs)
    if (N > Sizes.lookup(V))
      ReadLater.insert(V);
}

bool ReverseBuilder::firstTouch(const Var *V) const {
  // Outside loops, if the reverse sweeps of the statements before this one
  // never read V, V's value before this statement is never needed.
  return LoopDepth == 0 && V && !ReadLater.count(V);
}

/// The variables code reads: everything but the variable an assignment
/// (or a restored range) sets.
static void collectReads(const Block &B, llvm::DenseSet<const Var *> &Reads) {
  auto Add = [&](const Expr &E) {
    forEachExpr(E, [&](const Expr &Sub) {
      if (Sub.K == ExprKind::VarRef)
        Reads.insert(Sub.V);
    });
  };
  forEachStmt(B, [&](const ir::Stmt &S) {
    for (const ExprP *E : {&S.RHS, &S.Cond})
      if (*E)
        Add(**E);
    for (const SwitchSection &Sec : S.Sections)
      for (const ExprP &V : Sec.Values)
        Add(*V);
    if (!S.LHS)
      return;
    bool Sets = (S.K == StmtKind::Assign && S.Op == BO_Assign) ||
                S.K == StmtKind::PopRange;
    if (!Sets) {
      Add(*S.LHS);
      return;
    }
    // x[i] = ...: i is read, x is not.
    std::function<void(const Expr &)> Parts = [&](const Expr &E) {
      if (E.K == ExprKind::VarRef)
        return;
      if (E.K == ExprKind::Index) {
        Parts(*E.Ops[0]);
        Add(*E.Ops[1]);
        return;
      }
      if (E.K == ExprKind::Cast || E.K == ExprKind::Member ||
          E.K == ExprKind::AddrOf) { // &v[k]: a restored range's start
        Parts(*E.Ops[0]);
        return;
      }
      Add(E);
    };
    Parts(*S.LHS);
  });
}

void ReverseBuilder::noteBodyReads(const ir::Stmt &Loop, const Block &Rev) {
  llvm::DenseSet<const Var *> Reads;
  collectReads(Rev, Reads);
  auto &Known = BodyReads[&Loop];
  for (const Var *V : Reads)
    BodyReadsGrew |= Known.insert(V).second;
}

bool ReverseBuilder::unreadBefore(const Var *V) const {
  if (LoopDepth == 0 || !V || V->K != Var::Kind::Local || Generated.count(V) ||
      ReadLater.count(V) || mustRestore(V))
    return false;
  for (const ir::Stmt *L : LoopStack) {
    if (!L)
      return false;
    auto It = BodyReads.find(L);
    if (It == BodyReads.end() || It->second.count(V))
      return false;
  }
  return true;
}

bool ReverseBuilder::recomputable(const Expr &Cond) const {
  bool OK = true;
  forEachExpr(Cond, [&](const Expr &E) {
    if (E.K == ExprKind::Call || E.K == ExprKind::Pop)
      OK = false;
    else if (E.K == ExprKind::VarRef && !Assignments.isConstant(E.V))
      OK = false;
  });
  return OK;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool ReverseBuilder::stmts(const Block &B, Sweeps &Out) {
  std::vector<Block> Parts;
  bool OK = true;
  for (size_t I = 0; I + 1 < B.size(); ++I)
    if (auto L = countedFor(*B[I], *B[I + 1])) {
      Counted[B[I + 1].get()] = *L;
      CounterInits.insert(B[I].get());
      RecomputedInits.insert(L->RecomputedAssigns.begin(),
                             L->RecomputedAssigns.end());
    }
  // What a block finds unread it leaves at most unread (UnreadValues.cpp):
  // its own additions stay inside.
  llvm::DenseSet<const Var *> UnreadBefore = Unread;
  for (const StmtP &S : B) {
    Sweeps Sub;
    noteUnreadBefore(*S);
    OK &= stmt(*S, Sub);
    placeUnplaced(Sub.Fwd, S->Loc);
    placeUnplaced(Sub.Rev, S->Loc);
    noteReverseReads(Sub.Rev);
    noteUnreadAfter(*S, Sub.Rev);
    for (StmtP &FS : Sub.Fwd)
      Out.Fwd.push_back(std::move(FS));
    Parts.push_back(std::move(Sub.Rev));
  }
  llvm::set_intersect(Unread, UnreadBefore);
  for (auto It = Parts.rbegin(); It != Parts.rend(); ++It) {
    bool Scoped = llvm::any_of(
        *It, [](const StmtP &S) { return S->K == StmtKind::Decl; });
    if (Scoped) {
      Out.Rev.push_back(block(std::move(*It)));
      continue;
    }
    for (StmtP &RS : *It)
      Out.Rev.push_back(std::move(RS));
  }
  return OK;
}

bool ReverseBuilder::stmt(const ir::Stmt &S, Sweeps &Out) {
  switch (S.K) {
  case StmtKind::Assign:
    if (S.RHS->K == ExprKind::Call)
      return callSite(S, Out);
    return assignment(S, Out);
  case StmtKind::Eval:
    if (S.RHS->K == ExprKind::Call)
      return callSite(S, Out);
    Out.Fwd.push_back(eval(S.RHS, S.Loc));
    return true;
  case StmtKind::If:
    return ifStmt(S, Out);
  case StmtKind::Loop:
    return loop(S, Out);
  case StmtKind::Block: {
    Sweeps Inner;
    bool OK = stmts(S.Then, Inner);
    Out.Fwd.push_back(block(std::move(Inner.Fwd)));
    if (!Inner.Rev.empty())
      Out.Rev.push_back(block(std::move(Inner.Rev)));
    return OK;
  }
  case StmtKind::Return:
    return true;
  case StmtKind::Resize:
    return resizeStmt(S, Out);
  default:
    Diags.report(S.Loc, Diag::InternalError) << "unexpected statement";
    return false;
  }
}

/// x = x + c / x = x - c on an integer: undone by the inverse operation.
static std::optional<BinaryOperatorKind> inverseIncrement(const ir::Stmt &S) {
  if (S.Op != BO_Assign || !S.LHS->Ty->isIntegerType() ||
      S.LHS->K != ExprKind::VarRef || S.RHS->K != ExprKind::Binary)
    return std::nullopt;
  const Expr &R = *S.RHS;
  if ((R.BOp != BO_Add && R.BOp != BO_Sub) || !sameExpr(*R.Ops[0], *S.LHS) ||
      R.Ops[1]->K != ExprKind::Const)
    return std::nullopt;
  return R.BOp == BO_Add ? BO_Sub : BO_Add;
}

/// True if E reads V. With SkipRoot, the root of the lvalue E itself does
/// not count (v in v[i], as opposed to v[v[0]]).
static bool mentions(const Expr &E, const Var *V, bool SkipRoot = false) {
  if (SkipRoot) {
    if (E.K == ExprKind::Index)
      return mentions(*E.Ops[0], V, true) || mentions(*E.Ops[1], V);
    if (E.K == ExprKind::VarRef || E.K == ExprKind::Cast ||
        E.K == ExprKind::Member)
      return E.K != ExprKind::VarRef && mentions(*E.Ops[0], V, true);
  }
  bool Found = false;
  forEachExpr(E, [&](const Expr &Sub) {
    if (Sub.K == ExprKind::VarRef && Sub.V == V)
      Found = true;
  });
  return Found;
}

bool ReverseBuilder::overwritesNothingNeeded(const ir::Stmt &S) const {
  Var *Root = S.LHS->rootVar();
  // A declaration's initialiser outside loops overwrites nothing readable.
  return !mustRestore(Root) &&
         ((S.IsInit && LoopDepth == 0) || CounterInits.count(&S) ||
          RecomputedInits.count(&S) || unreadBefore(Root) ||
          (firstTouch(Root) && !mentions(*S.RHS, Root) &&
           !mentions(*S.LHS, Root, /*Skip=*/true)));
}

bool ReverseBuilder::assignment(const ir::Stmt &S, Sweeps &Out) {
  Var *Root = S.LHS->rootVar();
  // Lowering copies objects member by member; a whole object assigned
  // here would carry its members' derivatives nowhere. Refuse rather than
  // drop them.
  if ((S.LHS->Ty->isRecordType() || S.LHS->Ty->isArrayType()) &&
      Activity.isActive(*S.RHS)) {
    Diags.report(S.Loc, Diag::InternalError)
        << "an object or array assigned as a whole";
    return false;
  }
  Block Restore;
  if (!overwritesNothingNeeded(S) && needsRecording(Root) &&
      !overwritesUnread(S)) {
    if (auto Inverse = inverseIncrement(S))
      Restore.push_back(assign(
          S.LHS, binary(*Inverse, S.LHS, S.RHS->Ops[1], S.LHS->Ty)));
    else if (!hoistRecord(S))
      record(S.LHS, Out, Restore);
  }
  // Locals read from the memory this assignment overwrites are computed
  // again right after its restore (RecomputedLocals.cpp): that restore
  // must be there.
  auto Anchored = AnchoredBlocks.find(&S);
  bool Recomputes =
      Anchored != AnchoredBlocks.end() && !Anchored->second.empty();
  if (Recomputes && Restore.empty())
    record(S.LHS, Out, Restore);
  Out.Fwd.push_back(assign(S.LHS, S.RHS, S.Op, S.Loc));
  Out.Fwd.back()->IsInit = S.IsInit;
  for (StmtP &R : Restore)
    Out.Rev.push_back(std::move(R));
  if (Recomputes)
    for (const StmtP &R : Anchored->second)
      Out.Rev.push_back(clone(*R));

  if (!Root || !Activity.isActive(Root) || !isDifferentiableScalar(S.LHS->Ty))
    return true;
  ExprP Adj = adjointOf(*S.LHS);
  bool RHSActive = Activity.isActive(*S.RHS);
  if (S.Op == BO_Assign) {
    ExprP Zero = floatConst(S.LHS->Ty, 0);
    if (!RHSActive) {
      Out.Rev.push_back(assign(Adj, Zero));
      return true;
    }
    if (!mentions(*S.RHS, Root)) {
      // y = f(x): the adjoint of y flows to x, then y's is spent.
      propagate(S.RHS, Adj, Out.Rev);
      Out.Rev.push_back(assign(Adj, Zero));
      return true;
    }
    Var *R = adjointTemp("_r", S.LHS->Ty);
    Out.Rev.push_back(decl(R, Adj));
    Out.Rev.push_back(assign(Adj, Zero));
    propagate(S.RHS, ref(R), Out.Rev);
    return true;
  }
  // x += e / x -= e: x's adjoint passes through unchanged.
  if (!RHSActive)
    return true;
  ExprP Seed = Adj;
  if (mentions(*S.RHS, Root)) {
    Var *R = adjointTemp("_r", S.LHS->Ty);
    Out.Rev.push_back(decl(R, Adj));
    Seed = ref(R);
  }
  propagate(S.RHS, S.Op == BO_SubAssign ? neg(Seed, S.LHS->Ty) : Seed,
            Out.Rev);
  return true;
}

bool ReverseBuilder::callSite(const ir::Stmt &S, Sweeps &Out) {
  const Expr &C = *S.RHS;
  ExprP LHS = S.K == StmtKind::Assign ? S.LHS : nullptr;
  // The callee's forward records come after the memory records below, so
  // the callee's backward call must run before those are restored; the
  // result's old value is recorded after the call for the same reason.
  Block Restore, RestoreResult;
  bool RecordResult = LHS && needsRecording(LHS->rootVar()) &&
                      !overwritesNothingNeeded(S);
  // Memory the callee may overwrite that our reverse sweep still reads (or
  // that our own caller wants back). A generated pair can restore it itself
  // (recording only the elements it writes, most of which its own reverse
  // sweep needs anyway); for a custom rule, or a call with nothing to
  // differentiate, we record whole local arrays and variables, and memory
  // behind a pointer, of unknown extent, cannot be. A checkpointed callee
  // needs none of this: its undo log restores everything.
  Var *Unrecordable = nullptr;
  bool Overwrites = false;
  // Memory of a container of numbers (an Eigen object, a std::array, a
  // std::vector; passed whole, or as pointers into it: std::sort(t.begin(),
  // t.end())): its elements are recorded, as many as it has (a callee
  // cannot change its size).
  auto WholeEigen = [](const Expr &A) {
    Var *Root = A.rootVar();
    return A.K != ExprKind::AddrOf && Root && isContainerStorageVar(Root) &&
           Root->Type->getPointeeType()->isRealFloatingType();
  };
  for (const ExprP &A : C.Ops) {
    if (!A->Ty->isPointerType() || A->Ty->getPointeeType().isConstQualified())
      continue;
    Var *Root = A->rootVar();
    if (!mustRestore(Root) && (!needsRecording(Root) || firstTouch(Root)))
      continue;
    Overwrites = true;
    if (!Root->isArray() && A->K != ExprKind::AddrOf && !WholeEigen(*A))
      Unrecordable = Root;
  }
  auto RecordOverwritten = [&] {
    llvm::SmallPtrSet<Var *, 4> Whole; // begin and end share one record
    for (const ExprP &A : C.Ops) {
      if (!A->Ty->isPointerType() ||
          A->Ty->getPointeeType().isConstQualified())
        continue;
      Var *Root = A->rootVar();
      if (!mustRestore(Root) && (!needsRecording(Root) || firstTouch(Root)))
        continue;
      if (WholeEigen(*A)) {
        if (!Whole.insert(Root).second)
          continue;
        ExprP N = sizeOf(ref(Root), Ctx.getSizeType());
        Var *Tape = tapeFor(Root->Type->getPointeeType().getUnqualifiedType());
        Out.Fwd.push_back(pushRange(Tape, ref(Root), N));
        Restore.push_back(popRange(Tape, ref(Root), N));
        continue;
      }
      if (Root->isArray() || A->K == ExprKind::AddrOf)
        record(ref(Root), Out, Restore);
    }
  };
  auto CannotRestore = [&] {
    Diags.report(C.Loc, Diag::OverwrittenMemory)
        << C.Callee << Unrecordable->Name;
    return false;
  };

  llvm::SmallVector<bool, 4> ArgActive;
  bool AnyActive = false;
  for (const ExprP &A : C.Ops) {
    ArgActive.push_back(Activity.isActive(*A));
    AnyActive |= ArgActive.back();
  }
  bool ResultActive = LHS && LHS->rootVar() &&
                      Activity.isActive(LHS->rootVar()) &&
                      isDifferentiableScalar(LHS->Ty);
  // Emits `LHS = Value`, recording LHS's old value first if needed.
  auto Store = [&](ExprP Value) {
    if (!LHS) {
      Out.Fwd.push_back(eval(Value, S.Loc));
      return;
    }
    if (RecordResult) {
      Var *T = temp("_call", LHS->Ty);
      T->K = Var::Kind::Local;
      F.Locals.push_back(T);
      Out.Fwd.push_back(assign(ref(T), Value, BO_Assign, S.Loc));
      Value = ref(T);
      record(LHS, Out, RestoreResult);
    }
    Out.Fwd.push_back(assign(LHS, Value, BO_Assign, S.Loc));
  };
  // A call whose result carries no derivative and that writes no
  // floating memory (a predicate, an index computation) needs none.
  bool WritesFloats = false;
  for (const ExprP &A : C.Ops)
    WritesFloats |= A->Ty->isPointerType() && isDifferentiableType(A->Ty) &&
                    !A->Ty->getPointeeType().isConstQualified();
  if (!ResultActive && !WritesFloats && !isDifferentiableScalar(C.Ty))
    AnyActive = false;
  if (!AnyActive) {
    if (Unrecordable)
      return CannotRestore();
    RecordOverwritten();
    Store(S.RHS);
    for (StmtP &R : RestoreResult)
      Out.Rev.push_back(std::move(R));
    // Pops come in the opposite order of the pushes.
    for (StmtP &R : llvm::reverse(Restore))
      Out.Rev.push_back(std::move(R));
    if (ResultActive)
      Out.Rev.push_back(
          assign(adjointOf(*LHS), floatConst(LHS->Ty, 0)));
    return true;
  }
  std::optional<CallDerivative> D = Oracle.reverseOf(C, ArgActive, Overwrites);
  if (!D)
    return false;
  if (!D->Logged && !D->RestoresMemory) {
    if (Unrecordable)
      return CannotRestore();
    RecordOverwritten();
  }
  // State the reverse call needs from the forward one (residuals, the undo
  // log's mark): a local, taped when the call runs more than once.
  Block Reload;
  auto Keep = [&](StringRef Name, QualType T) {
    Var *V = F.makeVar(Var::Kind::Local, Name, T);
    F.Locals.push_back(V);
    return V;
  };
  auto TapeIfRepeated = [&](Var *V) {
    if (LoopDepth == 0)
      return;
    Var *Tape = tapeFor(V->Type);
    Out.Fwd.push_back(push(Tape, ref(V)));
    Reload.push_back(assign(ref(V), pop(Tape)));
  };
  Var *Residual = nullptr, *Mark = nullptr;
  FunctionDecl *RestoreLog = nullptr, *Undo = nullptr;
  // A residual that is the result, stored to a variable that the reverse
  // sweep reads anyway (so keeps at each write): the residual is read back
  // from that variable instead of being kept twice. Only variables already
  // needed (an earlier round of build()) qualify, or this read alone would
  // make them needed and trade one kept value for another.
  bool ResidualFromResult =
      D->ResidualIsResult && LHS && LHS->K == ExprKind::VarRef &&
      NeededAtWrites.count(LHS->V) && !Generated.count(LHS->V) &&
      LHS->V->K != Var::Kind::Global &&
      Ctx.hasSameUnqualifiedType(LHS->Ty, D->Residual);
  if (!D->Residual.isNull()) {
    // Named after the callee: _res_sin holds what sin_fwd kept for sin_bwd.
    Residual = Keep(("_res_" + C.Callee->getName()).str(), D->Residual);
    llvm::SmallVector<ExprP, 8> FwdArgs(C.Ops.begin(), C.Ops.end());
    FwdArgs.push_back(ref(Residual));
    Store(call(D->Forward, FwdArgs, C.Ty, C.Loc));
    if (ResidualFromResult)
      Generated.insert(Residual); // neither taped nor handed over
    else
      TapeIfRepeated(Residual);
  } else if (D->Logged) {
    QualType SizeT = Ctx.getSizeType();
    FunctionDecl *MarkFn = Oracle.runtimeFunction("checkpoint_mark", {}, C.Loc);
    RestoreLog =
        Oracle.runtimeFunction("checkpoint_restore", {SizeT}, C.Loc);
    Undo = Oracle.runtimeFunction("checkpoint_undo", {SizeT}, C.Loc);
    if (!MarkFn || !RestoreLog || !Undo)
      return false;
    Mark = Keep("_mark", SizeT);
    Out.Fwd.push_back(assign(ref(Mark), call(MarkFn, {}, SizeT), BO_Assign,
                             S.Loc));
    TapeIfRepeated(Mark);
    Store(call(D->Logged, C.Ops, C.Ty, C.Loc));
  } else {
    Store(call(D->Forward, C.Ops, C.Ty, C.Loc));
  }
  Block RangeReload;
  saveReadRanges(C, *D, Out, RangeReload);

  // Pops in the opposite order of the pushes: the ranges were pushed last;
  // a residual after the result's old value, an undo mark before it.
  Block &Rev = Out.Rev;
  if (ResidualFromResult) // before LHS gets its old value back
    Rev.push_back(assign(ref(Residual), LHS));
  for (StmtP &R : RangeReload)
    Rev.push_back(std::move(R));
  if (Residual)
    std::swap(RestoreResult, Reload);
  for (StmtP &R : RestoreResult)
    Rev.push_back(std::move(R));
  for (StmtP &R : Reload)
    Rev.push_back(std::move(R));
  if (Mark) {
    // Give the callee its inputs back, then recompute its recorded forward
    // sweep; the undo after its adjoint restores them for our earlier code.
    Rev.push_back(eval(call(RestoreLog, {ref(Mark)}, Ctx.VoidTy), C.Loc));
    Rev.push_back(eval(call(D->Forward, C.Ops, C.Ty, C.Loc), C.Loc));
  }
  llvm::SmallVector<ExprP, 8> Args(C.Ops.begin(), C.Ops.end());
  // A rule leaves unnamed a parameter it does not read (tanh_bwd's x, the
  // product C eigen_product_vjp writes): it gets a zero, so that the
  // reverse sweep keeps no values for it.
  if (!Oracle.isGenerated(D->Reverse))
    for (unsigned I = 0; I < Args.size() && I < D->Reverse->getNumParams();
         ++I) {
      QualType T = Args[I]->Ty;
      const ParmVarDecl *P = D->Reverse->getParamDecl(I);
      if (P->getIdentifier())
        continue;
      // A reference parameter is bound to the argument's object (swap_vjp's
      // const T &): a zero pointer there would be dereferenced, and a zero
      // number cannot bind to a T &.
      QualType PT = P->getType();
      if (PT->isReferenceType() &&
          (T->isPointerType() ||
           !PT.getNonReferenceType().isConstQualified()))
        continue;
      if (T->isRealFloatingType())
        Args[I] = floatConst(T, 0);
      else if (T->isPointerType() || T->isIntegerType())
        Args[I] = intConst(T, 0);
    }
  if (Residual)
    Args.push_back(ref(Residual));
  if (hasSeed(C.Callee)) {
    if (ResultActive) {
      ExprP Adj = adjointOf(*LHS);
      Var *R = adjointTemp("_r", C.Ty);
      Rev.push_back(decl(R, Adj));
      Rev.push_back(assign(Adj, floatConst(LHS->Ty, 0)));
      Args.push_back(ref(R));
    } else {
      Args.push_back(floatConst(C.Ty.getUnqualifiedType(), 0));
    }
  }
  Block After;
  for (unsigned I = 0; I < C.Ops.size() && I < D->AdjointSlot.size(); ++I) {
    if (!D->AdjointSlot[I])
      continue;
    const ExprP &A = C.Ops[I];
    if (A->Ty->isPointerType()) {
      QualType Elem = A->Ty->getPointeeType().getUnqualifiedType();
      QualType AdjTy = Ctx.getPointerType(Elem);
      if (ArgActive[I]) {
        Args.push_back(adjointOf(*A));
        continue;
      }
      // A reference parameter's derivative (a custom rule too) may write
      // its adjoint: give it a local to throw away, as for a scalar.
      if (I < C.Callee->getNumParams() &&
          C.Callee->getParamDecl(I)->getType()->isReferenceType()) {
        Var *Tmp = adjointTemp("_d_arg", Elem);
        Rev.push_back(decl(Tmp, floatConst(Elem, 0)));
        Args.push_back(addrOf(ref(Tmp), AdjTy));
        continue;
      }
      Args.push_back(intConst(AdjTy, 0));
      continue;
    }
    QualType T = A->Ty.getUnqualifiedType();
    if (ArgActive[I] && A->K == ExprKind::VarRef) {
      Args.push_back(addrOf(ref(adjointVar(A->V)), Ctx.getPointerType(T)));
      continue;
    }
    Var *Tmp = adjointTemp("_d_arg", T);
    Rev.push_back(decl(Tmp, floatConst(T, 0)));
    Args.push_back(addrOf(ref(Tmp), Ctx.getPointerType(T)));
    if (ArgActive[I])
      propagate(A, ref(Tmp), After);
  }
  Rev.push_back(eval(
      call(D->Reverse, Args, D->Reverse->getReturnType(), C.Loc), C.Loc));
  if (Mark)
    Rev.push_back(eval(call(Undo, {ref(Mark)}, Ctx.VoidTy), C.Loc));
  for (StmtP &A : After)
    Rev.push_back(std::move(A));
  // Pops come in the opposite order of the pushes.
  for (StmtP &R : llvm::reverse(Restore))
    Rev.push_back(std::move(R));
  return true;
}

/// Number of references to V in E.
static unsigned countRefs(const Expr &E, const Var *V) {
  unsigned N = 0;
  forEachExpr(E, [&](const Expr &Sub) {
    N += Sub.K == ExprKind::VarRef && Sub.V == V;
  });
  return N;
}

/// The pointer A without the casts that only added const (the argument to
/// a const T* parameter), so that a range can be popped back through it.
static ExprP writablePointer(ExprP A) {
  while (A->K == ExprKind::Cast && A->Ty->getPointeeType().isConstQualified() &&
         A->Ops[0]->Ty->isPointerType())
    A = A->Ops[0];
  return A->Ty->isPointerType() && !A->Ty->getPointeeType().isConstQualified()
             ? A
             : nullptr;
}

void ReverseBuilder::saveReadRanges(const Expr &C, const CallDerivative &D,
                                    Sweeps &Out, Block &Reload) {
  // Second order differentiates this code; the tangent builder follows
  // single recordings only.
  if (!Oracle.checkpointsEnabled() || D.Logged || !D.Residual.isNull())
    return;
  for (unsigned I = 0; I < C.Ops.size() && I < D.ReadExtents.size(); ++I) {
    const std::optional<ReadExtent> &Extent = D.ReadExtents[I];
    const ExprP &A = C.Ops[I];
    Var *Root = A->rootVar();
    // Only local arrays: memory behind a pointer is the caller's, which
    // may expect it back (RestorePointerParams), and a scalar is cheap.
    if (!Extent || Extent->CountParam >= C.Ops.size() || !Root ||
        Root->K != Var::Kind::Local || !Root->isArray() ||
        Generated.count(Root) || NeededAtWrites.count(Root) ||
        Assignments.isConstant(Root))
      continue;
    QualType Elem = A->Ty->getPointeeType().getUnqualifiedType();
    ExprP First = writablePointer(A);
    ExprP Count = C.Ops[Extent->CountParam];
    bool Simple = true;
    forEachExpr(*Count, [&](const Expr &E) {
      Simple &= E.K != ExprKind::Call && E.K != ExprKind::Pop;
    });
    if (!First || !Elem->isScalarType() || !Simple ||
        !Count->Ty->isIntegerType())
      continue;
    Count = extentCount(Count, *Extent, Ctx);
    Var *Tape = tapeFor(Elem);
    Out.Fwd.push_back(pushRange(Tape, First, Count));
    // Pushed after the callee's own recordings, so popped before its
    // reverse runs: it reads the values the array had at the call.
    Reload.insert(Reload.begin(), popRange(Tape, First, Count));
    RangeRefs[Root] += countRefs(*First, Root) + countRefs(*A, Root);
  }
}

bool ReverseBuilder::ifStmt(const ir::Stmt &S, Sweeps &Out) {
  Sweeps Then, Else;
  ++CondDepth;
  bool OK = stmts(S.Then, Then);
  OK &= stmts(S.Else, Else);
  --CondDepth;
  if (Then.Rev.empty() && Else.Rev.empty()) {
    Out.Fwd.push_back(
        ir::ifStmt(S.Cond, std::move(Then.Fwd), std::move(Else.Fwd), S.Loc));
    return OK;
  }
  ExprP RevCond = S.Cond;
  if (!recomputable(*S.Cond)) {
    // Record which branch ran, after the branch's own recordings: the
    // reverse sweep pops this first.
    Var *Tape = tapeFor(Ctx.BoolTy);
    Then.Fwd.push_back(push(Tape, boolConst(Ctx, true)));
    Else.Fwd.push_back(push(Tape, boolConst(Ctx, false)));
    RevCond = pop(Tape);
  }
  Out.Fwd.push_back(
      ir::ifStmt(S.Cond, std::move(Then.Fwd), std::move(Else.Fwd), S.Loc));
  Out.Rev.push_back(
      ir::ifStmt(RevCond, std::move(Then.Rev), std::move(Else.Rev), S.Loc));
  return OK;
}

bool ReverseBuilder::loop(const ir::Stmt &S, Sweeps &Out) {
  if (S.Revolve && Oracle.checkpointsEnabled()) {
    // revolveLoop falls back to this function for a loop with nothing to
    // reverse; it must not come back.
    auto Spec = S.Revolve;
    const_cast<ir::Stmt &>(S).Revolve = nullptr;
    bool OK = revolveLoop(S, *Spec, Out);
    const_cast<ir::Stmt &>(S).Revolve = Spec;
    return OK;
  }
  auto CL = Counted.find(&S);
  if (CL != Counted.end()) {
    // A copy: the body's loops add to Counted, which may move its entries.
    CountedFor Copy = CL->second;
    return countedForSweeps(S, Copy, Out);
  }
  Sweeps Body;
  ++LoopDepth;
  LoopStack.push_back(&S);
  bool OK = stmts(S.body(), Body);
  OK &= stmts(S.inc(), Body);
  LoopStack.pop_back();
  --LoopDepth;
  noteBodyReads(S, Body.Rev);
  auto L = std::make_unique<ir::Stmt>(StmtKind::Loop, S.Loc);
  L->TestFirst = S.TestFirst;
  L->Cond = S.Cond;
  if (Body.Rev.empty()) {
    L->body() = std::move(Body.Fwd);
    Out.Fwd.push_back(std::move(L));
    return OK;
  }
  // Count the iterations; the reverse sweep runs the body that many times.
  QualType CountTy = Ctx.getSizeType();
  Var *Count = temp("_n", CountTy);
  Count->K = Var::Kind::Local;
  Count->ZeroInit = true;
  F.Locals.push_back(Count);
  Out.Fwd.push_back(assign(ref(Count), intConst(CountTy, 0)));
  L->body().push_back(assign(
      ref(Count), binary(BO_Add, ref(Count), intConst(CountTy, 1), CountTy)));
  for (StmtP &FS : Body.Fwd)
    L->body().push_back(std::move(FS));
  Out.Fwd.push_back(std::move(L));
  Var *Tape = tapeFor(CountTy);
  Out.Fwd.push_back(push(Tape, ref(Count)));

  auto R = std::make_unique<ir::Stmt>(StmtKind::Repeat, S.Loc);
  R->V = Count;
  R->Cond = pop(Tape);
  R->body() = std::move(Body.Rev);
  Out.Rev.push_back(std::move(R));
  return OK;
}

/// The loop bound E can be evaluated again in the reverse sweep: scalar
/// locals and parameters the loop does not write (nor anything through
/// their address), constants, arithmetic.
static bool invariantBound(const Expr &E,
                           const llvm::DenseSet<const Var *> &Written,
                           const llvm::DenseSet<const Var *> &AddressTaken) {
  bool OK = true;
  // A container parameter's size never changes (LowerContainer.cpp
  // refuses what would change it).
  llvm::SmallPtrSet<const Expr *, 2> Sized;
  forEachExpr(E, [&](const Expr &Sub) {
    if (Sub.K == ExprKind::Size)
      Sized.insert(Sub.Ops[0].get());
  });
  forEachExpr(E, [&](const Expr &Sub) {
    if (Sized.count(&Sub))
      return;
    switch (Sub.K) {
    case ExprKind::Size:
      return;
    case ExprKind::Const:
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Cond:
    case ExprKind::Cast:
      OK &= !Sub.Ty->isPointerType();
      return;
    case ExprKind::VarRef:
      OK &= (Sub.V->K == Var::Kind::Param || Sub.V->K == Var::Kind::Local ||
             Sub.V->K == Var::Kind::Temp) &&
            !Sub.V->isArray() && !Sub.V->isPointer() &&
            !Written.count(Sub.V) && !AddressTaken.count(Sub.V);
      return;
    default:
      OK = false;
    }
  });
  return OK;
}

std::optional<ReverseBuilder::CountedFor>
ReverseBuilder::countedFor(const ir::Stmt &Init, const ir::Stmt &Loop) const {
  Var *C = Loop.V;
  if (Loop.K != StmtKind::Loop || !C || Loop.Revolve || !Loop.TestFirst ||
      !Loop.inc().empty() || Loop.body().empty() ||
      Init.K != StmtKind::Assign || Init.Op != BO_Assign ||
      Init.LHS->K != ExprKind::VarRef || Init.LHS->V != C ||
      AddressTaken.count(C))
    return std::nullopt;
  // The increment ends the body (jump elimination put it there).
  const ir::Stmt &Inc = *Loop.body().back();
  if (Inc.K != StmtKind::Assign)
    return std::nullopt;
  auto Step = inverseIncrement(Inc);
  if (!Step || *Step != BO_Sub || Inc.LHS->V != C || !Inc.RHS->Ops[1]->isOne())
    return std::nullopt;
  // Nothing else in the loop writes C; collect what it writes.
  llvm::DenseSet<const Var *> Written;
  bool OtherWrite = false;
  forEachStmt(Loop.body(), [&](const ir::Stmt &S) {
    if (S.K == StmtKind::Decl)
      Written.insert(S.V);
    if (S.K == StmtKind::Assign && &S != &Inc) {
      Written.insert(S.LHS->rootVar());
      OtherWrite |= S.LHS->rootVar() == C;
    }
  });
  if (OtherWrite)
    return std::nullopt;
  const Expr &Cond = *Loop.Cond;
  if (Cond.K != ExprKind::Binary || (Cond.BOp != BO_LT && Cond.BOp != BO_LE))
    return std::nullopt;
  const Expr *L = Cond.Ops[0].get();
  if (L->K == ExprKind::Cast)
    L = L->Ops[0].get();
  if (L->K != ExprKind::VarRef || L->V != C ||
      !invariantBound(*Cond.Ops[1], Written, AddressTaken) ||
      !invariantBound(*Init.RHS, Written, AddressTaken))
    return std::nullopt;
  CountedFor Result;
  Result.Counter = C;
  Result.Begin = Init.RHS;
  Result.End = Cond.Ops[1];
  Result.Inclusive = Cond.BOp == BO_LE;
  // Locals of the body computed again at the top of each reverse iteration.
  findRecomputed(Loop, Inc, Written, Result);
  return Result;
}

/// Functions that record nothing and keep no state, whose calls may be
/// reordered: the runtime's (derivative rules among them) and the system
/// headers' (<cmath>), never a generated sweep.
bool ReverseBuilder::orderFree(const FunctionDecl *FD) const {
  if (Oracle.isGenerated(FD))
    return false;
  if (Ctx.getSourceManager().isInSystemHeader(FD->getLocation()))
    return true;
  for (const DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (NS->getName() == "fluxion" &&
          NS->getParent()->getRedeclContext()->isTranslationUnit())
        return true;
  return false;
}

/// A copy of a recomputed statement for the reverse sweep: assignments
/// only (no declarations: the variables are declared once, at entry).
bool ReverseBuilder::setsNeeded(const ir::Stmt &D) const {
  if (D.K == StmtKind::Assign)
    return Needed.count(D.LHS->rootVar()) > 0;
  for (const Block *B : {&D.Then, &D.Else})
    for (const StmtP &T : *B)
      if (setsNeeded(*T))
        return true;
  return false;
}

static StmtP recomputation(const ir::Stmt &D) {
  if (D.K == StmtKind::Assign)
    return assign(D.LHS, D.RHS, BO_Assign, D.Loc);
  Block Then, Else;
  for (const StmtP &T : D.Then)
    Then.push_back(recomputation(*T));
  for (const StmtP &T : D.Else)
    Else.push_back(recomputation(*T));
  return ir::ifStmt(D.Cond, std::move(Then), std::move(Else), D.Loc);
}

bool ReverseBuilder::countedForSweeps(const ir::Stmt &S, const CountedFor &CL,
                                       Sweeps &Out) {
  Sweeps Body;
  HoistedRecords.erase(&S);
  CondDepthAt[&S] = CondDepth;
  if (CL.Anchor) {
    Block &Anchored = AnchoredBlocks[CL.Anchor];
    Anchored.clear();
    for (const ir::Stmt *D : CL.AnchoredRecomputed)
      if (setsNeeded(*D))
        Anchored.push_back(recomputation(*D));
  }
  ++LoopDepth;
  LoopStack.push_back(&S);
  bool OK = stmts(S.body(), Body);
  if (CL.Anchor)
    AnchoredBlocks.erase(CL.Anchor);
  LoopStack.pop_back();
  --LoopDepth;
  Block Restores;
  placeHoistedRecords(S, CL, Out, Restores);
  auto L = std::make_unique<ir::Stmt>(StmtKind::Loop, S.Loc);
  L->Cond = S.Cond;
  L->V = S.V;
  L->body() = std::move(Body.Fwd);
  Out.Fwd.push_back(std::move(L));
  // Locals computed again at the top of each reverse iteration, in their
  // forward order: those the reverse reads.
  Block Recompute;
  for (const ir::Stmt *D : CL.Recomputed)
    if (setsNeeded(*D))
      Recompute.push_back(recomputation(*D));
  noteBodyReads(S, Body.Rev);
  noteBodyReads(S, Recompute);
  if (Body.Rev.empty()) {
    for (StmtP &R : Restores)
      Out.Rev.push_back(std::move(R));
    return OK;
  }
  // The body's reverse starts with the decrement (the increment's inverse);
  // made here when the increment was not recorded (the body's reverse does
  // not read the counter, only our condition does).
  QualType CT = CL.Counter->Type;
  auto At = Body.Rev.begin();
  if (At == Body.Rev.end() || (*At)->K != StmtKind::Assign ||
      (*At)->LHS->K != ExprKind::VarRef || (*At)->LHS->V != CL.Counter)
    At = Body.Rev.insert(
        At, assign(ref(CL.Counter),
                   binary(BO_Sub, ref(CL.Counter), intConst(CT, 1), CT),
                   BO_Assign, S.Loc));
  ++At;
  // Recomputed locals go right after it.
  for (StmtP &D : Recompute)
    At = std::next(Body.Rev.insert(At, std::move(D)));
  QualType T = CL.Counter->Type;
  ExprP Start = cast(T, CL.End);
  if (CL.Inclusive)
    Start = binary(BO_Add, Start, intConst(T, 1), T);
  auto R = std::make_unique<ir::Stmt>(StmtKind::Loop, S.Loc);
  if (reverseIterationsCommute(S.body(),
                               llvm::ArrayRef<StmtP>(Body.Rev).drop_front(),
                               CL.Counter, Ctx, [&](const FunctionDecl *FD) {
                                 return orderFree(FD);
                               })) {
    // c = Begin; while (c < End (+1)) { reverse of the body; c = c + 1; }:
    // iterations that commute run in the primal's order.
    Body.Rev.erase(Body.Rev.begin());
    Body.Rev.push_back(assign(
        ref(CL.Counter), binary(BO_Add, ref(CL.Counter), intConst(T, 1), T),
        BO_Assign, S.Loc));
    Out.Rev.push_back(
        assign(ref(CL.Counter), cast(T, CL.Begin), BO_Assign, S.Loc));
    R->Cond = binary(BO_LT, ref(CL.Counter), Start, Ctx.BoolTy);
  } else {
    // c = End (+1); while (c > Begin) { c = c - 1; reverse of the body }:
    // the body's reverse starts with that decrement (the increment's
    // inverse).
    Out.Rev.push_back(assign(ref(CL.Counter), Start, BO_Assign, S.Loc));
    R->Cond = binary(BO_GT, ref(CL.Counter), cast(T, CL.Begin), Ctx.BoolTy);
  }
  Block Sums, Flushes;
  accumulateInLocals(CL, Body.Rev, Sums, Flushes);
  R->body() = std::move(Body.Rev);
  // The sums' declarations go before the counter's initialisation, which
  // was pushed last.
  Out.Rev.insert(std::prev(Out.Rev.end()),
                 std::make_move_iterator(Sums.begin()),
                 std::make_move_iterator(Sums.end()));
  Out.Rev.push_back(std::move(R));
  for (StmtP &RS : Flushes)
    Out.Rev.push_back(std::move(RS));
  for (StmtP &RS : Restores)
    Out.Rev.push_back(std::move(RS));
  return OK;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ExprP ReverseBuilder::adjointOf(const Expr &E) {
  if (ExprP A = shadowOf(E, Ctx, [&](Var *V) { return adjointVar(V); }))
    return A;
  Diags.report(E.Loc, Diag::InternalError) << "adjoint of a non-lvalue";
  return floatConst(Ctx.DoubleTy, 0);
}

ExprP ReverseBuilder::share(ExprP Seed, Block &Rev) {
  if (isTrivial(*Seed))
    return Seed;
  Var *T = adjointTemp("_s", Seed->Ty);
  Rev.push_back(decl(T, Seed));
  return ref(T);
}

void ReverseBuilder::propagate(const ExprP &E, ExprP Seed, Block &Rev) {
  if (!Activity.isActive(*E))
    return;
  QualType Ty = E->Ty;
  switch (E->K) {
  case ExprKind::VarRef:
  case ExprKind::Index:
  case ExprKind::Member:
    Rev.push_back(assign(adjointOf(*E), Seed, BO_AddAssign));
    return;
  case ExprKind::Unary:
    if (E->UOp == UO_Minus)
      propagate(E->Ops[0], neg(Seed, Ty), Rev);
    else if (E->UOp == UO_Plus)
      propagate(E->Ops[0], Seed, Rev);
    return;
  case ExprKind::Cast: {
    const ExprP &Src = conversionSource(*E);
    propagate(Src, cast(Src->Ty, Seed), Rev);
    return;
  }
  case ExprKind::Cond: {
    ExprP S = share(Seed, Rev);
    Block A, B;
    propagate(E->Ops[1], S, A);
    propagate(E->Ops[2], S, B);
    Rev.push_back(ir::ifStmt(E->Ops[0], std::move(A), std::move(B)));
    return;
  }
  case ExprKind::Binary: {
    const ExprP &L = E->Ops[0], &R = E->Ops[1];
    bool LA = Activity.isActive(*L), RA = Activity.isActive(*R);
    ExprP S = LA && RA ? share(Seed, Rev) : Seed;
    switch (E->BOp) {
    case BO_Add:
      propagate(L, S, Rev);
      propagate(R, S, Rev);
      return;
    case BO_Sub:
      propagate(L, S, Rev);
      propagate(R, neg(S, Ty), Rev);
      return;
    case BO_Mul:
      propagate(L, mul(S, R, Ty), Rev);
      propagate(R, mul(L, S, Ty), Rev);
      return;
    case BO_Div:
      propagate(L, div(S, R, Ty), Rev);
      // d(l/r)/dr = -l/r^2
      if (RA)
        propagate(R, neg(div(mul(S, L, Ty), mul(R, R, Ty), Ty), Ty), Rev);
      return;
    default:
      // Comparisons, logic and bit operations carry no derivative.
      return;
    }
  }
  case ExprKind::Call:
    // Lowering stores every call into a variable of its own type; a call
    // left inside an expression would silently get a zero derivative.
    Diags.report(E->Loc, Diag::InternalError)
        << "a call inside an expression reached the reverse sweep";
    return;
  default:
    return;
  }
}

} // namespace fluxion
