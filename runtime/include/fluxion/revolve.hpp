// Fluxion runtime: binomial checkpointing of loops ("revolve").
//
// Reversing a loop of l steps by taping every step needs memory for all l
// steps. Binomial checkpointing (A. Griewank and A. Walther, "Algorithm 799:
// revolve", ACM TOMS 26(1), 2000) keeps at most s copies ("snapshots") of the
// loop's state instead, recomputes the states in between from them, and tapes
// one step at a time. Among all schedules that do so, it runs the fewest plain
// forward steps.
//
// RevolveSchedule is the schedule alone, as a sequence of actions. The
// revolve_* functions below drive it for generated code: they copy the state
// regions that the loop registers in and out of snapshot buffers and tell the
// caller how many plain steps to run and when to run a step taped.
// docs/checkpointing-runtime.md describes the protocol.
#ifndef FLUXION_REVOLVE_HPP
#define FLUXION_REVOLVE_HPP

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

namespace fluxion {

//===----------------------------------------------------------------------===//
// Binomial counts
//===----------------------------------------------------------------------===//

namespace detail {

/// Counts of steps and schedules, saturating at RevolveSaturated instead of
/// wrapping.
using RevolveCount = unsigned long long;
constexpr RevolveCount RevolveSaturated = ~RevolveCount(0);

inline RevolveCount revolveMul(RevolveCount A, RevolveCount B) {
  if (A != 0 && B > RevolveSaturated / A)
    return RevolveSaturated;
  return A * B;
}

inline RevolveCount revolveAdd(RevolveCount A, RevolveCount B) {
  if (B > RevolveSaturated - A)
    return RevolveSaturated;
  return A + B;
}

inline RevolveCount revolveGcd(RevolveCount A, RevolveCount B) {
  while (B != 0) {
    RevolveCount R = A % B;
    A = B;
    B = R;
  }
  return A;
}

/// C(N, K), or RevolveSaturated where it does not fit.
inline RevolveCount revolveBinomial(RevolveCount N, RevolveCount K) {
  if (K > N)
    return 0;
  K = std::min(K, N - K);
  // After step I, R = C(N - K + I, I). I divides R * (N - K + I); once the
  // common factor G of R and I is taken out of R, the rest of I divides
  // N - K + I, so nothing larger than the result is ever formed. R at least
  // doubles at each step (N - K >= K >= I), so a result that does not fit
  // saturates within 64 steps whatever K is.
  RevolveCount R = 1;
  for (RevolveCount I = 1; I <= K; ++I) {
    RevolveCount G = revolveGcd(R, I);
    R = revolveMul(R / G, (N - K + I) / (I / G));
    if (R == RevolveSaturated)
      return R;
  }
  return R;
}

/// beta(S, T) = C(S + T, S): the most steps S snapshots can reverse when no
/// step is run forward more than T times. 0 when S or T is negative.
inline RevolveCount revolveBetaCount(long long S, long long T) {
  if (S < 0 || T < 0)
    return 0;
  return revolveBinomial(static_cast<RevolveCount>(S) +
                             static_cast<RevolveCount>(T),
                         static_cast<RevolveCount>(S));
}

/// The repetition number of N steps with S >= 1 snapshots: the smallest T
/// with beta(S, T) >= N, so that beta(S, T - 1) < N <= beta(S, T).
inline long long revolveRepetitions(long long N, long long S) {
  assert(S >= 1 && "revolve needs at least one snapshot");
  if (N <= 1)
    return 0;
  // beta(S, N - 1) >= beta(1, N - 1) = N bounds the search. T is about N for
  // one snapshot and tiny for many, so search outwards from 1, then bisect.
  long long Low = 0; // beta(S, Low) < N
  long long High = 1;
  while (revolveBetaCount(S, High) < static_cast<RevolveCount>(N)) {
    Low = High;
    High = High > (N - 1) / 2 ? N - 1 : 2 * High;
  }
  while (High - Low > 1) {
    long long Mid = Low + (High - Low) / 2;
    if (revolveBetaCount(S, Mid) >= static_cast<RevolveCount>(N))
      High = Mid;
    else
      Low = Mid;
  }
  return High;
}

/// How many steps to advance first when N >= 2 steps are to be reversed
/// from a stored state with S >= 1 snapshots (the stored one included).
///
/// Advancing M steps, storing that state, reversing the last N - M steps
/// with the other S - 1 snapshots and then the first M steps with all S costs
/// M + p(N - M, S - 1) + p(M, S) plain steps, p being the optimum
/// (revolveMinForwardSteps). With T the repetition number of N, p(., S) is
/// convex and grows by T per step between beta(S, T - 1) and beta(S, T), and
/// the sum is minimal exactly when the first part needs at most T - 1
/// repetitions and the second at most T (the advance runs the first part's
/// steps once more):
///
///   beta(S, T - 2) <= M <= beta(S, T - 1)
///   beta(S - 1, T - 1) <= N - M <= beta(S - 1, T)
///
/// These overlap because beta(S, T) = beta(S, T - 1) + beta(S - 1, T). Any
/// such M is optimal; the smallest stores fewer states over the whole
/// schedule than the largest (6% fewer takeshots for 10^4 steps and 10
/// snapshots), so we take it.
inline long long revolveSplit(long long N, long long S) {
  assert(N >= 2 && S >= 1);
  long long T = revolveRepetitions(N, S);
  // beta(S, T - 2) < N; the other bound is below N when beta(S - 1, T) is
  // at least 1, which it is, so both fit.
  long long FirstAtLeast = static_cast<long long>(revolveBetaCount(S, T - 2));
  RevolveCount SecondAtMost = revolveBetaCount(S - 1, T);
  if (SecondAtMost < static_cast<RevolveCount>(N))
    FirstAtLeast =
        std::max(FirstAtLeast, N - static_cast<long long>(SecondAtMost));
  return std::max(FirstAtLeast, 1LL); // beta(S, -1) = 0 when T = 1
}

} // namespace detail

/// C(S + T, S), the number of steps that S snapshots reverse when no step is
/// run forward more than T times; LLONG_MAX where it does not fit, 0 for
/// negative arguments.
inline long long revolveBeta(long S, long T) {
  detail::RevolveCount Beta = detail::revolveBetaCount(S, T);
  return static_cast<long long>(
      std::min(Beta, static_cast<detail::RevolveCount>(LLONG_MAX)));
}

/// The fewest plain forward steps with which S snapshots reverse L steps:
/// T * L - beta(S + 1, T - 1), T being the repetition number of L
/// (beta(S, T - 1) < L <= beta(S, T)). 0 for L <= 1; LLONG_MAX where it does
/// not fit, and for S < 1 (no schedule exists).
inline long long revolveMinForwardSteps(long L, int S) {
  using detail::RevolveCount;
  if (L <= 1)
    return 0;
  if (S < 1)
    return LLONG_MAX;
  long long T = detail::revolveRepetitions(L, S);
  // T * L alone overflows long before the result does (for one snapshot the
  // result is L (L - 1) / 2). So go through B = beta(S, T - 1) < L, where
  // the cost grows by T per step: p(L) = p(B) + T (L - B) with
  // p(B) = (T - 1) B - beta(S + 1, T - 2) = (T - 1) B S / (S + 1). Every term
  // is then at most twice the result.
  RevolveCount B = detail::revolveBetaCount(S, T - 1);
  RevolveCount Rounds = detail::revolveMul(static_cast<RevolveCount>(T - 1), B);
  if (Rounds == detail::RevolveSaturated)
    return LLONG_MAX;
  RevolveCount AtB =
      Rounds - detail::revolveBetaCount(static_cast<long long>(S) + 1, T - 2);
  RevolveCount Total = detail::revolveAdd(
      AtB, detail::revolveMul(static_cast<RevolveCount>(T),
                              static_cast<RevolveCount>(L) - B));
  return static_cast<long long>(
      std::min(Total, static_cast<RevolveCount>(LLONG_MAX)));
}

//===----------------------------------------------------------------------===//
// The schedule
//===----------------------------------------------------------------------===//

/// The binomial checkpointing schedule of a loop of Steps steps, as actions.
///
/// States are numbered by the steps done: state 0 is the loop's input, step i
/// maps state i to state i + 1. The schedule starts with state 0 current:
///
///   Takeshot  store the current state (capo()) in slot().
///   Advance   run steps oldCapo() .. capo() - 1 plainly; capo() is current.
///   Firsturn  run step capo() = Steps - 1 taped and reverse it.
///   Youturn   run step capo() taped and reverse it.
///   Restore   make the state stored in slot() current; capo() is its index.
///   Terminate every step is reversed; next() keeps returning Terminate.
///
/// Steps are reversed in the order Steps - 1, ..., 0, each exactly once (the
/// first by Firsturn); after a turn the next action is Restore or Terminate.
/// At most Snapshots slots hold a needed state at once (slot() is always
/// below Snapshots), and the Advance actions run revolveMinForwardSteps(Steps,
/// Snapshots) plain steps in all, the fewest possible, none of them more
/// often than the repetition number of Steps.
///
/// The held states form a stack, bottom (slot 0, state 0) to top, by
/// increasing index. Reversing steps a .. b - 1 from the top state a, the
/// schedule advances to a + m (detail::revolveSplit, with the slots not below
/// a as budget), stores that state above a, reverses steps a + m .. b - 1 the
/// same way, then restores a and reverses a .. a + m - 1.
class RevolveSchedule {
public:
  enum class Action {
    Advance,
    Takeshot,
    Restore,
    Firsturn,
    Youturn,
    Terminate
  };

