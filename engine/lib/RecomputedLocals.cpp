//===- RecomputedLocals.cpp - Loop locals computed again in reverse -------===//
//
// A counted loop's body often starts by computing locals from the counter,
// from values the loop does not change and from memory: neighbour indices
// (`int left = i - 1; if (left < 0) left += n;`), a lambda's results, a
// stencil's differences (`const double ul = u[left];`). Recording them at
// every iteration costs a push and a pop each; a hand-written adjoint
// computes them again at the top of each reverse iteration instead.
//
// The reverse iteration for counter value c starts with the state the
// forward iteration c ended with: every later iteration, and every statement
// after the loop, has been undone by then. So a statement D of the body may
// run again there when
//  - it assigns a scalar local or temporary of the body (mentioned nowhere
//    outside the loop, its address never taken, written first in each
//    iteration by a top-level assignment that does not read it), or is an
//    `if` whose condition and branches are made only of such assignments to
//    locals that carry no derivative (`if (left < 0) left = left + n`);
//  - what it reads is constant in the loop (scalars the loop does not
//    write), the counter, locals accepted before it, or elements of arrays
//    and pointer parameters that nothing after D in the body writes (no
//    assignment, size change or call through a non-const pointer to that
//    variable): those elements still hold what D read. The reverse sweep
//    reading them makes them needed, so their writes elsewhere are recorded
//    and undone as for any read (the to-be-recorded fixpoint);
//  - no other statement reads the local before the last of these writes,
//    or writes it at all.
// A local that carries a derivative must be assigned once in the body (its
// reverse then runs where its assignment was, without a record). Every
// write of an accepted local records nothing, and an `if` made only of such
// writes pushes no branch flag.
//
// At the top of the reverse iteration, memory a later statement overwrote
// (`double old = u[i]; u[i] = ...`) no longer holds what D read. When one
// top-level assignment W after D (the anchor) is the first to write that
// memory, and nothing after W writes it, D runs again in W's reverse right
// after W's restore instead: memory is then as it was before W, which is
// as D left it (W is recorded even where nothing else asks for it). The
// reverse of statements after W runs before that, so they may only copy
// the local (`left = old`: the reverse reads no value); locals that read an
// anchored local run at the anchor too, and none of them may be set again
// by a statement that runs at the top. A loop has at most one anchor.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/ReverseBuilder.h"

namespace fluxion {
using namespace ir;
using namespace clang;

namespace {

/// Variables whose memory a statement may write: assignments' roots, size
/// changes, and what calls get through non-const pointers. Sets Unknown for
/// a pointer argument whose variable cannot be named.
void memoryWrites(const Stmt &S, llvm::DenseSet<const Var *> &Out,
                  bool &Unknown) {
  auto Visit = [&](const Stmt &T) {
    if ((T.K == StmtKind::Assign || T.K == StmtKind::Resize) && T.LHS) {
      if (Var *R = T.LHS->rootVar())
        Out.insert(R);
      else
        Unknown = true;
    }
    if (T.K == StmtKind::Decl || (T.K == StmtKind::Loop && T.V))
      Out.insert(T.V);
    for (const ExprP *E : {&T.RHS, &T.Cond}) {
      if (!*E)
        continue;
      forEachExpr(**E, [&](const Expr &Sub) {
        if (Sub.K != ExprKind::Call)
          return;
        for (const ExprP &A : Sub.Ops) {
          if (!A->Ty->isPointerType() ||
              A->Ty->getPointeeType().isConstQualified())
            continue;
          if (Var *R = A->rootVar())
            Out.insert(R);
          else
            Unknown = true;
        }
      });
    }
  };
  Visit(S);
  forEachStmt(S.Then, Visit);
  forEachStmt(S.Else, Visit);
  for (const SwitchSection &Sec : S.Sections)
    forEachStmt(Sec.Body, Visit);
}

void mentionedVars(const Stmt &S, llvm::DenseSet<const Var *> &Out) {
  auto Add = [&](const Stmt &T) {
    if (T.V)
      Out.insert(T.V);
  };
  Add(S);
  forEachStmt(S.Then, Add);
  forEachStmt(S.Else, Add);
  for (const SwitchSection &Sec : S.Sections)
    forEachStmt(Sec.Body, Add);
  auto AddExpr = [&](const Expr &E) {
    if (E.K == ExprKind::VarRef)
      Out.insert(E.V);
  };
  for (const ExprP *E : {&S.LHS, &S.RHS, &S.Cond})
    if (*E)
      forEachExpr(**E, AddExpr);
  forEachExpr(S.Then, AddExpr);
  forEachExpr(S.Else, AddExpr);
  for (const SwitchSection &Sec : S.Sections) {
    for (const ExprP &V : Sec.Values)
      forEachExpr(*V, AddExpr);
    forEachExpr(Sec.Body, AddExpr);
  }
}

/// Walks one loop body, deciding which top-level statements run again.
class RecomputeWalk {
public:
  RecomputeWalk(const Block &Body, const Stmt &Inc,
                const llvm::DenseSet<const Var *> &Written,
                const llvm::DenseSet<const Var *> &AddressTaken,
                const llvm::DenseSet<const Var *> &OnlyInside,
                const ActivityInfo &Activity, const Var *ReturnVar)
      : Body(Body), Inc(Inc), Written(Written), AddressTaken(AddressTaken),
        OnlyInside(OnlyInside), Activity(Activity), ReturnVar(ReturnVar) {
    // Memory written from each top-level statement on.
    WrittenFrom.resize(Body.size() + 1);
    UnknownFrom.assign(Body.size() + 1, false);
    for (size_t I = Body.size(); I-- > 0;) {
      WrittenFrom[I] = WrittenFrom[I + 1];
      bool Unknown = UnknownFrom[I + 1];
      memoryWrites(*Body[I], WrittenFrom[I], Unknown);
      UnknownFrom[I] = Unknown;
    }
    forEachStmt(Body, [&](const Stmt &S) {
      if (S.K == StmtKind::Assign && S.LHS->K == ExprKind::VarRef)
        ++Writes[S.LHS->V];
    });
  }

