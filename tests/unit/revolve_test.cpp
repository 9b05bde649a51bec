// Unit tests of binomial checkpointing (runtime/include/fluxion/revolve.hpp):
// the binomial counts, the optimal cost against a dynamic program over every
// schedule of the recursive form, and every action of many schedules against
// a simulation of the states they hold.

#include <fluxion/revolve.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
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
/// the state stored in each slot, and the next step to reverse.
::testing::AssertionResult replay(long L, int S, ReplayCounts *Out = nullptr) {
  RevolveSchedule Schedule(L, S);
  std::vector<long> Stored(S, -1);
  long Current = 0;
  long NextTurn = L - 1;
  ReplayCounts Counts;
  // Between two turns there are at most a restore and, per snapshot, an
  // advance and a takeshot.
  const long long Limit = (L + 1) * (2LL * std::min<long>(S, L + 1) + 4) + 8;
  auto Fail = [&](const char *What) {
    return ::testing::AssertionFailure()
           << "l = " << L << ", s = " << S << ", action " << Counts.Actions
           << ": " << What << " (capo " << Schedule.capo() << ", old capo "
           << Schedule.oldCapo() << ", slot " << Schedule.slot()
           << ", current " << Current << ", next turn " << NextTurn << ")";
  };
  auto LiveSlots = [&] {
    return static_cast<int>(std::count_if(Stored.begin(), Stored.end(), [&](long X) {
      return X >= 0 && X <= NextTurn;
    }));
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
  } Cases[] = {{1000, 1}, {1000, 2}, {5000, 3},    {20000, 7},
               {100000, 20}, {1000000, 50}, {1000003, 9}};
  for (const auto &Case : Cases) {
    ReplayCounts Counts;
    ASSERT_TRUE(replay(Case.L, Case.S, &Counts));
    EXPECT_EQ(Counts.Restores, Case.L - 1); // every turn but the last
    EXPECT_LE(Counts.SlotsPeak, Case.S);
  }
}

} // namespace