  RevolveSchedule(long Steps, int Snapshots)
      : StepCount(Steps), SlotCount(Snapshots), Fine(Steps) {
    assert(Steps >= 0 && "negative number of steps");
    assert(Snapshots >= 1 && "revolve needs at least one snapshot");
  }

  Action next() {
    if (Fine <= 0) // every step reversed, or none to reverse
      return finish();
    if (Held.empty()) // the start: store the loop's input
      return takeshot();
    if (Capo == Fine) { // just turned: go back to the nearest stored state
      Slot = static_cast<int>(Held.size()) - 1;
      Capo = Held.back();
      return Action::Restore;
    }
    if (Capo == Fine - 1)
      return turn();
    if (Held.back() != Capo) // advanced to a state the rest starts from
      return takeshot();
    long long Budget = static_cast<long long>(SlotCount) -
                       static_cast<long long>(Held.size()) + 1;
    OldCapo = Capo;
    Capo += static_cast<long>(detail::revolveSplit(Fine - Capo, Budget));
    Advances += Capo - OldCapo;
    return Action::Advance;
  }

  /// The state index current after the action (for a turn, the reversed
  /// step's input; for Terminate, 0).
  long capo() const { return Capo; }
  /// For Advance: the state index it starts from.
  long oldCapo() const { return OldCapo; }
  /// For Takeshot and Restore: the slot, 0 <= slot() < snapshots().
  int slot() const { return Slot; }
  /// Plain forward steps issued by Advance actions so far.
  long long advances() const { return Advances; }

