// Unit tests of fluxion::Tape<T> (runtime/include/fluxion/tape.hpp).

#include <fluxion/tape.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

/// A value that differs between neighbouring indices (and is exact in float).
template <class T> T valueAt(std::size_t I) {
  if constexpr (std::is_same_v<T, bool>)
    return ((I ^ (I >> 3)) & 1) != 0;
  else
    return static_cast<T>(I % 1000003);
}

/// Elements held by the first K chunks: the first holds C (ChunkSize), and
/// each next one twice the one before, up to 4096 C.
std::size_t edge(std::size_t C, unsigned K) {
  std::size_t Sum = 0;
  for (unsigned I = 0; I < K; ++I)
    Sum += C << (I < 12 ? I : 12);
  return Sum;
}

/// Bytes reserved once N elements of type T have been pushed.
template <class T> std::size_t capacityFor(std::size_t N) {
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  unsigned K = 0;
  while (edge(C, K) < N)
    ++K;
  return edge(C, K) * sizeof(T);
}

template <class T> class TapeTest : public ::testing::Test {};
using ElementTypes =
    ::testing::Types<double, float, long double, int, bool, std::size_t>;
TYPED_TEST_SUITE(TapeTest, ElementTypes);

TYPED_TEST(TapeTest, StartsEmpty) {
  fluxion::Tape<TypeParam> Tape;
  EXPECT_TRUE(Tape.empty());
  EXPECT_EQ(Tape.size(), 0u);
  EXPECT_EQ(Tape.peakSize(), 0u);
  EXPECT_EQ(Tape.capacityBytes(), 0u);
}

TYPED_TEST(TapeTest, PopsInLifoOrderAcrossManyChunks) {
  using T = TypeParam;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  const std::size_t N = 5 * C + C / 2;
  fluxion::Tape<T> Tape;
  for (std::size_t I = 0; I < N; ++I) {
    Tape.push(valueAt<T>(I));
    ASSERT_EQ(Tape.size(), I + 1);
    ASSERT_EQ(Tape.back(), valueAt<T>(I));
  }
  EXPECT_EQ(Tape.capacityBytes(), capacityFor<T>(N));
  EXPECT_EQ(Tape.capacityBytes(), 7 * C * sizeof(T)); // C + 2C + 4C
  for (std::size_t I = N; I-- > 0;) {
    ASSERT_FALSE(Tape.empty());
    ASSERT_EQ(Tape.back(), valueAt<T>(I));
    ASSERT_EQ(Tape.pop(), valueAt<T>(I)) << "element " << I;
    ASSERT_EQ(Tape.size(), I);
  }
  EXPECT_TRUE(Tape.empty());
  EXPECT_EQ(Tape.peakSize(), N);
}

TYPED_TEST(TapeTest, AtIndexesFromTheOldestAcrossChunks) {
  using T = TypeParam;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  const std::size_t N = 3 * C + 7;
  fluxion::Tape<T> Tape;
  for (std::size_t I = 0; I < N; ++I)
    Tape.push(valueAt<T>(I));
  for (std::size_t I = 0; I < N; ++I)
    ASSERT_EQ(Tape.at(I), valueAt<T>(I)) << "element " << I;
  // Popping into an earlier chunk leaves the rest addressable.
  for (std::size_t I = 0; I < C + 9; ++I)
    Tape.pop();
  for (std::size_t I = 0; I < Tape.size(); ++I)
    ASSERT_EQ(Tape.at(I), valueAt<T>(I)) << "element " << I;
}

