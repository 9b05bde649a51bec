//===- ReverseBuilder.h - Adjoint (reverse-mode) code builder ---*- C++ -*-===//
//
// Builds the forward sweep (the primal with the recordings the reverse sweep
// needs) and the reverse sweep (adjoint statements in reverse order) of a
// jump-free IR function. Derivatives of calls come from a DerivativeOracle:
// a custom derivative found by overload resolution, or a generated pair of
// forward/backward functions for a callee with a body.
//
// What is recorded is decided by a to-be-recorded fixpoint: a variable is
// recorded before an assignment only if the reverse sweep reads it and it is
// not constant (assigned once, outside loops). Integer increments by a
// constant are inverted instead of recorded. A local array that the reverse
// sweep reads only through callees' const pointer parameters of known
// extent is not recorded at its writes: the part each such call reads is
// saved once, after the call.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_ENGINE_REVERSEBUILDER_H
#define FLUXION_ENGINE_REVERSEBUILDER_H

#include "fluxion/engine/Diagnostics.h"
#include "fluxion/engine/IR.h"
#include "fluxion/engine/Passes.h"
#include "fluxion/engine/ReadExtent.h"

#include "clang/AST/DeclCXX.h"

#include <optional>

namespace fluxion {

struct EffectGlobals;

/// True if the reverse function of FD takes a seed for its result: the
/// result is a floating value (contract: "R seed", absent for void).
inline bool hasSeed(const clang::FunctionDecl *FD) {
  clang::QualType R = FD->getReturnType();
  // A function template returning `T`: its derivative templates take a
  // seed, and an instance returning no real is refused when it is used.
  return R->isRealFloatingType() ||
         (R->isDependentType() && !R->isPointerType() &&
          !R->isReferenceType() && !R->getContainedDeducedType());
}

/// How the reverse sweep differentiates one call site.
struct CallDerivative {
  /// Called in the forward sweep in place of the callee (the callee itself
  /// for a custom derivative, the generated _fwd function otherwise).
  clang::FunctionDecl *Forward = nullptr;
  /// Called in the reverse sweep: (args..., [seed], adjoints...).
  clang::FunctionDecl *Reverse = nullptr;
  /// For each callee parameter: whether Reverse takes an adjoint for it.
  llvm::SmallVector<bool, 4> AdjointSlot;
  /// A residual-form rule: Forward is f_fwd(args..., Res &res), Reverse is
  /// f_bwd(args..., res, [seed], adjoints...); null type otherwise.
  clang::QualType Residual;
  /// The residual is the call's result (ResidualRule::ResidualIsResult): a
  /// caller that keeps the result anyway need not keep the residual too.
  bool ResidualIsResult = false;
  /// A checkpointed callee: the forward sweep calls Logged (the primal,
  /// saving what it overwrites outside its frame); the reverse sweep undoes
  /// those writes, recomputes Forward and runs Reverse.
  clang::FunctionDecl *Logged = nullptr;
  /// A generated pair asked to give back, by the end of its reverse sweep,
  /// the memory it writes through its pointer parameters.
  bool RestoresMemory = false;
  /// For each callee parameter: how much of it Reverse reads, when it is a
  /// pointer to const whose extent is known (generated pairs only).
  llvm::SmallVector<std::optional<ReadExtent>, 4> ReadExtents;
};

class DerivativeOracle {
public:
  virtual ~DerivativeOracle() = default;
  /// The translation unit's counter globals (EffectGlobals.cpp); null: no
  /// global may be written.
  virtual EffectGlobals *effectGlobals() { return nullptr; }
  /// The runtime's function template fluxion::Name<T, ...> for arguments
  /// of the given types (fluxion::raise<E>); null after reporting.
  virtual clang::FunctionDecl *
  runtimeTemplateFunction(llvm::StringRef Name, clang::QualType T,
                          llvm::ArrayRef<clang::QualType> Args,
                          clang::SourceLocation Loc) {
    return nullptr;
  }
  /// Instantiates the body of a template's instance FD (apply<lambda>).
  virtual void instantiate(clang::FunctionDecl *FD, clang::SourceLocation Loc) {}
  /// The call operator of a lambda's closure for arguments of the given
  /// types (lvalues), a generic lambda's instantiated with its body; null
  /// if none fits.
  virtual clang::CXXMethodDecl *
  lambdaCallFor(const clang::CXXRecordDecl *Closure,
                llvm::ArrayRef<clang::QualType> Args,
                clang::SourceLocation Loc) {
    return nullptr;
  }
  /// The derivative of Call given which arguments are active; reports an
  /// error and returns nullopt if there is none. RestoreMemory asks for a
  /// pair that restores what the callee writes through pointers, for a
  /// caller whose reverse sweep still reads that memory.
  virtual std::optional<CallDerivative>
  reverseOf(const ir::Expr &Call, llvm::ArrayRef<bool> ArgActive,
            bool RestoreMemory) = 0;
  /// The runtime function fluxion::Name taking arguments of these types;
  /// reports an error and returns null if the runtime is not included.
  virtual clang::FunctionDecl *runtimeFunction(llvm::StringRef Name,
                                               llvm::ArrayRef<clang::QualType> Args,
                                               clang::SourceLocation Loc) = 0;
  /// False while building an adjoint that will itself be differentiated
  /// (f_hvp): checkpointing and binomial loops are then built as plain
  /// recording, which the tangent builder can follow.
  virtual bool checkpointsEnabled() const { return true; }
  /// The final sweeps of a derivative (the to-be-recorded fixpoint may
  /// have asked for pairs it then did not use): what they call is needed.
  virtual void noteCalls(const ir::Block &Sweep) {}
  /// True for functions the engine generates (sweeps of callees among them,
  /// which record on the tapes).
  virtual bool isGenerated(const clang::Decl *D) const = 0;
};

/// The parts of a reverse-mode derivative; packaged into functions by the
/// Differentiator (joint f_vjp, or split f_fwd/f_bwd).
struct AdjointParts {
  ir::Block Forward;
  ir::Block Reverse;
  /// Variables the reverse sweep reads that a split forward function must
  /// save at its end (a joint function keeps them in its frame).
  std::vector<ir::Var *> EndState;
};

class ReverseBuilder {
public:
  /// Adjoints maps active parameters (and the return variable) to their
  /// adjoint variables; it is extended with the adjoints of locals.
  ReverseBuilder(ir::Function &F, clang::ASTContext &Ctx,
                 const ActivityInfo &Activity, DerivativeOracle &Oracle,
                 DiagReporter &Diags,
                 llvm::DenseMap<ir::Var *, ir::Var *> &Adjoints);