  long steps() const { return StepCount; }
  int snapshots() const { return SlotCount; }
  /// Slots holding a state that is still needed (slots 0 .. slotsInUse() - 1).
  int slotsInUse() const { return static_cast<int>(Held.size()); }

private:
  Action takeshot() {
    assert(Held.size() < static_cast<std::size_t>(SlotCount) &&
           "more snapshots than allowed");
    Held.push_back(Capo);
    Slot = static_cast<int>(Held.size()) - 1;
    return Action::Takeshot;
  }

  Action turn() {
    Action Turn = Fine == StepCount ? Action::Firsturn : Action::Youturn;
    Fine = Capo;
    // A stored state is needed until the step it is the input of is
    // reversed; only the top one can be that step's.
    while (!Held.empty() && Held.back() >= Fine)
      Held.pop_back();
    return Turn;
  }

  Action finish() {
    Capo = OldCapo = 0;
    Slot = -1;
    return Action::Terminate;
  }

  long StepCount;
  int SlotCount;
  /// Steps Fine .. StepCount - 1 are reversed.
  long Fine;
  long Capo = 0;
  long OldCapo = 0;
  int Slot = -1;
  long long Advances = 0;
  /// The state index held in each slot in use, slot 0 first.
  std::vector<long> Held;
};

//===----------------------------------------------------------------------===//
// The loop driver
//===----------------------------------------------------------------------===//

/// What one driven loop did, for tests and tuning.
struct RevolveStats {
  long steps = 0;
  int snapshots = 0;
  /// Plain forward steps the caller was asked to run.
  long long advances = 0;
  /// Steps run taped and reversed (Firsturn and Youturn): steps, in the end.
  long long tapedSteps = 0;
  long long takeshots = 0;
  long long restores = 0;
  /// The most bytes held in snapshots at once.
  std::size_t snapshotBytesPeak = 0;
};

namespace detail {

[[noreturn]] inline void revolveFatal(const char *Message) {
  std::fprintf(stderr, "fluxion: %s\n", Message);
  std::abort();
}

/// One loop being driven: its schedule, its registered state and its
/// snapshot buffers.
///
/// Calls out of order are fatal errors, also in release builds: they would
/// copy snapshots to or from the wrong memory, and the checks run once per
/// loop or per schedule action, never per step.
class RevolveLoop {
public:
  enum class Phase {
    Registering, // after revolve_begin: revolve_state registers regions
    Forward,     // revolve_forward runs the schedule
    Pending,     // the forward part ended; the reverse part has not begun
    Rebinding,   // after revolve_rebind: revolve_state re-registers regions
    Reverse,     // after revolve_turn: revolve_reverse runs the schedule
  };