  void run(std::vector<const Stmt *> &Stmts,
           llvm::DenseSet<const Stmt *> &Assigns,
           llvm::DenseSet<const Var *> &Vars, const Stmt *&AnchorStmt,
           std::vector<const Stmt *> &AnchoredStmts) {
    llvm::DenseSet<const Var *> Excluded;
    for (;;) {
      Rec.clear();
      Anchored.clear();
      Anchor = std::nullopt;
      Stmts.clear();
      AnchoredStmts.clear();
      Assigns.clear();
      llvm::DenseSet<const Var *> SeenByOthers, ReadAtAnchor;
      bool Grew = false;
      for (size_t I = 0; I < Body.size(); ++I) {
        const Stmt &S = *Body[I];
        if (&S == &Inc)
          continue;
        Pos = I;
        llvm::DenseSet<const Var *> Sets;
        bool IsAnchored = false;
        if (acceptTop(S, Excluded, Sets, IsAnchored)) {
          // A local read by code that runs before this statement's copy
          // (other statements; those run at the anchor, which come after
          // the copies at the top) would see the value it gets here.
          for (const Var *V : Sets)
            if (SeenByOthers.count(V) || ReadAtAnchor.count(V))
              Grew |= Excluded.insert(V).second;
          Rec.insert(Sets.begin(), Sets.end());
          if (IsAnchored) {
            Anchored.insert(Sets.begin(), Sets.end());
            AnchoredStmts.push_back(&S);
            mentionedVars(S, ReadAtAnchor);
          } else {
            Stmts.push_back(&S);
          }
          continue;
        }
        llvm::DenseSet<const Var *> Mentioned, W;
        mentionedVars(S, Mentioned);
        bool Unknown = false;
        memoryWrites(S, W, Unknown);
        // After the anchor, a local run again there may only be copied
        // (`left = old`: its reverse reads no value).
        bool Copy = S.K == StmtKind::Assign && S.Op == BO_Assign &&
                    S.RHS->K == ExprKind::VarRef;
        for (const Var *V : Mentioned) {
          SeenByOthers.insert(V);
          // A statement that is not run again writes an accepted local.
          if (Rec.count(V) && W.count(V))
            Grew |= Excluded.insert(V).second;
          if (Anchored.count(V) && I > *Anchor && !Copy)
            Grew |= Excluded.insert(V).second;
        }
      }
      if (!Grew)
        break;
    }
    Vars = Rec;
    for (const Stmt *S : Stmts)
      collectAssigns(*S, Assigns);
    for (const Stmt *S : AnchoredStmts)
      collectAssigns(*S, Assigns);
    AnchorStmt = Anchor && !AnchoredStmts.empty() ? Body[*Anchor].get()
                                                   : nullptr;
  }

private:
  static void collectAssigns(const Stmt &S,
                             llvm::DenseSet<const Stmt *> &Assigns) {
    if (S.K == StmtKind::Assign) {
      Assigns.insert(&S);
      return;
    }
    for (const Block *B : {&S.Then, &S.Else})
      for (const StmtP &T : *B)
        collectAssigns(*T, Assigns);
  }

