// Unit tests of the undo log of checkpointed callees
// (runtime/include/fluxion/checkpoint.hpp).

#include <fluxion/checkpoint.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

namespace {

/// Bytewise equality: long double has padding bytes, and -0.0 == 0.0.
template <class T> bool sameBytes(const T &A, const T &B) {
  return std::memcmp(&A, &B, sizeof(T)) == 0;
}

struct Small {
  float F;
  short S;
};

/// Memory outside a callee's frame, of every kind of scalar it may write.
struct Globals {
  float F = 1.25f;
  double D = -2.5;
  int I = 42;
  long double LD = 3.0L / 7;
  bool B = true;
  char C = 'x';
  double *P = nullptr;
  Small SS = {0.5f, 7};
  double Array[4] = {1, 2, 3, 4};
};

TEST(CheckpointUndo, RestoresMixedTypes) {
  Globals G;
  const Globals Before = G;
  const std::size_t Mark = fluxion::checkpoint_mark();

  // A callee's forward sweep: save, then overwrite.
  fluxion::checkpoint_save(&G.F);
  G.F = -7.0f;
  fluxion::checkpoint_save(&G.D);
  G.D = 1e300;
  fluxion::checkpoint_save(&G.I);
  G.I = -1;
  fluxion::checkpoint_save(&G.LD);
  G.LD = -0.0L;
  fluxion::checkpoint_save(&G.B);
  G.B = false;
  fluxion::checkpoint_save(&G.C);
  G.C = 'y';
  fluxion::checkpoint_save(&G.P);
  G.P = &G.D;
  fluxion::checkpoint_save(&G.SS);
  G.SS = {9.0f, -3};
  for (double &X : G.Array) {
    fluxion::checkpoint_save(&X);
    X *= -10;
  }
  EXPECT_EQ(fluxion::checkpoint_mark(), Mark + 12);
  EXPECT_NE(G.F, Before.F);

  fluxion::checkpoint_undo(Mark);
  EXPECT_EQ(fluxion::checkpoint_mark(), Mark);
  EXPECT_TRUE(sameBytes(G.F, Before.F));
  EXPECT_TRUE(sameBytes(G.D, Before.D));
  EXPECT_EQ(G.I, Before.I);
  EXPECT_TRUE(sameBytes(G.LD, Before.LD));
  EXPECT_EQ(G.B, Before.B);
  EXPECT_EQ(G.C, Before.C);
  EXPECT_EQ(G.P, Before.P);
  EXPECT_EQ(G.SS.F, Before.SS.F);
  EXPECT_EQ(G.SS.S, Before.SS.S);
  for (int I = 0; I < 4; ++I)
    EXPECT_EQ(G.Array[I], Before.Array[I]);
}

TEST(CheckpointUndo, WritesNothingElse) {
  // Neighbours of the saved locations keep the values they have at undo
  // time, even where they share a word with a saved one.
  char Bytes[16];
  for (int I = 0; I < 16; ++I)
    Bytes[I] = static_cast<char>(I);
  const std::size_t Mark = fluxion::checkpoint_mark();
  fluxion::checkpoint_save(&Bytes[5]);
  Bytes[5] = 100;
  for (int I = 0; I < 16; ++I)
    if (I != 5)
      Bytes[I] = static_cast<char>(50 + I);
  fluxion::checkpoint_undo(Mark);
  for (int I = 0; I < 16; ++I)
    EXPECT_EQ(Bytes[I], I == 5 ? 5 : 50 + I) << I;
}

TEST(CheckpointUndo, ALocationSavedTwiceGetsItsOlderValue) {
  double X = 1;
  const std::size_t Mark = fluxion::checkpoint_mark();
  fluxion::checkpoint_save(&X);
  X = 2;
  fluxion::checkpoint_save(&X);
  X = 3;
  fluxion::checkpoint_undo(Mark);
  EXPECT_EQ(X, 1);
}

TEST(CheckpointUndo, NestedMarks) {
  // An outer checkpointed call writes A, calls an inner one that writes B
  // and C (and a call that writes nothing), then writes A again.
  double A = 1, B = 2, C = 3;
  const std::size_t Outer = fluxion::checkpoint_mark();
  fluxion::checkpoint_save(&A);
  A = 10;
  const std::size_t Inner = fluxion::checkpoint_mark();
  fluxion::checkpoint_save(&B);
  B = 20;
  fluxion::checkpoint_save(&C);
  C = 30;
  const std::size_t Empty = fluxion::checkpoint_mark();
  fluxion::checkpoint_save(&A);
  A = 100;

  // The reverse sweep meets the calls in reverse order.
  fluxion::checkpoint_undo(fluxion::checkpoint_mark()); // nothing newer
  EXPECT_EQ(A, 100);
  fluxion::checkpoint_undo(Empty + 1);
  EXPECT_EQ(A, 100);
  fluxion::checkpoint_undo(Empty);
  EXPECT_EQ(A, 10);
  EXPECT_EQ(B, 20);
  fluxion::checkpoint_undo(Inner);
  EXPECT_EQ(B, 2);
  EXPECT_EQ(C, 3);
  EXPECT_EQ(A, 10);
  // The inner call's recomputation writes again; the outer undo covers it.
  fluxion::checkpoint_save(&B);
  B = 21;
  fluxion::checkpoint_undo(Outer);
  EXPECT_EQ(A, 1);
  EXPECT_EQ(B, 2);
  EXPECT_EQ(C, 3);
  EXPECT_EQ(fluxion::checkpoint_mark(), Outer);
}

TEST(CheckpointUndo, ReusesItsStorage) {
  using Log = fluxion::Tape<fluxion::detail::UndoEntry>;
  const std::size_t PerChunk = Log::ChunkSize;
  std::vector<double> Values(3 * PerChunk + 5);
  auto Fill = [&](double Base) {
    for (std::size_t I = 0; I < Values.size(); ++I)
      Values[I] = Base + static_cast<double>(I);
  };
  Fill(0);
  const std::size_t Mark = fluxion::checkpoint_mark();
  std::size_t Capacity = 0;
  for (int Round = 0; Round < 3; ++Round) {
    for (double &X : Values) {
      fluxion::checkpoint_save(&X);
      X = -1;
    }
    EXPECT_EQ(fluxion::checkpoint_mark(), Mark + Values.size());
    fluxion::checkpoint_undo(Mark);
    for (std::size_t I = 0; I < Values.size(); ++I)
      ASSERT_EQ(Values[I], static_cast<double>(I)) << "round " << Round;
    if (Round == 0)
      Capacity = fluxion::detail::undoLog().capacityBytes();
    // Later rounds allocate no more chunks.
    EXPECT_EQ(fluxion::detail::undoLog().capacityBytes(), Capacity);
  }
  EXPECT_GE(Capacity, Values.size() * sizeof(fluxion::detail::UndoEntry));
}

TEST(CheckpointUndo, EntriesAreCompact) {
  EXPECT_LE(sizeof(fluxion::detail::UndoEntry),
            sizeof(void *) + sizeof(long double) + alignof(void *));
}

TEST(CheckpointUndo, EachThreadHasItsOwnLog) {
  double Mine = 1;
  const std::size_t Mark = fluxion::checkpoint_mark();
  fluxion::checkpoint_save(&Mine);
  Mine = 2;
  std::size_t OtherMarks[2] = {99, 99};
  double Theirs = 5;
  std::thread Other([&] {
    OtherMarks[0] = fluxion::checkpoint_mark();
    fluxion::checkpoint_save(&Theirs);
    Theirs = 6;
    fluxion::checkpoint_undo(0);
    OtherMarks[1] = fluxion::checkpoint_mark();
  });
  Other.join();
  EXPECT_EQ(OtherMarks[0], 0u);
  EXPECT_EQ(OtherMarks[1], 0u);
  EXPECT_EQ(Theirs, 5);
  EXPECT_EQ(Mine, 2);
  EXPECT_EQ(fluxion::checkpoint_mark(), Mark + 1);
  fluxion::checkpoint_undo(Mark);
  EXPECT_EQ(Mine, 1);
}

/// A checkpointed callee as generated code runs it: plain code that saves
/// before writing outside its frame; here it smooths an array in place and
/// accumulates into a global sum.
double Sum = 0;
void smoothSaving(double *X, int N) {
  double Previous = X[0];
  for (int I = 1; I + 1 < N; ++I) {
    double Current = X[I];
    fluxion::checkpoint_save(&X[I]);
    X[I] = (Previous + Current + X[I + 1]) / 3;
    Previous = Current;
  }
  fluxion::checkpoint_save(&Sum);
  Sum += X[N / 2];
}

TEST(CheckpointUndo, RecomputationAfterUndoRepeatsTheCall) {
  std::vector<double> X = {1, 4, 9, 16, 25, 36, 49};
  Sum = 0.5;
  const std::vector<double> Input = X;
  const std::size_t Mark = fluxion::checkpoint_mark();
  smoothSaving(X.data(), static_cast<int>(X.size()));
  smoothSaving(X.data(), static_cast<int>(X.size())); // called twice
  const std::vector<double> Output = X;
  const double SumAfter = Sum;
  EXPECT_NE(Output, Input);

  fluxion::checkpoint_undo(Mark);
  EXPECT_EQ(X, Input);
  EXPECT_EQ(Sum, 0.5);
  smoothSaving(X.data(), static_cast<int>(X.size()));
  smoothSaving(X.data(), static_cast<int>(X.size()));
  EXPECT_EQ(X, Output);
  EXPECT_EQ(Sum, SumAfter);
  fluxion::checkpoint_undo(Mark);
}

} // namespace