  /// Starts a new loop in this object, keeping its snapshot buffers.
  void start(long Steps, int Snapshots) {
    Schedule = RevolveSchedule(Steps, Snapshots);
    Regions.clear();
    Layout.clear();
    StateBytes = 0;
    HeldBytes = 0;
    EndedAtFirsturn = false;
    Stats = RevolveStats();
    Stats.steps = Steps;
    Stats.snapshots = Snapshots;
    State = Phase::Registering;
  }

  void addRegion(void *Data, std::size_t Bytes) {
    if (State == Phase::Rebinding) {
      if (Regions.size() == Layout.size())
        revolveFatal("revolve_state: more state regions than the forward "
                     "sweep registered");
      if (Layout[Regions.size()] != Bytes)
        revolveFatal("revolve_state: a state region's size differs from the "
                     "forward sweep's");
    } else if (State != Phase::Registering) {
      revolveFatal("revolve_state outside registration (after the first "
                   "revolve_forward, or in the reverse sweep without "
                   "revolve_rebind)");
    }
    Regions.push_back({static_cast<unsigned char *>(Data), Bytes});
  }

  /// Fixes the snapshot layout when the forward part starts.
  void freezeLayout() {
    for (const Region &R : Regions) {
      Layout.push_back(R.Bytes);
      StateBytes += R.Bytes;
    }
    State = Phase::Forward;
  }

  void rebind() {
    if (State == Phase::Reverse)
      revolveFatal("revolve_rebind after revolve_turn: the reverse parts of "
                   "two loops are interleaved (a checkpointed loop inside the "
                   "last step of another must be reversed before the outer "
                   "loop's revolve_rebind and revolve_turn)");
    if (State != Phase::Pending && State != Phase::Rebinding)
      revolveFatal("revolve_rebind before the loop's forward part ended");
    Regions.clear();
    State = Phase::Rebinding;
  }

  void beginReverse() {
    if (State == Phase::Rebinding && Regions.size() != Layout.size())
      revolveFatal("revolve_turn: fewer state regions re-registered than the "
                   "forward sweep registered");
    if (State != Phase::Pending && State != Phase::Rebinding)
      revolveFatal("revolve_turn out of order (twice, or before the loop's "
                   "forward part ended)");
    State = Phase::Reverse;
  }

  /// Copies the registered regions into the slot of the current Takeshot.
  void takeshot() {
    unsigned char *To = slotBuffer(Schedule.slot());
    for (const Region &R : Regions) {
      if (R.Bytes != 0)
        std::memcpy(To, R.Data, R.Bytes);
      To += R.Bytes;
    }
    ++Stats.takeshots;
  }

