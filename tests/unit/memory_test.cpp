// Unit tests of memory accounting across the tapes, the undo log and the
// revolve snapshots (runtime/include/fluxion/memory.hpp).

#include <fluxion/memory.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <thread>

namespace {

/// A tape element type no other test uses, so that its tape is created
/// inside the test.
struct Record {
  double Values[3];
};

/// Every peak starts from what is held now, which should be nothing.
void resetAndExpectEmpty() {
  fluxion::reset_memory_peaks();
  fluxion::MemoryStats Stats = fluxion::memory_stats();
  ASSERT_EQ(Stats.tapeBytesPeak, 0u) << "a tape was left non-empty";
  ASSERT_EQ(Stats.checkpointBytesPeak, 0u);
  ASSERT_EQ(Stats.snapshotBytesPeak, 0u);
}

TEST(MemoryStats, TapePeaksGrowWithPushesAndReset) {
  resetAndExpectEmpty();
  auto &Doubles = fluxion::tape<double>();
  auto &Ints = fluxion::tape<int>();
  for (int I = 0; I < 5000; ++I)
    Doubles.push(I);
  for (int I = 0; I < 300; ++I)
    Ints.push(I);
  const std::size_t High = 5000 * sizeof(double) + 300 * sizeof(int);
  EXPECT_EQ(fluxion::memory_stats().tapeBytesPeak, High);

  // Popping keeps the peak; pushing less than was popped does not raise it.
  for (int I = 0; I < 4000; ++I)
    Doubles.pop();
  for (int I = 0; I < 1000; ++I)
    Doubles.push(I);
  EXPECT_EQ(fluxion::memory_stats().tapeBytesPeak, High);

  // A tape type first used now joins the sum.
  auto &Records = fluxion::tape<Record>();
  for (int I = 0; I < 10; ++I)
    Records.push(Record{{1.0 * I, 2, 3}});
  EXPECT_EQ(fluxion::memory_stats().tapeBytesPeak, High + 10 * sizeof(Record));

  // A reset lowers the peaks to the sizes now.
  fluxion::reset_memory_peaks();
  const std::size_t Now =
      2000 * sizeof(double) + 300 * sizeof(int) + 10 * sizeof(Record);
  EXPECT_EQ(fluxion::memory_stats().tapeBytesPeak, Now);
  Ints.push(1);
  EXPECT_EQ(fluxion::memory_stats().tapeBytesPeak, Now + sizeof(int));

  while (!Doubles.empty())
    Doubles.pop();
  while (!Ints.empty())
    Ints.pop();
  while (!Records.empty())
    Records.pop();
  resetAndExpectEmpty();
}

TEST(MemoryStats, TapesOutsideTheAccessorDoNotCount) {
  resetAndExpectEmpty();
  fluxion::Tape<double> Local;
  for (int I = 0; I < 100; ++I)
    Local.push(I);
  EXPECT_EQ(fluxion::memory_stats().tapeBytesPeak, 0u);
}

TEST(MemoryStats, UndoLogPeak) {
  resetAndExpectEmpty();
  double Values[40] = {};
  const std::size_t Mark = fluxion::checkpoint_mark();
  for (double &X : Values)
    fluxion::checkpoint_save(&X);
  fluxion::checkpoint_undo(Mark + 10);
  const std::size_t Entry = sizeof(fluxion::detail::UndoEntry);
  fluxion::MemoryStats Stats = fluxion::memory_stats();
  EXPECT_EQ(Stats.checkpointBytesPeak, 40 * Entry);
  EXPECT_EQ(Stats.tapeBytesPeak, 0u); // the log is not one of the tapes
  fluxion::reset_memory_peaks();
  EXPECT_EQ(fluxion::memory_stats().checkpointBytesPeak, 10 * Entry);
  fluxion::checkpoint_undo(Mark);
  resetAndExpectEmpty();
}

/// Runs a loop of Steps steps with nothing but the driver, on a state of
/// Bytes bytes; Inside runs in the loop's taped last step.
template <class F>
fluxion::RevolveStats runLoop(long Steps, int Snapshots, char *State,
                              std::size_t Bytes, F Inside) {
  fluxion::revolve_begin(Steps, Snapshots);
  fluxion::revolve_state(State, Bytes);
  while (fluxion::revolve_forward() > 0) {
  }
  Inside();
  fluxion::revolve_rebind();
  fluxion::revolve_state(State, Bytes);
  fluxion::revolve_turn();
  while (fluxion::revolve_reverse() >= 0) {
  }
  return fluxion::revolve_last_stats();
}

TEST(MemoryStats, SnapshotPeakAddsUpNestedLoops) {
  resetAndExpectEmpty();
  char Outer[1000] = {}, Inner[24] = {};
  fluxion::RevolveStats InnerStats;
  std::size_t HeldInside = 0;
  fluxion::RevolveStats OuterStats = runLoop(100, 4, Outer, sizeof(Outer), [&] {
    HeldInside = fluxion::memory_stats().snapshotBytesPeak;
    InnerStats = runLoop(50, 3, Inner, sizeof(Inner), [] {});
  });
  // Both loops fill their slots: the outer one still holds its four when the
  // inner one, in its last step, holds three.
  EXPECT_EQ(OuterStats.snapshotBytesPeak, 4 * sizeof(Outer));
  EXPECT_EQ(InnerStats.snapshotBytesPeak, 3 * sizeof(Inner));
  EXPECT_EQ(HeldInside, 4 * sizeof(Outer));
  fluxion::MemoryStats Stats = fluxion::memory_stats();
  EXPECT_EQ(Stats.snapshotBytesPeak, 4 * sizeof(Outer) + 3 * sizeof(Inner));
  EXPECT_EQ(Stats.totalPeak(), Stats.snapshotBytesPeak);
  // Finished loops hold nothing.
  resetAndExpectEmpty();
}

TEST(MemoryStats, TotalIsTheSumOfTheParts) {
  resetAndExpectEmpty();
  fluxion::tape<float>().push(1.0f);
  float X = 0;
  std::size_t Mark = fluxion::checkpoint_mark();
  fluxion::checkpoint_save(&X);
  char State[8] = {};
  runLoop(3, 2, State, sizeof(State), [] {});
  fluxion::MemoryStats Stats = fluxion::memory_stats();
  EXPECT_EQ(Stats.tapeBytesPeak, sizeof(float));
  EXPECT_EQ(Stats.checkpointBytesPeak, sizeof(fluxion::detail::UndoEntry));
  EXPECT_EQ(Stats.snapshotBytesPeak, 2 * sizeof(State));
  EXPECT_EQ(Stats.totalPeak(), sizeof(float) +
                                   sizeof(fluxion::detail::UndoEntry) +
                                   2 * sizeof(State));
  fluxion::tape<float>().pop();
  fluxion::checkpoint_undo(Mark);
  resetAndExpectEmpty();
}

TEST(MemoryStats, EachThreadCountsItsOwn) {
  resetAndExpectEmpty();
  fluxion::tape<double>().push(1);
  fluxion::MemoryStats Fresh, Used;
  std::thread Other([&] {
    Fresh = fluxion::memory_stats();
    for (int I = 0; I < 64; ++I)
      fluxion::tape<double>().push(I);
    Used = fluxion::memory_stats();
    while (!fluxion::tape<double>().empty())
      fluxion::tape<double>().pop();
  });
  Other.join();
  EXPECT_EQ(Fresh.totalPeak(), 0u);
  EXPECT_EQ(Used.tapeBytesPeak, 64 * sizeof(double));
  EXPECT_EQ(fluxion::memory_stats().tapeBytesPeak, sizeof(double));
  fluxion::tape<double>().pop();
  resetAndExpectEmpty();
}

} // namespace