TYPED_TEST(TapeTest, InterleavedPushAndPopAtChunkEdges) {
  using T = TypeParam;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  fluxion::Tape<T> Tape;
  std::vector<T> Model;
  std::size_t Next = 0;
  auto Push = [&] {
    Tape.push(valueAt<T>(Next));
    Model.push_back(valueAt<T>(Next));
    ++Next;
  };
  auto Pop = [&] {
    ASSERT_EQ(Tape.pop(), Model.back());
    Model.pop_back();
  };
  auto Check = [&] {
    ASSERT_EQ(Tape.size(), Model.size());
    ASSERT_EQ(Tape.empty(), Model.empty());
    if (!Model.empty()) {
      ASSERT_EQ(Tape.back(), Model.back());
    }
  };
  // Bounce across each of the first edges: up to one past, down to one
  // before, up again, exactly to the edge, ...
  for (std::size_t Edge : {edge(C, 1), edge(C, 2), edge(C, 3)}) {
    while (Model.size() < Edge + 1)
      Push();
    Check();
    for (int Round = 0; Round < 3; ++Round) {
      Pop();
      Pop();
      Check(); // one before the edge
      Push();
      Check(); // exactly at the edge
      Push();
      Check(); // one past
      Pop();
      Check(); // at the edge again, on the way down
    }
  }
  // A seeded random walk that stays near the edges.
  std::mt19937 Rng(12345);
  for (int Step = 0; Step < 200000; ++Step) {
    bool Up = Model.empty() || (Rng() % 2 == 0);
    if (Model.size() > edge(C, 3) + 2)
      Up = false;
    if (Up)
      Push();
    else
      Pop();
    std::size_t S = Model.size();
    for (unsigned K = 1; K <= 3; ++K)
      if (S + 1 >= edge(C, K) && S <= edge(C, K) + 1)
        Check();
  }
  while (!Model.empty())
    Pop();
  Check();
}

TYPED_TEST(TapeTest, ClearKeepsTheChunksAndReuseAllocatesNothing) {
  using T = TypeParam;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  const std::size_t N = 3 * C + 7;
  fluxion::Tape<T> Tape;
  for (std::size_t I = 0; I < N; ++I)
    Tape.push(valueAt<T>(I));
  const std::size_t Capacity = Tape.capacityBytes();
  EXPECT_EQ(Capacity, capacityFor<T>(N));

  Tape.clear();
  EXPECT_TRUE(Tape.empty());
  EXPECT_EQ(Tape.size(), 0u);
  EXPECT_EQ(Tape.capacityBytes(), Capacity);
  EXPECT_EQ(Tape.peakSize(), N);

  // The same workload again, twice: no new chunk.
  for (int Round = 0; Round < 2; ++Round) {
    for (std::size_t I = 0; I < N; ++I) {
      Tape.push(valueAt<T>(I + 1));
      ASSERT_EQ(Tape.size(), I + 1);
    }
    EXPECT_EQ(Tape.capacityBytes(), Capacity);
    for (std::size_t I = N; I-- > 0;)
      ASSERT_EQ(Tape.pop(), valueAt<T>(I + 1));
    EXPECT_TRUE(Tape.empty());
    EXPECT_EQ(Tape.capacityBytes(), Capacity);
  }

  // clear() in the middle of a later chunk, then a partial reuse.
  for (std::size_t I = 0; I < 2 * C + 3; ++I)
    Tape.push(valueAt<T>(I));
  Tape.clear();
  Tape.push(valueAt<T>(42));
  EXPECT_EQ(Tape.size(), 1u);
  EXPECT_EQ(Tape.back(), valueAt<T>(42));
  EXPECT_EQ(Tape.pop(), valueAt<T>(42));
  EXPECT_TRUE(Tape.empty());
  EXPECT_EQ(Tape.capacityBytes(), Capacity);
}

