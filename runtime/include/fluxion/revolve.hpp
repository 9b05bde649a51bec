// Fluxion runtime: binomial checkpointing of loops ("revolve").
//
// Reversing a loop of l steps by taping every step needs memory for all l
// steps. Binomial checkpointing (A. Griewank and A. Walther, "Algorithm 799:
// revolve", ACM TOMS 26(1), 2000) keeps at most s copies ("snapshots") of the
// loop's state instead, recomputes the states in between from them, and tapes
// one step at a time. Among all schedules that do so, it runs the fewest plain
// forward steps.
//
// RevolveSchedule is the schedule alone, as a sequence of actions.
#ifndef FLUXION_REVOLVE_HPP
#define FLUXION_REVOLVE_HPP

#include <algorithm>
#include <cassert>
#include <climits>
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
  long long FirstAtLeast =
      static_cast<long long>(revolveBetaCount(S, T - 2));
  RevolveCount SecondAtMost = revolveBetaCount(S - 1, T);
  if (SecondAtMost < static_cast<RevolveCount>(N))
    FirstAtLeast = std::max(
        FirstAtLeast, N - static_cast<long long>(SecondAtMost));
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
  RevolveCount AtB = Rounds - detail::revolveBetaCount(S + 1, T - 2);
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
/// Snapshots) plain steps in all, the fewest possible.
///
/// The held states form a stack, bottom (slot 0, state 0) to top, by
/// increasing index. Reversing steps a .. b - 1 from the top state a, the
/// schedule advances to a + m (detail::revolveSplit, with the slots not below
/// a as budget), stores that state above a, reverses steps a + m .. b - 1 the
/// same way, then restores a and reverses a .. a + m - 1.
class RevolveSchedule {
public:
  enum class Action { Advance, Takeshot, Restore, Firsturn, Youturn, Terminate };

  RevolveSchedule(long Steps, int Snapshots)
      : Steps(Steps), Snapshots(Snapshots), Fine(Steps) {
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
    long long Budget =
        static_cast<long long>(Snapshots) - static_cast<long long>(Held.size()) + 1;
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

  long steps() const { return Steps; }
  int snapshots() const { return Snapshots; }
  /// Slots holding a state that is still needed (slots 0 .. slotsInUse() - 1).
  int slotsInUse() const { return static_cast<int>(Held.size()); }

private:
  Action takeshot() {
    assert(Held.size() < static_cast<std::size_t>(Snapshots) &&
           "more snapshots than allowed");
    Held.push_back(Capo);
    Slot = static_cast<int>(Held.size()) - 1;
    return Action::Takeshot;
  }

  Action turn() {
    Action Turn = Fine == Steps ? Action::Firsturn : Action::Youturn;
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

  long Steps;
  int Snapshots;
  /// Steps Fine .. Steps - 1 are reversed.
  long Fine;
  long Capo = 0;
  long OldCapo = 0;
  int Slot = -1;
  long long Advances = 0;
  /// The state index held in each slot in use, slot 0 first.
  std::vector<long> Held;
};

} // namespace fluxion

#endif // FLUXION_REVOLVE_HPP