  /// Builds both sweeps; nullopt after reporting an error.
  std::optional<AdjointParts> build();
  /// Record every write through a non-const pointer parameter and restore
  /// it in the reverse sweep, so that the caller gets its memory back.
  bool RestorePointerParams = false;
  /// The tape (a local of the function) for values of type T.
  ir::Var *tapeFor(clang::QualType T);
  /// Fwd gains the pushes that keep LV's value (an object or array that
  /// is not trivially copyable: its numbers one by one), Restore the pops
  /// that give it back, in the reverse order.
  void saveAndRestore(const ir::ExprP &LV, ir::Block &Fwd,
                      ir::Block &Restore);

private:
  struct Sweeps {
    ir::Block Fwd, Rev;
  };

  bool stmts(const ir::Block &B, Sweeps &Out);
  bool stmt(const ir::Stmt &S, Sweeps &Out);
  bool assignment(const ir::Stmt &S, Sweeps &Out);
  /// The assignment S overwrites no value the reverse sweep reads: its
  /// left-hand side needs no recording, whatever the rest of the function
  /// reads of it.
  bool overwritesNothingNeeded(const ir::Stmt &S) const;
  bool callSite(const ir::Stmt &S, Sweeps &Out);
  /// A container's size change and its undoing (ReverseResize.cpp).
  bool resizeStmt(const ir::Stmt &S, Sweeps &Out);
  /// Container parameters whose size the function changes, and whose
  /// adjoints hold seeds: the reverse sweep starts by checking that each
  /// seed has the size its container has then.
  llvm::SmallVector<ir::Var *, 2> ResizedParams;
  void checkSeedSizes(ir::Block &Rev);
  /// Saves, after the call, the ranges of local arrays that the callee's
  /// reverse reads through const pointers, and gives them back before it.
  void saveReadRanges(const ir::Expr &Call, const CallDerivative &D,
                      Sweeps &Out, ir::Block &Reload);
  bool ifStmt(const ir::Stmt &S, Sweeps &Out);
  bool loop(const ir::Stmt &S, Sweeps &Out);
  /// `c = Begin; while (c < End) { ...; c = c + 1; }` (or c <= End), c
  /// the integer its `for` declares, changed only by that increment, and
  /// bounds the loop does not change: the reverse sweep runs c back from
  /// End to Begin, so neither c nor the trip count is recorded.
  struct CountedFor {
    ir::Var *Counter = nullptr;
    ir::ExprP Begin, End;
    bool Inclusive = false;
    /// Top-level statements of the body that compute locals again from the
    /// counter, values the loop does not change and memory nothing after
    /// them in the body writes (ADBench Burgers' `int im = i == 0 ? n - 1 :
    /// i - 1`, `if (left < 0) left += n`, `const double ul = u[left]`):
    /// run again at the top of each reverse iteration instead of recorded
    /// (RecomputedLocals.cpp).
    std::vector<const ir::Stmt *> Recomputed;
    /// Their assignments (nested ones included), which record nothing, and
    /// the locals they set.
    std::vector<const ir::Stmt *> RecomputedAssigns;
    std::vector<const ir::Var *> RecomputedVars;
    /// Statements that read memory a later assignment of the body (the
    /// anchor) overwrites: run again in the anchor's reverse, right after
    /// its restore.
    const ir::Stmt *Anchor = nullptr;
    std::vector<const ir::Stmt *> AnchoredRecomputed;
  };
  /// Per anchor, the recomputations its reverse runs after its restore.
  llvm::DenseMap<const ir::Stmt *, ir::Block> AnchoredBlocks;
  void findRecomputed(const ir::Stmt &Loop, const ir::Stmt &Inc,
                      const llvm::DenseSet<const ir::Var *> &Written,
                      CountedFor &Result) const;
  /// How often each variable is mentioned in the function.
  llvm::DenseMap<const ir::Var *, unsigned> Mentions;
  void countMentions();
  /// D assigns a local the reverse sweep reads.
  bool setsNeeded(const ir::Stmt &D) const;
  std::optional<CountedFor> countedFor(const ir::Stmt &Init,
                                         const ir::Stmt &Loop) const;
  bool countedForSweeps(const ir::Stmt &S, const CountedFor &L,
                         Sweeps &Out);
  /// Calls that a reverse loop run forward may reorder.
  bool orderFree(const clang::FunctionDecl *FD) const;
  /// A loop under binomial checkpointing (RevolveLoop.cpp).
  bool revolveLoop(const ir::Stmt &S, const ir::RevolveSpec &Spec,
                   Sweeps &Out);