  /// Copies the slot of the current Restore back into the regions.
  void restore() {
    const unsigned char *From =
        Slots[static_cast<std::size_t>(Schedule.slot())].Data.get();
    for (const Region &R : Regions) {
      if (R.Bytes != 0)
        std::memcpy(R.Data, From, R.Bytes);
      From += R.Bytes;
    }
    ++Stats.restores;
  }

  /// Bytes held in snapshots that the schedule still needs.
  std::size_t heldBytes() const { return HeldBytes; }

  /// Brings heldBytes() up to date after an action.
  void updateHeldBytes() {
    HeldBytes = static_cast<std::size_t>(Schedule.slotsInUse()) * StateBytes;
    Stats.snapshotBytesPeak = std::max(Stats.snapshotBytesPeak, HeldBytes);
  }

  Phase State = Phase::Registering;
  RevolveSchedule Schedule{0, 1};
  bool EndedAtFirsturn = false;
  RevolveStats Stats;

private:
  struct Region {
    unsigned char *Data;
    std::size_t Bytes;
  };

  /// One snapshot's storage, allocated when a slot is first used and kept
  /// for the next loop run at the same depth.
  struct SlotBuffer {
    std::unique_ptr<unsigned char[]> Data;
    std::size_t Capacity = 0;
  };

  unsigned char *slotBuffer(int Index) {
    std::size_t I = static_cast<std::size_t>(Index);
    if (I >= Slots.size())
      Slots.resize(I + 1);
    SlotBuffer &Buffer = Slots[I];
    if (Buffer.Capacity < StateBytes) {
      Buffer.Data.reset(new unsigned char[StateBytes]);
      Buffer.Capacity = StateBytes;
    }
    return Buffer.Data.get();
  }

  std::vector<Region> Regions;
  /// The region sizes registered in the forward part, in order.
  std::vector<std::size_t> Layout;
  std::size_t StateBytes = 0;
  std::size_t HeldBytes = 0;
  std::vector<SlotBuffer> Slots;
};

/// The calling thread's stack of loops being driven.
struct RevolveThread {
  /// Loops[0 .. Depth - 1] are active, innermost last; the ones above are
  /// kept so that their snapshot buffers are reused.
  std::vector<std::unique_ptr<RevolveLoop>> Loops;
  std::size_t Depth = 0;
  RevolveStats Last;
  std::size_t SnapshotBytesHeld = 0;
  std::size_t SnapshotBytesPeak = 0;

  RevolveLoop &top(const char *Caller) {
    if (Depth == 0) {
      std::fprintf(stderr, "fluxion: %s with no active loop\n", Caller);
      std::abort();
    }
    return *Loops[Depth - 1];
  }