TYPED_TEST(TapeTest, PeakSize) {
  using T = TypeParam;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  fluxion::Tape<T> Tape;
  // A peak inside the first chunk, then lower.
  for (std::size_t I = 0; I < 10; ++I)
    Tape.push(valueAt<T>(I));
  for (std::size_t I = 0; I < 10; ++I)
    Tape.pop();
  EXPECT_EQ(Tape.peakSize(), 10u);
  for (std::size_t I = 0; I < 5; ++I)
    Tape.push(valueAt<T>(I));
  EXPECT_EQ(Tape.peakSize(), 10u);

  // A peak inside a later chunk, left by popping back across an edge.
  while (Tape.size() < 2 * C + 17)
    Tape.push(valueAt<T>(Tape.size()));
  while (Tape.size() > C - 3)
    Tape.pop();
  EXPECT_EQ(Tape.peakSize(), 2 * C + 17);
  Tape.push(valueAt<T>(0));
  EXPECT_EQ(Tape.peakSize(), 2 * C + 17);

  // Exactly a full chunk.
  Tape.resetPeak();
  EXPECT_EQ(Tape.peakSize(), C - 2);
  while (Tape.size() < C)
    Tape.push(valueAt<T>(Tape.size()));
  Tape.pop();
  EXPECT_EQ(Tape.peakSize(), C);

  // clear() keeps the peak; resetPeak() forgets it.
  Tape.clear();
  EXPECT_EQ(Tape.peakSize(), C);
  Tape.resetPeak();
  EXPECT_EQ(Tape.peakSize(), 0u);
  Tape.push(valueAt<T>(1));
  Tape.push(valueAt<T>(2));
  Tape.pop();
  EXPECT_EQ(Tape.peakSize(), 2u);
}

TYPED_TEST(TapeTest, ReleaseReturnsTheChunksAndTheTapeStillWorks) {
  using T = TypeParam;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  fluxion::Tape<T> Tape;
  for (std::size_t I = 0; I < 2 * C + 1; ++I)
    Tape.push(valueAt<T>(I));
  Tape.release();
  EXPECT_EQ(Tape.capacityBytes(), 0u);
  EXPECT_EQ(Tape.size(), 0u);
  EXPECT_TRUE(Tape.empty());
  for (std::size_t I = 0; I < C + 1; ++I)
    Tape.push(valueAt<T>(I + 5));
  EXPECT_EQ(Tape.size(), C + 1);
  EXPECT_EQ(Tape.capacityBytes(), 3 * C * sizeof(T)); // C + 2C
  for (std::size_t I = C + 1; I-- > 0;)
    ASSERT_EQ(Tape.pop(), valueAt<T>(I + 5));
  EXPECT_TRUE(Tape.empty());
  Tape.release();
  Tape.release(); // twice is fine
  EXPECT_EQ(Tape.capacityBytes(), 0u);
}

TYPED_TEST(TapeTest, RangesAcrossChunkEdges) {
  using T = TypeParam;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  fluxion::Tape<T> Tape;
  // A few scalars first, so that the ranges straddle chunk boundaries.
  for (std::size_t I = 0; I < C - 3; ++I)
    Tape.push(valueAt<T>(I));
  // Arrays, not std::vector (whose bool specialisation has no data()).
  const std::size_t NA = 2 * C + 7, NB = 5;
  std::unique_ptr<T[]> A(new T[NA]), B(new T[NB]), Back(new T[NA]),
      BackB(new T[NB]);
  for (std::size_t I = 0; I < NA; ++I)
    A[I] = valueAt<T>(7 * I + 1);
  for (std::size_t I = 0; I < NB; ++I)
    B[I] = valueAt<T>(3 * I + 2);
  Tape.push_range(A.get(), static_cast<long>(NA));
  Tape.push_range(B.get(), 0);  // nothing
  Tape.push_range(B.get(), -4); // nothing
  Tape.push_range(B.get(), static_cast<long>(NB));
  EXPECT_EQ(Tape.size(), C - 3 + NA + NB);
  EXPECT_EQ(Tape.peakSize(), Tape.size());
  Tape.pop_range(BackB.get(), static_cast<long>(NB));
  Tape.pop_range(Back.get(), static_cast<long>(NA));
  for (std::size_t I = 0; I < NB; ++I)
    ASSERT_EQ(BackB[I], B[I]) << I;
  for (std::size_t I = 0; I < NA; ++I)
    ASSERT_EQ(Back[I], A[I]) << I;
  for (std::size_t I = C - 3; I > 0; --I)
    ASSERT_EQ(Tape.pop(), valueAt<T>(I - 1));
  EXPECT_TRUE(Tape.empty());
}