  /// Top-level S may run again: at the top of the reverse iteration when
  /// nothing after it in the body writes the memory it reads, or else right
  /// after the restore of the one later assignment W that writes it (the
  /// anchor: memory is then as it was before W, which is as S left it),
  /// when nothing after W writes it either.
  bool acceptTop(const Stmt &S, const llvm::DenseSet<const Var *> &Excluded,
                 llvm::DenseSet<const Var *> &Sets, bool &IsAnchored) {
    Roots.clear();
    if (!accept(S, Excluded, Sets, /*Nested=*/false))
      return false;
    bool ReadsAnchored = false;
    forEachExpr(S.K == StmtKind::If ? *S.Cond : *S.RHS, [&](const Expr &E) {
      ReadsAnchored |= E.K == ExprKind::VarRef && Anchored.count(E.V);
    });
    if (S.K == StmtKind::If) {
      forEachExpr(S.Then, [&](const Expr &E) {
        ReadsAnchored |= E.K == ExprKind::VarRef && Anchored.count(E.V);
      });
      forEachExpr(S.Else, [&](const Expr &E) {
        ReadsAnchored |= E.K == ExprKind::VarRef && Anchored.count(E.V);
      });
    }
    if (Roots.empty() && !ReadsAnchored)
      return true;
    if (UnknownFrom[Pos + 1])
      return false;
    std::optional<size_t> W;
    for (size_t J = Pos + 1; J < Body.size() && !W; ++J) {
      llvm::DenseSet<const Var *> Writes;
      bool Unknown = false;
      memoryWrites(*Body[J], Writes, Unknown);
      for (const Var *R : Roots)
        if (Writes.count(R))
          W = J;
    }
    if (!W) {
      if (!ReadsAnchored)
        return true;
      // Reads a local run again at the anchor: runs there too.
      IsAnchored = S.K == StmtKind::Assign && Pos < *Anchor;
      return IsAnchored;
    }
    const Stmt &At = *Body[*W];
    if (S.K != StmtKind::Assign || At.K != StmtKind::Assign ||
        At.RHS->K == ExprKind::Call || (Anchor && *Anchor != *W))
      return false;
    for (const Var *R : Roots)
      if (WrittenFrom[*W + 1].count(R))
        return false;
    Anchor = *W;
    IsAnchored = true;
    return true;
  }

  bool candidate(const Var *V, const llvm::DenseSet<const Var *> &Excluded) {
    return (V->K == Var::Kind::Local || V->K == Var::Kind::Temp) &&
           V != ReturnVar && !V->isArray() && !V->isPointer() &&
           V->Type->isScalarType() && !AddressTaken.count(V) &&
           OnlyInside.count(V) && !Excluded.count(V);
  }

  /// S (top-level unless Nested) may run again; Sets gets what it assigns.
  bool accept(const Stmt &S, const llvm::DenseSet<const Var *> &Excluded,
              llvm::DenseSet<const Var *> &Sets, bool Nested) {
    if (S.K == StmtKind::Assign) {
      if (S.Op != BO_Assign || S.LHS->K != ExprKind::VarRef ||
          S.RHS->K == ExprKind::Call)
        return false;
      const Var *V = S.LHS->V;
      if (!candidate(V, Excluded) || !recomputable(*S.RHS))
        return false;
      bool Active = Activity.isActive(V);
      // Written first by a top-level assignment; a local with a derivative
      // only there.
      if (!Rec.count(V) && Nested)
        return false;
      if (Active && (Nested || Writes.lookup(V) != 1))
        return false;
      Sets.insert(V);
      return true;
    }
    if (S.K != StmtKind::If || !recomputable(*S.Cond))
      return false;
    for (const Block *B : {&S.Then, &S.Else})
      for (const StmtP &T : *B) {
        if (T->K == StmtKind::Assign && Activity.isActive(T->LHS->rootVar()))
          return false;
        if (!accept(*T, Excluded, Sets, /*Nested=*/true))
          return false;
      }
    return true;
  }

  /// The memory a pointer or array expression designates can be read again
  /// at the top of the reverse iteration.
  bool recomputableBase(const Expr &B) {
    switch (B.K) {
    case ExprKind::VarRef: {
      const Var *P = B.V;
      if (!(P->isArray() || P->isPointer()) ||
          (P->K != Var::Kind::Param && P->K != Var::Kind::Local) ||
          AddressTaken.count(P))
        return false;
      Roots.insert(P);
      // A pointer the loop moves designates other memory in reverse.
      return !P->isPointer() || !Written.count(P) ||
             !pointerMoved(P);
    }
    case ExprKind::Cast:
      return recomputableBase(*B.Ops[0]);
    case ExprKind::Index:
      return B.Ty->isArrayType() && recomputableBase(*B.Ops[0]) &&
             recomputable(*B.Ops[1]);
    case ExprKind::Binary:
      if (B.BOp != BO_Add && B.BOp != BO_Sub)
        return false;
      if (B.Ops[0]->Ty->isPointerType() || B.Ops[0]->Ty->isArrayType())
        return recomputableBase(*B.Ops[0]) && recomputable(*B.Ops[1]);
      return B.BOp == BO_Add && recomputableBase(*B.Ops[1]) &&
             recomputable(*B.Ops[0]);
    default:
      return false;
    }
  }