  /// Adds Seed * d(E) into the adjoints of E's active leaves.
  void propagate(const ir::ExprP &E, ir::ExprP Seed, ir::Block &Rev);
  /// The adjoint lvalue/pointer of an active lvalue or pointer expression.
  ir::ExprP adjointOf(const ir::Expr &E);
  ir::Var *adjointVar(ir::Var *V);
  /// Names a non-trivial seed that will be used more than once.
  ir::ExprP share(ir::ExprP Seed, ir::Block &Rev);
  ir::Var *temp(llvm::StringRef Name, clang::QualType T);
  /// A temporary that carries an adjoint (a seed being passed on).
  ir::Var *adjointTemp(llvm::StringRef Name, clang::QualType T);
  /// Forward recording / reverse restoration around an overwrite of LV.
  void record(const ir::ExprP &LV, Sweeps &Out, ir::Block &Restore);
  bool needsRecording(const ir::Var *V) const;
  /// Memory the caller wants back (RestorePointerParams), where it is not
  /// saved as a whole range.
  bool mustRestore(const ir::Var *V) const;
  /// Under RestorePointerParams: pointer parameters whose accesses stay in
  /// [0, count) with count another parameter (ReadExtent). The forward
  /// sweep saves that range on entry, the reverse sweep gives it back at
  /// its end, and their writes are recorded only where the reverse sweep
  /// itself needs them (not each of the d(d+1)/2 updates of GMM's qtimesx).
  llvm::SmallVector<std::pair<ir::Var *, ir::ExprP>, 2> RestoredRanges;
  void findRestoredRanges();
  bool recomputable(const ir::Expr &Cond) const;
  /// Records the variables a statement's reverse sweep reads (statements
  /// are visited in forward order).
  void noteReverseReads(const ir::Block &Rev);
  /// True if, outside loops, no earlier statement's reverse sweep reads V:
  /// overwriting V destroys nothing the reverse sweep needs.
  bool firstTouch(const ir::Var *V) const;