TYPED_TEST(TapeTest, GroupedValuesAtEveryOffsetFromAChunkEdge) {
  using T = TypeParam;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  // Groups of 4 and 2 starting before, on and after a chunk end, mixed with
  // single pushes and pops the way generated code mixes them.
  for (std::size_t Lead = C - 6; Lead <= C + 1; ++Lead) {
    fluxion::Tape<T> Tape;
    for (std::size_t I = 0; I < Lead; ++I)
      Tape.push(valueAt<T>(I));
    Tape.push_values(valueAt<T>(100), valueAt<T>(101), valueAt<T>(102),
                     valueAt<T>(103));
    Tape.push(valueAt<T>(104));
    Tape.push_values(valueAt<T>(105), valueAt<T>(106));
    ASSERT_EQ(Tape.size(), Lead + 7);
    ASSERT_EQ(Tape.peakSize(), Lead + 7);
    T A{}, B{}, Cc{}, D{}, E{}, F{};
    Tape.pop_values(A, B); // as many pop()s: the last pushed first
    EXPECT_EQ(A, valueAt<T>(106)) << "lead " << Lead;
    EXPECT_EQ(B, valueAt<T>(105)) << "lead " << Lead;
    EXPECT_EQ(Tape.pop(), valueAt<T>(104));
    Tape.pop_values(Cc, D, E, F);
    EXPECT_EQ(Cc, valueAt<T>(103)) << "lead " << Lead;
    EXPECT_EQ(D, valueAt<T>(102)) << "lead " << Lead;
    EXPECT_EQ(E, valueAt<T>(101)) << "lead " << Lead;
    EXPECT_EQ(F, valueAt<T>(100)) << "lead " << Lead;
    for (std::size_t I = Lead; I > 0; --I)
      ASSERT_EQ(Tape.pop(), valueAt<T>(I - 1)) << "lead " << Lead;
    EXPECT_TRUE(Tape.empty());
    EXPECT_EQ(Tape.peakSize(), Lead + 7);
  }
}

TYPED_TEST(TapeTest, RewindTakesBackPopsAtEverySize) {
  using T = TypeParam;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  // Positions on, just before and just after chunk boundaries.
  for (std::size_t Base :
       {std::size_t(0), C - 1, C, C + 1, 2 * C, edge(C, 2), edge(C, 2) + 1}) {
    for (std::size_t Pops : {std::size_t(1), std::size_t(2), C, C + 2}) {
      fluxion::Tape<T> Tape;
      const std::size_t N = Base + Pops;
      for (std::size_t I = 0; I < N; ++I)
        Tape.push(valueAt<T>(I));
      // Three reverse sweeps over one forward sweep.
      for (int Sweep = 0; Sweep < 3; ++Sweep) {
        Tape.rewind(N);
        ASSERT_EQ(Tape.size(), N);
        for (std::size_t I = N; I > Base; --I)
          ASSERT_EQ(Tape.pop(), valueAt<T>(I - 1))
              << "base " << Base << " pops " << Pops << " sweep " << Sweep;
      }
      EXPECT_EQ(Tape.peakSize(), N);
      // Pushing after the sweeps continues from Base.
      Tape.push(valueAt<T>(99));
      EXPECT_EQ(Tape.size(), Base + 1);
      EXPECT_EQ(Tape.back(), valueAt<T>(99));
    }
  }
}

TEST(TapeChunks, DoubleInSizeAndStayAddressable) {
  using T = int;
  constexpr std::size_t C = fluxion::Tape<T>::ChunkSize;
  fluxion::Tape<T> Tape;
  const std::size_t N = edge(C, 6) + 3; // into the seventh chunk
  for (std::size_t I = 0; I < N; ++I)
    Tape.push(static_cast<T>(I));
  EXPECT_EQ(Tape.capacityBytes(), edge(C, 7) * sizeof(T));
  // at() and rewind() find each element whatever chunk holds it.
  for (unsigned K = 1; K <= 6; ++K)
    for (std::size_t I : {edge(C, K) - 1, edge(C, K), edge(C, K) + 1})
      ASSERT_EQ(Tape.at(I), static_cast<T>(I)) << "element " << I;
  for (unsigned K = 6; K >= 1; --K) {
    while (Tape.size() > edge(C, K) - 2)
      Tape.pop();
    Tape.rewind(edge(C, K));
    ASSERT_EQ(Tape.size(), edge(C, K));
    ASSERT_EQ(Tape.back(), static_cast<T>(edge(C, K) - 1));
    ASSERT_EQ(Tape.pop(), static_cast<T>(edge(C, K) - 1));
  }
  EXPECT_EQ(Tape.peakSize(), N);
}