  bool pointerMoved(const Var *P) {
    bool Moved = false;
    forEachStmt(Body, [&](const Stmt &S) {
      Moved |= S.K == StmtKind::Assign && S.LHS->K == ExprKind::VarRef &&
               S.LHS->V == P;
    });
    return Moved;
  }

  bool recomputable(const Expr &E) {
    switch (E.K) {
    case ExprKind::Const:
      return true;
    case ExprKind::VarRef: {
      const Var *V = E.V;
      if (Rec.count(V))
        return true;
      return (V->K == Var::Kind::Param || V->K == Var::Kind::Local ||
              V->K == Var::Kind::Temp) &&
             !V->isArray() && !V->isPointer() && !Written.count(V) &&
             !AddressTaken.count(V);
    }
    case ExprKind::Index:
      return !E.Ty->isArrayType() && recomputableBase(*E.Ops[0]) &&
             recomputable(*E.Ops[1]);
    case ExprKind::Size:
      // The size as the iteration left it: nothing after D resizes it.
      return recomputableBase(*E.Ops[0]);
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Cond:
    case ExprKind::Cast:
      if (E.Ty->isPointerType() || E.Ty->isArrayType())
        return false;
      return llvm::all_of(E.Ops, [&](const ExprP &O) {
        return recomputable(*O);
      });
    default:
      return false;
    }
  }

  const Block &Body;
  const Stmt &Inc;
  const llvm::DenseSet<const Var *> &Written;
  const llvm::DenseSet<const Var *> &AddressTaken;
  const llvm::DenseSet<const Var *> &OnlyInside;
  const ActivityInfo &Activity;
  const Var *ReturnVar;
  std::vector<llvm::DenseSet<const Var *>> WrittenFrom;
  std::vector<bool> UnknownFrom;
  llvm::DenseMap<const Var *, unsigned> Writes;
  llvm::DenseSet<const Var *> Rec;
  /// Locals run again after the anchor's restore, and the anchor's place.
  llvm::DenseSet<const Var *> Anchored;
  std::optional<size_t> Anchor;
  /// Arrays and pointers the statement being accepted reads elements of.
  llvm::DenseSet<const Var *> Roots;
  size_t Pos = 0;
};

} // namespace

void ReverseBuilder::findRecomputed(const Stmt &Loop, const Stmt &Inc,
                                    const llvm::DenseSet<const Var *> &Written,
                                    CountedFor &Result) const {
  // Variables mentioned only inside this loop's body.
  llvm::DenseMap<const Var *, unsigned> Inside;
  auto Count = [&](const Expr &E) {
    if (E.K == ExprKind::VarRef)
      ++Inside[E.V];
  };
  forEachExpr(Loop.body(), Count);
  forEachStmt(Loop.body(), [&](const Stmt &S) {
    if (S.V && (S.K == StmtKind::Decl || S.K == StmtKind::Loop))
      ++Inside[S.V];
  });
  llvm::DenseSet<const Var *> OnlyInside;
  for (const auto &[V, N] : Inside)
    if (Mentions.lookup(V) == N)
      OnlyInside.insert(V);
  RecomputeWalk Walk(Loop.body(), Inc, Written, AddressTaken, OnlyInside,
                     Activity, F.ReturnVar);
  llvm::DenseSet<const Stmt *> Assigns;
  llvm::DenseSet<const Var *> Vars;
  Walk.run(Result.Recomputed, Assigns, Vars, Result.Anchor,
           Result.AnchoredRecomputed);
  Result.RecomputedAssigns.assign(Assigns.begin(), Assigns.end());
  Result.RecomputedVars.assign(Vars.begin(), Vars.end());
}

void ReverseBuilder::countMentions() {
  Mentions.clear();
  forEachExpr(F.Body, [&](const Expr &E) {
    if (E.K == ExprKind::VarRef)
      ++Mentions[E.V];
  });
  forEachStmt(F.Body, [&](const Stmt &S) {
    if (S.V && (S.K == StmtKind::Decl || S.K == StmtKind::Loop))
      ++Mentions[S.V];
  });
}

} // namespace fluxion