  ir::Function &F;
  clang::ASTContext &Ctx;
  const ActivityInfo &Activity;
  AssignmentInfo Assignments;
  DerivativeOracle &Oracle;
  DiagReporter &Diags;
  llvm::DenseMap<ir::Var *, ir::Var *> &Adjoints;
  llvm::DenseMap<const clang::Type *, ir::Var *> Tapes;
  /// Variables the reverse sweep reads (grown to a fixpoint).
  llvm::DenseSet<const ir::Var *> Needed;
  /// The subset read other than through saved call ranges: these are
  /// recorded at their writes.
  llvm::DenseSet<const ir::Var *> NeededAtWrites;
  /// Per variable, its references in the reverse sweep that are saved
  /// ranges (the pop and the callee's argument), not reads to record for.
  llvm::DenseMap<const ir::Var *, unsigned> RangeRefs;
  /// Variables this builder created (adjoints, temporaries, counters).
  llvm::DenseSet<const ir::Var *> Generated;
  unsigned LoopDepth = 0;
  /// Counted loops found by stmts(), and their counters' initialisations
  /// (which record nothing).
  llvm::DenseMap<const ir::Stmt *, CountedFor> Counted;
  llvm::DenseSet<const ir::Stmt *> CounterInits;
  llvm::DenseSet<const ir::Stmt *> RecomputedInits;
  /// Variables whose address is taken anywhere in the function.
  llvm::DenseSet<const ir::Var *> AddressTaken;
  /// The loops around the statement being built (null for a binomial one).
  std::vector<const ir::Stmt *> LoopStack;
  /// Per loop, the variables its body's reverse sweep reads (a union over
  /// the to-be-recorded rounds, so that the fixpoint only grows).
  llvm::DenseMap<const ir::Stmt *, llvm::DenseSet<const ir::Var *>> BodyReads;
  bool BodyReadsGrew = false;
  void noteBodyReads(const ir::Stmt &Loop, const ir::Block &Rev);
  /// True if, inside loops, nothing whose reverse sweep runs after this
  /// statement's (earlier statements, earlier iterations of the enclosing
  /// loops) reads the local V: an overwrite of V destroys nothing needed
  /// (logsumexp's `s += exp(v[i] - mx)`, read back only after the loop).
  bool unreadBefore(const ir::Var *V) const;
  /// Inside counted loops whose bodies' reverse sweeps never read the
  /// variable S writes: S's record moves before the outermost such loop and
  /// its restore after that loop's reverse, as one value or as the range of
  /// elements the loops write (HoistedRecords.cpp). True if it was moved.
  bool hoistRecord(const ir::Stmt &S);
  /// Emits the records hoisted out of Loop: before it in Before.Fwd, the
  /// restores into After (run after the loop's reverse).
  void placeHoistedRecords(const ir::Stmt &Loop, const CountedFor &CL,
                           Sweeps &Before, ir::Block &After);
  /// What one hoisted record saves: the lvalue LV, or, when First is set,
  /// Count elements from First on, which exist when NonEmpty holds (a
  /// comparison of the bounds, so an unsigned count cannot wrap). A range
  /// the loop's own counter covers (OwnCounter) is non-empty exactly when
  /// the loop runs.
  struct HoistedRecord {
    ir::ExprP LV, First, Count, NonEmpty;
    bool OwnCounter = false;
  };
  std::optional<HoistedRecord> elementRange(const ir::ExprP &LV,
                                            size_t Level) const;
  llvm::DenseMap<const ir::Stmt *, std::vector<HoistedRecord>> HoistedRecords;
  /// In the reverse body of a counted loop, sums into adjoint elements
  /// whose indices the body does not change go into locals, added to the
  /// element once after the loop (LocalAccumulators.cpp). Before gets the
  /// locals' declarations, After the guarded additions.
  void accumulateInLocals(const CountedFor &CL, ir::Block &Body,
                          ir::Block &Before, ir::Block &After);
  /// How many branches enclose the statement being built, and how many
  /// enclosed each counted loop: a write with more than its loop is
  /// conditional there.
  unsigned CondDepth = 0;
  llvm::DenseMap<const ir::Stmt *, unsigned> CondDepthAt;
  llvm::DenseSet<const ir::Var *> ReadLater;
  /// Locals whose current value no reverse sweep reads before the next
  /// write (UnreadValues.cpp): overwriting one records nothing.
  llvm::DenseSet<const ir::Var *> Unread;
  /// Unread as each loop or branch starts (a record hoisted before a loop
  /// of these keeps nothing).
  llvm::DenseMap<const ir::Stmt *, llvm::DenseSet<const ir::Var *>>
      UnreadAtLoop;
  bool unreadCandidate(const ir::Var *V) const;
  void noteUnreadBefore(const ir::Stmt &S);
  void noteUnreadAfter(const ir::Stmt &S, const ir::Block &Rev);
  /// S overwrites an unread local, and its own reverse reads none of it.
  bool overwritesUnread(const ir::Stmt &S) const;
  /// V is unread where Loop starts.
  bool unreadAtLoop(const ir::Stmt &Loop, const ir::Var *V) const;
};

/// LV names one location wherever it is evaluated in code that writes only
/// Written: a variable, its members and elements, with indices built from
/// constants and scalars outside Written (HoistedRecords.cpp).
bool invariantLValue(const ir::Expr &LV,
                     const llvm::DenseSet<const ir::Var *> &Written);

} // namespace fluxion

#endif