  /// Brings the bytes held in snapshots, by Loop and by the thread, up to
  /// date after an action of Loop.
  void account(RevolveLoop &Loop) {
    SnapshotBytesHeld -= Loop.heldBytes();
    Loop.updateHeldBytes();
    SnapshotBytesHeld += Loop.heldBytes();
    SnapshotBytesPeak = std::max(SnapshotBytesPeak, SnapshotBytesHeld);
  }
};

inline RevolveThread &revolveThread() {
  static thread_local RevolveThread Thread;
  return Thread;
}

} // namespace detail

/// Starts driving a loop of Steps iterations (none if negative) with at most
/// Snapshots stored states, on top of the calling thread's loops.
inline void revolve_begin(long Steps, int Snapshots) {
  if (Snapshots < 1)
    detail::revolveFatal("revolve_begin: a loop needs at least one snapshot");
  detail::RevolveThread &Thread = detail::revolveThread();
  if (Thread.Depth == Thread.Loops.size())
    Thread.Loops.push_back(std::make_unique<detail::RevolveLoop>());
  Thread.Loops[Thread.Depth++]->start(std::max(Steps, 0L), Snapshots);
}

/// Registers N elements at P as part of the innermost loop's state. The
/// order of registration is the snapshot layout; after revolve_rebind the
/// same sizes must be registered again in the same order.
template <class T> inline void revolve_state(T *P, std::size_t N) {
  static_assert(std::is_trivially_copyable<T>::value,
                "loop state is copied bytewise");
  static_assert(!std::is_const<T>::value, "loop state is restored in place");
  detail::revolveThread()
      .top("revolve_state")
      .addRegion(static_cast<void *>(P), N * sizeof(T));
}

/// Forgets the innermost loop's regions so that its reverse part, which may
/// run in another frame, can register where the state lives now.
inline void revolve_rebind() {
  detail::revolveThread().top("revolve_rebind").rebind();
}

/// Runs the forward part of the innermost loop's schedule up to the next
/// plain steps: returns k > 0 when the caller must run k plain steps, 0 when
/// it must run the last step taped (its reverse comes after revolve_turn),
/// -1 when the loop has no steps.
inline long revolve_forward() {
  detail::RevolveThread &Thread = detail::revolveThread();
  detail::RevolveLoop &Loop = Thread.top("revolve_forward");
  if (Loop.State == detail::RevolveLoop::Phase::Registering)
    Loop.freezeLayout();
  else if (Loop.State != detail::RevolveLoop::Phase::Forward)
    detail::revolveFatal("revolve_forward after the loop's forward part ended");
  using Action = RevolveSchedule::Action;
  for (;;) {
    switch (Loop.Schedule.next()) {
    case Action::Takeshot:
      Loop.takeshot();
      Thread.account(Loop);
      continue;
    case Action::Advance:
      return Loop.Schedule.capo() - Loop.Schedule.oldCapo();
    case Action::Firsturn:
      Loop.EndedAtFirsturn = true;
      ++Loop.Stats.tapedSteps;
      Thread.account(Loop);
      Loop.State = detail::RevolveLoop::Phase::Pending;
      return 0;
    case Action::Terminate:
      Loop.State = detail::RevolveLoop::Phase::Pending;
      return -1;
    case Action::Restore:
    case Action::Youturn:
      break;
    }
    detail::revolveFatal("revolve_forward: the schedule turned back early");
  }
}

/// Starts the reverse part of the innermost loop: true iff its forward part
/// ended with the last step taped, which the caller must now reverse.
inline bool revolve_turn() {
  detail::RevolveLoop &Loop = detail::revolveThread().top("revolve_turn");
  Loop.beginReverse();
  return Loop.EndedAtFirsturn;
}

/// Runs the reverse part of the innermost loop's schedule up to the next
/// steps: returns k > 0 when the caller must run k plain steps, 0 when it
/// must run one step taped and reverse it at once, -1 when every step is
/// reversed (the loop is then finished and popped).
inline long revolve_reverse() {
  detail::RevolveThread &Thread = detail::revolveThread();
  detail::RevolveLoop &Loop = Thread.top("revolve_reverse");
  if (Loop.State != detail::RevolveLoop::Phase::Reverse)
    detail::revolveFatal("revolve_reverse before revolve_turn");
  using Action = RevolveSchedule::Action;
  for (;;) {
    switch (Loop.Schedule.next()) {
    case Action::Restore:
      Loop.restore();
      continue;
    case Action::Takeshot:
      Loop.takeshot();
      Thread.account(Loop);
      continue;
    case Action::Advance:
      return Loop.Schedule.capo() - Loop.Schedule.oldCapo();
    case Action::Youturn:
      ++Loop.Stats.tapedSteps;
      // The turned step's state is no longer needed.
      Thread.account(Loop);
      return 0;
    case Action::Terminate:
      Thread.account(Loop);
      Loop.Stats.advances = Loop.Schedule.advances();
      Thread.Last = Loop.Stats;
      --Thread.Depth;
      return -1;
    case Action::Firsturn:
      break;
    }
    detail::revolveFatal("revolve_reverse: the schedule turned first twice");
  }
}

/// What the most recently finished loop of the calling thread did.
inline RevolveStats revolve_last_stats() {
  return detail::revolveThread().Last;
}

} // namespace fluxion

#endif // FLUXION_REVOLVE_HPP