TEST(TapePosition, RewindsEveryTapeOfTheThread) {
  auto &D = fluxion::tape<double>();
  auto &I = fluxion::tape<int>();
  const std::size_t D0 = D.size(), I0 = I.size();
  for (int K = 0; K < 1000; ++K) {
    D.push(K * 0.5);
    I.push(K);
  }
  fluxion::TapePosition P = fluxion::tape_position();
  for (int Row = 0; Row < 3; ++Row) {
    fluxion::tape_rewind(P);
    for (int K = 999; K >= 0; --K) {
      ASSERT_EQ(I.pop(), K);
      ASSERT_EQ(D.pop(), K * 0.5);
    }
    EXPECT_EQ(D.size(), D0);
    EXPECT_EQ(I.size(), I0);
  }
  static_assert(std::is_trivially_copyable_v<fluxion::TapePosition>);
}

TEST(TapeChunks, StartAtSixteenKiB) {
  EXPECT_EQ(fluxion::Tape<double>::ChunkSize, 2048u);
  EXPECT_EQ(fluxion::Tape<float>::ChunkSize, 4096u);
  EXPECT_EQ(fluxion::Tape<bool>::ChunkSize, 16384u);
  struct Big {
    char Bytes[20000];
  };
  EXPECT_EQ(fluxion::Tape<Big>::ChunkSize, 1u);
}

TEST(TapeAccessor, IsOneTapePerTypeAndThread) {
  EXPECT_EQ(&fluxion::tape<double>(), &fluxion::tape<double>());
  EXPECT_NE(static_cast<void *>(&fluxion::tape<double>()),
            static_cast<void *>(&fluxion::tape<float>()));

  fluxion::Tape<double> &Main = fluxion::tape<double>();
  Main.push(-1.0);
  const void *MainAddress = &Main;

  constexpr std::size_t C = fluxion::Tape<double>::ChunkSize;
  std::atomic<int> Ready{0};
  std::atomic<bool> Failed{false};
  const void *Addresses[2] = {nullptr, nullptr};
  auto Worker = [&](int Id) {
    fluxion::Tape<double> &Mine = fluxion::tape<double>();
    Addresses[Id] = &Mine;
    if (!Mine.empty())
      Failed = true;
    // Start together so that the two threads really overlap.
    ++Ready;
    while (Ready.load() < 2)
      std::this_thread::yield();
    for (int Round = 0; Round < 20; ++Round) {
      std::size_t N = 3 * C + static_cast<std::size_t>(Round * 37 + Id);
      for (std::size_t I = 0; I < N; ++I)
        Mine.push(Id * 1e7 + static_cast<double>(I));
      if (Mine.size() != N)
        Failed = true;
      for (std::size_t I = N; I-- > 0;)
        if (Mine.pop() != Id * 1e7 + static_cast<double>(I))
          Failed = true;
      if (!Mine.empty())
        Failed = true;
    }
  };
  std::thread A(Worker, 0), B(Worker, 1);
  A.join();
  B.join();

  EXPECT_FALSE(Failed.load());
  EXPECT_NE(Addresses[0], Addresses[1]);
  EXPECT_NE(Addresses[0], MainAddress);
  EXPECT_NE(Addresses[1], MainAddress);
  ASSERT_EQ(Main.size(), 1u);
  EXPECT_EQ(Main.pop(), -1.0);
  EXPECT_TRUE(Main.empty());
}

} // namespace
