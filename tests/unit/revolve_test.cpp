// Unit tests of binomial checkpointing (runtime/include/fluxion/revolve.hpp):
// the binomial counts, the optimal cost against a dynamic program over every
// schedule of the recursive form, every action of many schedules against a
// simulation of the states they hold, and the loop driver end to end on a
// toy time-stepping loop, against the gradient obtained by storing every
// state.

#include <fluxion/revolve.hpp>
#include <fluxion/tape.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <limits>
#include <thread>
#include <vector>

namespace {

using fluxion::RevolveSchedule;
using Action = RevolveSchedule::Action;

//===----------------------------------------------------------------------===//
// beta and the optimal cost
//===----------------------------------------------------------------------===//

TEST(RevolveBeta, SmallValues) {
  EXPECT_EQ(fluxion::revolveBeta(0, 0), 1);
  EXPECT_EQ(fluxion::revolveBeta(0, 17), 1);
  EXPECT_EQ(fluxion::revolveBeta(17, 0), 1);
  EXPECT_EQ(fluxion::revolveBeta(1, 9), 10);
  EXPECT_EQ(fluxion::revolveBeta(2, 2), 6);
  EXPECT_EQ(fluxion::revolveBeta(3, 4), 35);
  EXPECT_EQ(fluxion::revolveBeta(4, 3), 35);
  EXPECT_EQ(fluxion::revolveBeta(5, 5), 252);
  EXPECT_EQ(fluxion::revolveBeta(-1, 3), 0);
  EXPECT_EQ(fluxion::revolveBeta(3, -1), 0);
}

TEST(RevolveBeta, MatchesPascalsTriangleAndSaturates) {
  // beta(s, t) = beta(s - 1, t) + beta(s, t - 1), with the sum saturating:
  // a saturated term means the true sum does not fit either.
  constexpr int N = 90;
  std::vector<std::vector<long long>> Table(N, std::vector<long long>(N, 1));
  bool SawSaturation = false;
  for (int S = 1; S < N; ++S) {
    for (int T = 1; T < N; ++T) {
      long long A = Table[S - 1][T], B = Table[S][T - 1];
      Table[S][T] = A > LLONG_MAX - B ? LLONG_MAX : A + B;
      SawSaturation |= Table[S][T] == LLONG_MAX;
      ASSERT_EQ(fluxion::revolveBeta(S, T), Table[S][T]) << S << ", " << T;
    }
  }
  EXPECT_TRUE(SawSaturation);
  EXPECT_EQ(fluxion::revolveBeta(30, 30), 118264581564861424LL);
  EXPECT_EQ(fluxion::revolveBeta(40, 40), LLONG_MAX);
  EXPECT_EQ(fluxion::revolveBeta(1, LONG_MAX - 1), LONG_MAX);
  EXPECT_EQ(fluxion::revolveBeta(2, LONG_MAX / 2), LLONG_MAX);
  EXPECT_EQ(fluxion::revolveBeta(LONG_MAX, LONG_MAX), LLONG_MAX);
}

/// The fewest plain steps over schedules of the recursive form, by dynamic
/// programming: reversing L steps from a stored state with S snapshots,
/// advance M, reverse the last L - M with S - 1 snapshots, restore, reverse
/// the first M with S.
std::vector<std::vector<long long>> minForwardStepsTable(int MaxL, int MaxS) {
  const long long Infinity = LLONG_MAX / 4;
  std::vector<std::vector<long long>> P(
      MaxS + 1, std::vector<long long>(MaxL + 1, Infinity));
  for (int S = 0; S <= MaxS; ++S) {
    P[S][0] = 0;
    P[S][1] = 0; // the step's input is at hand: no snapshot needed
    if (S == 0)
      continue;
    for (int L = 2; L <= MaxL; ++L) {
      long long Best = Infinity;
      for (int M = 1; M < L; ++M)
        Best = std::min(Best, M + P[S - 1][L - M] + P[S][M]);
      P[S][L] = Best;
    }
  }
  return P;
}

TEST(RevolveMinForwardSteps, HandValues) {
  EXPECT_EQ(fluxion::revolveMinForwardSteps(0, 1), 0);
  EXPECT_EQ(fluxion::revolveMinForwardSteps(1, 1), 0);
  EXPECT_EQ(fluxion::revolveMinForwardSteps(2, 1), 1);
  EXPECT_EQ(fluxion::revolveMinForwardSteps(3, 1), 3);
  EXPECT_EQ(fluxion::revolveMinForwardSteps(10, 1), 45);
  // Enough snapshots for every state: each step runs once before its turn.
  EXPECT_EQ(fluxion::revolveMinForwardSteps(10, 9), 9);
  EXPECT_EQ(fluxion::revolveMinForwardSteps(10, 1000), 9);
  // l = beta(s, t): t l - beta(s + 1, t - 1); beta(3, 3) = 20.
  EXPECT_EQ(fluxion::revolveMinForwardSteps(20, 3), 3 * 20 - 15);
  EXPECT_EQ(fluxion::revolveMinForwardSteps(5, 0), LLONG_MAX);
}

TEST(RevolveMinForwardSteps, MatchesDynamicProgramming) {
  constexpr int MaxL = 300, MaxS = 12;
  auto P = minForwardStepsTable(MaxL, MaxS);
  for (int S = 1; S <= MaxS; ++S)
    for (int L = 0; L <= MaxL; ++L)
      ASSERT_EQ(fluxion::revolveMinForwardSteps(L, S), P[S][L])
          << "l = " << L << ", s = " << S;
}

TEST(RevolveMinForwardSteps, LargeCountsDoNotOverflow) {
  static_assert(sizeof(long) == 8, "the values below need a 64-bit long");
  // One snapshot: l (l - 1) / 2, although t * l = (l - 1) l does not fit.
  const long L = 4000000000L;
  EXPECT_EQ(fluxion::revolveMinForwardSteps(L, 1), L / 2 * (L - 1));
  EXPECT_EQ(fluxion::revolveMinForwardSteps(LONG_MAX, 1), LLONG_MAX);
  EXPECT_EQ(fluxion::revolveMinForwardSteps(LONG_MAX, 2), LLONG_MAX);
  // Many snapshots: t = 2 here, so the cost is 2 l - beta(s + 1, 1).
  EXPECT_EQ(fluxion::revolveMinForwardSteps(1000000, 2000), 2 * 1000000 - 2002);
  EXPECT_EQ(fluxion::revolveMinForwardSteps(LONG_MAX, INT_MAX),
            LLONG_MAX); // t = 3: still does not fit
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

struct ReplayCounts {
  long long Advances = 0;
  long long Takeshots = 0;
  long long Restores = 0;
  long long Actions = 0;
  /// The most slots holding a state still needed, at once.
  int SlotsPeak = 0;
};

/// Runs the schedule of L steps with S snapshots and checks every action
/// against the states it holds: the current state (unknown after a turn),
/// the state stored in each slot, and the next step to reverse. Checks the
/// total of plain steps against the optimum, and each step's count against
/// the repetition number.
::testing::AssertionResult replay(long L, int S, ReplayCounts *Out = nullptr) {
  RevolveSchedule Schedule(L, S);
  std::vector<long> Stored(S, -1);
  long Current = 0;
  long NextTurn = L - 1;
  // How often each step has run plainly: at most the repetition number.
  std::vector<int> Runs(static_cast<std::size_t>(L), 0);
  const long long MaxRuns = fluxion::detail::revolveRepetitions(L, S);
  ReplayCounts Counts;
  // Between two turns there are at most a restore and, per snapshot, an
  // advance and a takeshot.
  const long long Limit = (L + 1) * (2LL * std::min<long>(S, L + 1) + 4) + 8;
  auto Fail = [&](const char *What) {
    return ::testing::AssertionFailure()
           << "l = " << L << ", s = " << S << ", action " << Counts.Actions
           << ": " << What << " (capo " << Schedule.capo() << ", old capo "
           << Schedule.oldCapo() << ", slot " << Schedule.slot() << ", current "
           << Current << ", next turn " << NextTurn << ")";
  };
  auto LiveSlots = [&] {
    return static_cast<int>(
        std::count_if(Stored.begin(), Stored.end(),
                      [&](long X) { return X >= 0 && X <= NextTurn; }));
  };
  auto ValidSlot = [&] { return Schedule.slot() >= 0 && Schedule.slot() < S; };

  for (;; ++Counts.Actions) {
    if (Counts.Actions > Limit)
      return Fail("too many actions");
    Action A = Schedule.next();
    if (Counts.Actions == 0 && L >= 1 &&
        (A != Action::Takeshot || Schedule.capo() != 0 || Schedule.slot() != 0))
      return Fail("the first action is not a takeshot of state 0 into slot 0");
    switch (A) {
    case Action::Takeshot:
      if (!ValidSlot())
        return Fail("takeshot into a slot out of range");
      if (Current < 0 || Schedule.capo() != Current)
        return Fail("takeshot of a state that is not current");
      Stored[Schedule.slot()] = Current;
      ++Counts.Takeshots;
      Counts.SlotsPeak = std::max(Counts.SlotsPeak, LiveSlots());
      continue;
    case Action::Restore:
      if (!ValidSlot())
        return Fail("restore from a slot out of range");
      if (Stored[Schedule.slot()] < 0)
        return Fail("restore from an empty slot");
      if (Stored[Schedule.slot()] > NextTurn)
        return Fail("restore of a state that no step left needs");
      if (Schedule.capo() != Stored[Schedule.slot()])
        return Fail("restore reports another state than the slot holds");
      Current = Stored[Schedule.slot()];
      ++Counts.Restores;
      continue;
    case Action::Advance:
      if (Current < 0 || Schedule.oldCapo() != Current)
        return Fail("advance from a state that is not current");
      if (Schedule.capo() <= Schedule.oldCapo())
        return Fail("advance by no step");
      if (Schedule.capo() > NextTurn)
        return Fail("advance past the next step to reverse");
      Counts.Advances += Schedule.capo() - Schedule.oldCapo();
      for (long Step = Schedule.oldCapo(); Step < Schedule.capo(); ++Step)
        if (++Runs[static_cast<std::size_t>(Step)] > MaxRuns)
          return Fail("a step runs more often than the repetition number");
      Current = Schedule.capo();
      continue;
    case Action::Firsturn:
    case Action::Youturn:
      if ((A == Action::Firsturn) != (NextTurn == L - 1))
        return Fail("firsturn is not exactly the first turn");
      if (NextTurn < 0)
        return Fail("turn after every step was reversed");
      if (Current != NextTurn || Schedule.capo() != Current)
        return Fail("turn of a step whose input is not current");
      --NextTurn;
      Current = -1;
      continue;
    case Action::Terminate:
      break;
    }
    break;
  }
  if (NextTurn != -1)
    return Fail("terminated before every step was reversed");
  if (Schedule.next() != Action::Terminate)
    return Fail("an action after terminate");
  if (Schedule.advances() != Counts.Advances)
    return Fail("advances() differs from the steps advanced");
  if (Counts.Advances != fluxion::revolveMinForwardSteps(L, S))
    return Fail("not the fewest plain steps")
           << ": " << Counts.Advances << " instead of "
           << fluxion::revolveMinForwardSteps(L, S);
  if (Out)
    *Out = Counts;
  return ::testing::AssertionSuccess();
}

TEST(RevolveSchedule, NoStepsTerminatesAtOnce) {
  RevolveSchedule Schedule(0, 3);
  EXPECT_EQ(Schedule.next(), Action::Terminate);
  EXPECT_EQ(Schedule.next(), Action::Terminate);
  EXPECT_EQ(Schedule.advances(), 0);
  EXPECT_EQ(Schedule.slotsInUse(), 0);
}

TEST(RevolveSchedule, OneStep) {
  RevolveSchedule Schedule(1, 1);
  EXPECT_EQ(Schedule.next(), Action::Takeshot);
  EXPECT_EQ(Schedule.slot(), 0);
  EXPECT_EQ(Schedule.next(), Action::Firsturn);
  EXPECT_EQ(Schedule.capo(), 0);
  EXPECT_EQ(Schedule.next(), Action::Terminate);
}

TEST(RevolveSchedule, ThreeStepsOneSnapshotInFull) {
  // The only optimal schedule: every reversal recomputes from state 0.
  RevolveSchedule Schedule(3, 1);
  auto Expect = [&](Action A, long Capo) {
    EXPECT_EQ(Schedule.next(), A);
    EXPECT_EQ(Schedule.capo(), Capo);
  };
  Expect(Action::Takeshot, 0);
  Expect(Action::Advance, 2);
  EXPECT_EQ(Schedule.oldCapo(), 0);
  Expect(Action::Firsturn, 2);
  Expect(Action::Restore, 0);
  Expect(Action::Advance, 1);
  Expect(Action::Youturn, 1);
  Expect(Action::Restore, 0);
  Expect(Action::Youturn, 0);
  EXPECT_EQ(Schedule.next(), Action::Terminate);
  EXPECT_EQ(Schedule.advances(), 3);
}

TEST(RevolveSchedule, EveryLengthUpTo300WithUpTo12Snapshots) {
  for (int S = 1; S <= 12; ++S)
    for (long L = 0; L <= 300; ++L)
      ASSERT_TRUE(replay(L, S));
}

TEST(RevolveSchedule, MoreSnapshotsThanSteps) {
  ReplayCounts Counts;
  ASSERT_TRUE(replay(50, 1000, &Counts));
  EXPECT_EQ(Counts.Advances, 49);
  EXPECT_EQ(Counts.SlotsPeak, 49); // every state but the last one's input
}

TEST(RevolveSchedule, LongLoops) {
  const struct {
    long L;
    int S;
  } Cases[] = {{1000, 1},    {1000, 2},     {5000, 3},   {20000, 7},
               {100000, 20}, {1000000, 50}, {1000003, 9}};
  for (const auto &Case : Cases) {
    ReplayCounts Counts;
    ASSERT_TRUE(replay(Case.L, Case.S, &Counts));
    EXPECT_EQ(Counts.Restores, Case.L - 1); // every turn but the last
    EXPECT_LE(Counts.SlotsPeak, Case.S);
  }
}

//===----------------------------------------------------------------------===//
// The loop driver
//===----------------------------------------------------------------------===//

/// The toy loop: a state of N doubles X and a step counter K, and a step
/// that couples neighbours nonlinearly and depends on K (so that restoring
/// the wrong counter changes the result).
struct Toy {
  static constexpr double H = 0.05;

  static void step(double *X, std::size_t N, long &K) {
    const double First = X[0];
    for (std::size_t I = 0; I < N; ++I) {
      double Next = I + 1 < N ? X[I + 1] : First;
      X[I] += H * (std::sin(Next) - 0.1 * X[I] * X[I] +
                   0.01 * std::cos(0.3 * static_cast<double>(K)));
    }
    ++K;
  }

  /// Replaces Bar, the adjoint of the step's output, by the adjoint of its
  /// input X.
  static void adjoint(const double *X, std::size_t N, double *Bar) {
    const double Last = Bar[N - 1];
    std::vector<double> In(N);
    for (std::size_t I = 0; I < N; ++I) {
      double FromPrevious = I > 0 ? Bar[I - 1] : Last;
      In[I] = Bar[I] * (1 - 0.2 * H * X[I]) + FromPrevious * H * std::cos(X[I]);
    }
    std::copy(In.begin(), In.end(), Bar);
  }

  static std::vector<double> input(std::size_t N) {
    std::vector<double> X(N);
    for (std::size_t I = 0; I < N; ++I)
      X[I] = 0.3 + 0.7 * std::sin(1.7 * static_cast<double>(I) + 0.2);
    return X;
  }
};

struct Gradient {
  std::vector<double> Output; // x_l
  std::vector<double> Input;  // d(sum x_l^2) / d x_0
};

/// The reference: every state stored, then the adjoints in reverse.
Gradient storeAllGradient(std::vector<double> X, long Steps) {
  const std::size_t N = X.size();
  std::vector<std::vector<double>> States;
  long K = 0;
  for (long I = 0; I < Steps; ++I) {
    States.push_back(X);
    Toy::step(X.data(), N, K);
  }
  Gradient G;
  G.Output = X;
  G.Input.resize(N);
  for (std::size_t I = 0; I < N; ++I)
    G.Input[I] = 2 * X[I];
  for (long I = Steps; I-- > 0;)
    Toy::adjoint(States[I].data(), N, G.Input.data());
  return G;
}

/// The loop as generated code differentiates it with the driver. A taped
/// step records its input on the tapes; its reverse pops it back (as
/// generated code restores what a step overwrote) and applies the adjoint.
struct DrivenToy {
  std::size_t N;
  long long PlainSteps = 0;
  long long TapedSteps = 0;
  /// The step the next reversal must be; checked at every reversal.
  long NextReversed = 0;
  bool OutOfOrder = false;

  void plainStep(double *X, long &K) {
    Toy::step(X, N, K);
    ++PlainSteps;
  }

  void tapedStep(double *X, long &K) {
    fluxion::tape<double>().push_array(X, N);
    fluxion::tape<long>().push(K);
    Toy::step(X, N, K);
    ++TapedSteps;
  }

  void reverseTapedStep(double *X, long &K, double *Bar) {
    K = fluxion::tape<long>().pop();
    fluxion::tape<double>().pop_array(X, N);
    OutOfOrder |= K != NextReversed--;
    Toy::adjoint(X, N, Bar);
  }

  /// Returns the last revolve_forward result.
  long forward(double *X, long &K, long Steps, int Snapshots) {
    NextReversed = Steps - 1;
    fluxion::revolve_begin(Steps, Snapshots);
    fluxion::revolve_state(&K, 1);
    fluxion::revolve_state(X, N);
    long Run = fluxion::revolve_forward();
    while (Run > 0) {
      for (long I = 0; I < Run; ++I)
        plainStep(X, K);
      Run = fluxion::revolve_forward();
    }
    if (Run == 0)
      tapedStep(X, K);
    return Run;
  }

  void reverse(double *X, long &K, double *Bar) {
    fluxion::revolve_rebind();
    fluxion::revolve_state(&K, 1);
    fluxion::revolve_state(X, N);
    if (fluxion::revolve_turn())
      reverseTapedStep(X, K, Bar);
    long Run = fluxion::revolve_reverse();
    while (Run >= 0) {
      if (Run > 0) {
        for (long I = 0; I < Run; ++I)
          plainStep(X, K);
      } else {
        tapedStep(X, K);
        reverseTapedStep(X, K, Bar);
      }
      Run = fluxion::revolve_reverse();
    }
  }
};

bool tapesEmpty() {
  return fluxion::tape<double>().empty() && fluxion::tape<long>().empty();
}

std::size_t activeLoops() { return fluxion::detail::revolveThread().Depth; }

/// Differentiates the toy loop with the driver; MoveState moves the state
/// to new storage between the forward and the reverse sweep.
Gradient drivenGradient(std::vector<double> X, long Steps, int Snapshots,
                        DrivenToy &Driven, bool MoveState = false) {
  long K = 0;
  long Run = Driven.forward(X.data(), K, Steps, Snapshots);
  EXPECT_EQ(Run, Steps > 0 ? 0 : -1);
  Gradient G;
  G.Output = X;
  G.Input.resize(X.size());
  for (std::size_t I = 0; I < X.size(); ++I)
    G.Input[I] = 2 * X[I];
  if (!MoveState) {
    Driven.reverse(X.data(), K, G.Input.data());
    return G;
  }
  // The reverse sweep finds the state elsewhere. The old storage stays
  // allocated but poisoned: a snapshot taken from it or restored into it
  // would change the gradient.
  std::vector<double> Moved = X;
  long MovedK = K;
  std::fill(X.begin(), X.end(), std::numeric_limits<double>::quiet_NaN());
  K = LONG_MIN;
  Driven.reverse(Moved.data(), MovedK, G.Input.data());
  EXPECT_EQ(MovedK, 0);
  return G;
}

void expectDrivenMatchesStoreAll(long Steps, int Snapshots, std::size_t N,
                                 bool MoveState) {
  SCOPED_TRACE(::testing::Message()
               << "l = " << Steps << ", s = " << Snapshots << ", n = " << N);
  const std::vector<double> X0 = Toy::input(N);
  Gradient Reference = storeAllGradient(X0, Steps);
  DrivenToy Driven{N};
  Gradient G = drivenGradient(X0, Steps, Snapshots, Driven, MoveState);
  // Recomputation repeats the same operations: the results are identical.
  EXPECT_EQ(G.Output, Reference.Output);
  EXPECT_EQ(G.Input, Reference.Input);
  EXPECT_FALSE(Driven.OutOfOrder);
  EXPECT_EQ(Driven.NextReversed, -1);
  EXPECT_EQ(Driven.PlainSteps,
            fluxion::revolveMinForwardSteps(Steps, Snapshots));
  EXPECT_EQ(Driven.TapedSteps, Steps);
  EXPECT_TRUE(tapesEmpty());
  EXPECT_EQ(activeLoops(), 0u);

  ReplayCounts Counts;
  ASSERT_TRUE(replay(Steps, Snapshots, &Counts));
  fluxion::RevolveStats Stats = fluxion::revolve_last_stats();
  EXPECT_EQ(Stats.steps, Steps);
  EXPECT_EQ(Stats.snapshots, Snapshots);
  EXPECT_EQ(Stats.advances, Driven.PlainSteps);
  EXPECT_EQ(Stats.tapedSteps, Steps);
  EXPECT_EQ(Stats.takeshots, Counts.Takeshots);
  EXPECT_EQ(Stats.restores, Counts.Restores);
  EXPECT_EQ(Stats.snapshotBytesPeak,
            static_cast<std::size_t>(Counts.SlotsPeak) *
                (sizeof(long) + N * sizeof(double)));
}

TEST(RevolveDriver, GradientMatchesStoringEveryState) {
  const long StepCounts[] = {0, 1, 2, 3, 4, 5, 7, 10, 17, 31, 64, 100, 257};
  const int SnapshotCounts[] = {1, 2, 3, 4, 8, 300};
  for (long Steps : StepCounts)
    for (int Snapshots : SnapshotCounts)
      expectDrivenMatchesStoreAll(Steps, Snapshots, 5, /*MoveState=*/false);
  expectDrivenMatchesStoreAll(1000, 6, 33, false);
  expectDrivenMatchesStoreAll(40, 3, 1, false);
}

TEST(RevolveDriver, RebindFindsTheStateInNewStorage) {
  for (long Steps : {1L, 2L, 9L, 50L})
    for (int Snapshots : {1, 3, 10})
      expectDrivenMatchesStoreAll(Steps, Snapshots, 4, /*MoveState=*/true);
}

TEST(RevolveDriver, NegativeStepCountIsAnEmptyLoop) {
  fluxion::revolve_begin(-4, 2);
  long K = 7;
  fluxion::revolve_state(&K, 1);
  EXPECT_EQ(fluxion::revolve_forward(), -1);
  EXPECT_FALSE(fluxion::revolve_turn());
  EXPECT_EQ(fluxion::revolve_reverse(), -1);
  EXPECT_EQ(K, 7);
  EXPECT_EQ(activeLoops(), 0u);
  fluxion::RevolveStats Stats = fluxion::revolve_last_stats();
  EXPECT_EQ(Stats.steps, 0);
  EXPECT_EQ(Stats.takeshots, 0);
  EXPECT_EQ(Stats.tapedSteps, 0);
  EXPECT_EQ(Stats.snapshotBytesPeak, 0u);
}

TEST(RevolveDriver, LoopsInSequenceAreReversedInTurn) {
  // Two driven loops one after the other equal one loop of both lengths.
  const std::size_t N = 6;
  const long First = 23, Second = 14;
  const std::vector<double> X0 = Toy::input(N);
  Gradient Reference = storeAllGradient(X0, First + Second);

  std::vector<double> X = X0;
  long K = 0;
  DrivenToy A{N}, B{N};
  A.forward(X.data(), K, First, 3);
  B.forward(X.data(), K, Second, 2);
  B.NextReversed += First; // B's steps follow A's
  EXPECT_EQ(X, Reference.Output);
  EXPECT_EQ(activeLoops(), 2u);
  std::vector<double> Bar(N);
  for (std::size_t I = 0; I < N; ++I)
    Bar[I] = 2 * X[I];
  B.reverse(X.data(), K, Bar.data());
  EXPECT_EQ(fluxion::revolve_last_stats().steps, Second);
  A.reverse(X.data(), K, Bar.data());
  EXPECT_EQ(fluxion::revolve_last_stats().steps, First);
  EXPECT_EQ(Bar, Reference.Input);
  EXPECT_FALSE(A.OutOfOrder || B.OutOfOrder);
  EXPECT_TRUE(tapesEmpty());
  EXPECT_EQ(activeLoops(), 0u);
}

/// Loops of loops: a step at level D > 0 is a driven loop of Sizes[D - 1]
/// steps at level D - 1, and a step at level 0 is Toy::step. Every level's
/// loop state is the same X and K.
struct NestedToy {
  std::size_t N;
  std::vector<long> Sizes;
  std::vector<int> Snapshots;
  /// Each level's loop reverses its last step before its own revolve_turn
  /// (possible since it remembers how its forward part ended); with
  /// TurnFirst, the outermost loop calls revolve_turn first, as a single
  /// loop does, which interleaves it with the loop inside its last step.
  bool TurnFirst = false;
  long NextReversed = 0;
  bool OutOfOrder = false;

  void plain(int Level, double *X, long &K) {
    if (Level == 0)
      return Toy::step(X, N, K);
    for (long I = 0; I < Sizes[Level - 1]; ++I)
      plain(Level - 1, X, K);
  }

  void tapedForward(int Level, double *X, long &K) {
    if (Level == 0) {
      fluxion::tape<double>().push_array(X, N);
      fluxion::tape<long>().push(K);
      return Toy::step(X, N, K);
    }
    fluxion::revolve_begin(Sizes[Level - 1], Snapshots[Level - 1]);
    fluxion::revolve_state(&K, 1);
    fluxion::revolve_state(X, N);
    long Run = fluxion::revolve_forward();
    while (Run > 0) {
      for (long I = 0; I < Run; ++I)
        plain(Level - 1, X, K);
      Run = fluxion::revolve_forward();
    }
    if (Run == 0)
      tapedForward(Level - 1, X, K);
    fluxion::tape<long>().push(Run);
  }

  void tapedReverse(int Level, double *X, long &K, double *Bar) {
    if (Level == 0) {
      K = fluxion::tape<long>().pop();
      fluxion::tape<double>().pop_array(X, N);
      OutOfOrder |= K != NextReversed--;
      return Toy::adjoint(X, N, Bar);
    }
    long Run = fluxion::tape<long>().pop();
    const bool Outermost = Level == static_cast<int>(Sizes.size());
    if (Run == 0 && !(TurnFirst && Outermost))
      tapedReverse(Level - 1, X, K, Bar);
    fluxion::revolve_rebind();
    fluxion::revolve_state(&K, 1);
    fluxion::revolve_state(X, N);
    bool Turned = fluxion::revolve_turn();
    EXPECT_EQ(Turned, Run == 0);
    if (Turned && TurnFirst && Outermost)
      tapedReverse(Level - 1, X, K, Bar);
    Run = fluxion::revolve_reverse();
    while (Run >= 0) {
      if (Run > 0) {
        for (long I = 0; I < Run; ++I)
          plain(Level - 1, X, K);
      } else {
        tapedForward(Level - 1, X, K);
        tapedReverse(Level - 1, X, K, Bar);
      }
      Run = fluxion::revolve_reverse();
    }
  }

  long totalSteps() const {
    long Total = 1;
    for (long Size : Sizes)
      Total *= Size;
    return Total;
  }

  Gradient gradient(std::vector<double> X) {
    long K = 0;
    NextReversed = totalSteps() - 1;
    const int Top = static_cast<int>(Sizes.size());
    tapedForward(Top, X.data(), K);
    Gradient G;
    G.Output = X;
    G.Input.resize(N);
    for (std::size_t I = 0; I < N; ++I)
      G.Input[I] = 2 * X[I];
    tapedReverse(Top, X.data(), K, G.Input.data());
    return G;
  }
};

TEST(RevolveDriver, LoopsInsideTapedStepsOfOtherLoops) {
  const struct {
    std::vector<long> Sizes;
    std::vector<int> Snapshots;
  } Cases[] = {
      {{5, 7}, {2, 3}},       {{7, 5, 4}, {2, 3, 1}},
      {{1, 1, 1}, {1, 1, 1}}, {{3, 0, 2}, {2, 2, 2}},
      {{2, 9}, {9, 1}},       {{4, 3, 2, 3}, {1, 2, 3, 2}},
  };
  const std::size_t N = 3;
  for (const auto &Case : Cases) {
    NestedToy Nest{N, Case.Sizes, Case.Snapshots};
    SCOPED_TRACE(::testing::Message() << Nest.Sizes.size() << " levels, "
                                      << Nest.totalSteps() << " steps");
    const std::vector<double> X0 = Toy::input(N);
    Gradient Reference = storeAllGradient(X0, Nest.totalSteps());
    Gradient G = Nest.gradient(X0);
    EXPECT_EQ(G.Output, Reference.Output);
    EXPECT_EQ(G.Input, Reference.Input);
    EXPECT_FALSE(Nest.OutOfOrder);
    EXPECT_EQ(Nest.NextReversed, -1);
    EXPECT_TRUE(tapesEmpty());
    EXPECT_EQ(activeLoops(), 0u);
    // The outermost loop finishes last.
    EXPECT_EQ(fluxion::revolve_last_stats().steps, Case.Sizes.back());
  }
}

TEST(RevolveDriver, ThreadsHaveTheirOwnLoops) {
  const std::size_t N = 4;
  const std::vector<double> X0 = Toy::input(N);
  const Gradient Reference[2] = {storeAllGradient(X0, 300),
                                 storeAllGradient(X0, 77)};
  Gradient Results[2];
  std::size_t LoopsLeft[2] = {1, 1};
  auto Worker = [&](int Id) {
    DrivenToy Driven{N};
    for (int Round = 0; Round < 5; ++Round)
      Results[Id] =
          drivenGradient(X0, Id == 0 ? 300 : 77, Id == 0 ? 4 : 2, Driven);
    LoopsLeft[Id] = activeLoops();
  };
  // A loop left active on this thread must not be seen by the others.
  fluxion::revolve_begin(3, 1);
  std::thread A(Worker, 0), B(Worker, 1);
  A.join();
  B.join();
  EXPECT_EQ(activeLoops(), 1u);
  EXPECT_EQ(fluxion::revolve_forward(), 2);
  for (int Id = 0; Id < 2; ++Id) {
    EXPECT_EQ(Results[Id].Input, Reference[Id].Input);
    EXPECT_EQ(LoopsLeft[Id], 0u);
  }
  // Finish the loop on this thread.
  EXPECT_EQ(fluxion::revolve_forward(), 0);
  EXPECT_TRUE(fluxion::revolve_turn());
  long Run;
  while ((Run = fluxion::revolve_reverse()) >= 0) {
  }
  EXPECT_EQ(activeLoops(), 0u);
}

//===----------------------------------------------------------------------===//
// Misuse is reported
//===----------------------------------------------------------------------===//

TEST(RevolveDriverDeathTest, CallWithoutALoop) {
  EXPECT_DEATH(fluxion::revolve_forward(),
               "revolve_forward with no active loop");
}

TEST(RevolveDriverDeathTest, RebindWithAnotherLayout) {
  auto Run = [] {
    double X[3] = {1, 2, 3};
    long K = 0;
    fluxion::revolve_begin(4, 2);
    fluxion::revolve_state(&K, 1);
    fluxion::revolve_state(X, 3);
    while (fluxion::revolve_forward() > 0) {
    }
    fluxion::revolve_rebind();
    fluxion::revolve_state(X, 3);
  };
  EXPECT_DEATH(Run(), "size differs");
}

TEST(RevolveDriverDeathTest, RebindWithFewerRegions) {
  auto Run = [] {
    double X[3] = {1, 2, 3};
    long K = 0;
    fluxion::revolve_begin(4, 2);
    fluxion::revolve_state(&K, 1);
    fluxion::revolve_state(X, 3);
    while (fluxion::revolve_forward() > 0) {
    }
    fluxion::revolve_rebind();
    fluxion::revolve_state(&K, 1);
    fluxion::revolve_turn();
  };
  EXPECT_DEATH(Run(), "fewer state regions");
}

TEST(RevolveDriverDeathTest, RegisterAfterTheForwardPartBegan) {
  auto Run = [] {
    long K = 0;
    fluxion::revolve_begin(4, 2);
    fluxion::revolve_forward();
    fluxion::revolve_state(&K, 1);
  };
  EXPECT_DEATH(Run(), "outside registration");
}

TEST(RevolveDriverDeathTest, ReverseBeforeTurn) {
  auto Run = [] {
    fluxion::revolve_begin(1, 1);
    fluxion::revolve_forward();
    fluxion::revolve_reverse();
  };
  EXPECT_DEATH(Run(), "before revolve_turn");
}

TEST(RevolveDriverDeathTest, ZeroSnapshots) {
  EXPECT_DEATH(fluxion::revolve_begin(4, 0), "at least one snapshot");
}

TEST(RevolveDriverDeathTest, InterleavedReverseParts) {
  // A loop inside the last step of another, with the outer loop's
  // revolve_turn called before that step is reversed: the runtime cannot
  // tell this from two loops in sequence, but it reports it rather than
  // restoring the wrong state.
  auto Run = [] {
    NestedToy Nest{2, {3, 4}, {2, 2}};
    Nest.TurnFirst = true;
    Nest.gradient(Toy::input(2));
  };
  EXPECT_DEATH(Run(), "revolve_rebind after revolve_turn");
}

} // namespace
