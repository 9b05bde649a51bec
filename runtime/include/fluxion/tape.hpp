// Fluxion runtime: the tape that generated reverse sweeps record on.
//
// A Tape<T> is a LIFO stack of T stored in fixed-size chunks. Pushing never
// moves stored elements, needs no allocation except when a new chunk is first
// reached, and chunks are kept when popped so that a tape reused across calls
// allocates nothing after warm-up. Generated code reaches its tapes through
// fluxion::tape<T>(), which is thread_local: two threads differentiating at
// the same time never share a tape, and nested generated calls (pullbacks of
// callees, recursion) push and pop in strict LIFO order on the same one.
#ifndef FLUXION_TAPE_HPP
#define FLUXION_TAPE_HPP

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

namespace fluxion {

template <class T> class Tape {
  static_assert(std::is_trivially_copyable<T>::value,
                "the tape stores trivially copyable values only");

public:
  /// Elements per chunk (16 KiB chunks): large enough that chunk changes are
  /// rare, small enough that a short-lived tape reserves little memory.
  static constexpr std::size_t ChunkSize =
      sizeof(T) >= 16384 ? 1 : 16384 / sizeof(T);

  Tape() = default;
  Tape(const Tape &) = delete;
  Tape &operator=(const Tape &) = delete;

  void push(T Value) {
    if (Top == End)
      nextChunk();
    *Top++ = Value;
  }

  T pop() {
    if (Top > Mark) // popping after pushes: remember how high they got
      Mark = Top;
    if (Top == Begin)
      previousChunk();
    assert(Top != Begin && "pop from an empty tape");
    return *--Top;
  }

  /// Pushes N consecutive values (a whole local array); pop_array restores
  /// them in place.
  void push_array(const T *Values, std::size_t N) {
    for (std::size_t I = 0; I < N; ++I)
      push(Values[I]);
  }

  void pop_array(T *Values, std::size_t N) {
    for (std::size_t I = N; I > 0; --I)
      Values[I - 1] = pop();
  }

  /// Pushes the Count values from First on (none if Count <= 0): the part
  /// of an array that a callee reads, saved once at the call instead of at
  /// every write before it. pop_range gives them back in place.
  void push_range(const T *First, long Count) {
    if (Count <= End - Top) { // the common case: it fits in this chunk
      if (Count > 8) {
        std::memcpy(Top, First, Count * sizeof(T));
      } else {
        for (long I = 0; I < Count; ++I)
          Top[I] = First[I];
      }
      Top += Count > 0 ? Count : 0;
      return;
    }
    while (Count > 0) {
      if (Top == End)
        nextChunk();
      long N = std::min<long>(Count, End - Top);
      std::memcpy(Top, First, N * sizeof(T));
      Top += N;
      First += N;
      Count -= N;
    }
  }

  void pop_range(T *First, long Count) {
    if (Count <= 0)
      return;
    if (Top > Mark)
      Mark = Top;
    if (Count <= Top - Begin) { // the common case: all in this chunk
      Top -= Count;
      if (Count > 8) {
        std::memcpy(First, Top, Count * sizeof(T));
      } else {
        for (long I = 0; I < Count; ++I)
          First[I] = Top[I];
      }
      return;
    }
    while (Count > 0) {
      if (Top == Begin)
        previousChunk();
      long N = std::min<long>(Count, Top - Begin);
      Top -= N;
      Count -= N;
      std::memcpy(First + Count, Top, N * sizeof(T));
    }
  }

  /// The most recently pushed element.
  const T &back() const {
    if (Top == Begin) {
      assert(Current > 0 && "back() of an empty tape");
      return Chunks[Current - 1][ChunkSize - 1];
    }
    return Top[-1];
  }

  bool empty() const { return Top == Begin && Current == 0; }

  /// The element pushed Index-th (0 is the oldest still stored).
  const T &at(std::size_t Index) const {
    assert(Index < size() && "tape index out of range");
    return Chunks[Index / ChunkSize][Index % ChunkSize];
  }

  /// Number of elements currently stored.
  std::size_t size() const {
    if (Chunks.empty())
      return 0;
    return Current * ChunkSize + static_cast<std::size_t>(Top - Begin);
  }

  /// Bytes of element storage reserved (kept chunks included).
  std::size_t capacityBytes() const {
    return Chunks.size() * ChunkSize * sizeof(T);
  }

  /// Largest number of elements stored at once since construction or the
  /// last resetPeak().
  std::size_t peakSize() const {
    const T *High = Mark > Top ? Mark : Top;
    std::size_t Here =
        Current * ChunkSize + static_cast<std::size_t>(High - Begin);
    return Peak > Here ? Peak : Here;
  }
  void resetPeak() {
    Peak = size();
    Mark = Top;
  }

  /// Takes back the pops made since the tape held Size elements: pops do not
  /// erase, so a second reverse sweep can run over the same forward sweep
  /// (f_jacobian, one reverse sweep per row). Nothing may have been pushed
  /// since the tape last held Size elements.
  void rewind(std::size_t Size) {
    if (Size == size())
      return;
    assert(Size > size() && Size <= Chunks.size() * ChunkSize &&
           "rewind beyond what the tape held");
    Peak = peakSize();
    std::size_t Index = Size / ChunkSize, Offset = Size % ChunkSize;
    if (Offset == 0 && Index > 0) { // the end of the previous chunk
      --Index;
      Offset = ChunkSize;
    }
    setChunk(Index);
    Top = Mark = Begin + Offset;
  }

  /// Drops every element; keeps the chunks for reuse.
  void clear() {
    Peak = peakSize();
    Current = 0;
    if (!Chunks.empty())
      setChunk(0);
    Top = Mark = Begin;
  }

  /// Returns every chunk to the allocator.
  void release() {
    clear();
    Chunks.clear();
    Begin = Top = End = Mark = nullptr;
  }

private:
  void setChunk(std::size_t Index) {
    Current = Index;
    Begin = Chunks[Index].get();
    End = Begin + ChunkSize;
  }

  void nextChunk() {
    if (Begin == nullptr) { // first push ever
      if (Chunks.empty())
        Chunks.emplace_back(new T[ChunkSize]);
      setChunk(0);
      Top = Mark = Begin;
      return;
    }
    std::size_t Reached = (Current + 1) * ChunkSize;
    if (Reached > Peak)
      Peak = Reached;
    if (Current + 1 == Chunks.size())
      Chunks.emplace_back(new T[ChunkSize]);
    setChunk(Current + 1);
    Top = Mark = Begin;
  }

  void previousChunk() {
    assert(Current > 0 && "pop from an empty tape");
    Peak = peakSize(); // leaving this chunk: fold its high-water mark in
    setChunk(Current - 1);
    Top = Mark = End;
  }

  std::vector<std::unique_ptr<T[]>> Chunks;
  std::size_t Current = 0;
  std::size_t Peak = 0;
  T *Begin = nullptr;
  T *Top = nullptr;
  T *End = nullptr;
  /// Highest Top seen in the current chunk by pop() (peakSize() needs it:
  /// push() stays a compare and a store).
  T *Mark = nullptr;
};

namespace detail {

/// One entry in the calling thread's list of tapes, so that memory_stats()
/// (memory.hpp) can sum the tapes of every element type without knowing the
/// types. A tape joins the list once, when the thread first uses it; push and
/// pop never see the list.
class TapeAccount {
public:
  TapeAccount() : Next(head()) { head() = this; }
  TapeAccount(const TapeAccount &) = delete;
  TapeAccount &operator=(const TapeAccount &) = delete;

  virtual ~TapeAccount() {
    for (TapeAccount **Link = &head(); *Link; Link = &(*Link)->Next) {
      if (*Link == this) {
        *Link = Next;
        return;
      }
    }
  }

  /// Largest number of bytes of elements stored at once (Tape::peakSize()).
  virtual std::size_t peakBytes() const = 0;
  virtual void resetPeak() = 0;
  virtual std::size_t size() const = 0;
  virtual void rewind(std::size_t Size) = 0;

  /// The calling thread's tapes, most recently created first.
  static TapeAccount *first() { return head(); }
  TapeAccount *next() const { return Next; }

private:
  // A plain pointer: constant-initialised, so it needs no guard and outlives
  // every tape of the thread, whatever order they are destroyed in.
  static TapeAccount *&head() {
    static thread_local TapeAccount *Head = nullptr;
    return Head;
  }

  TapeAccount *Next;
};

template <class T> class AccountedTape final : public TapeAccount {
public:
  std::size_t peakBytes() const override {
    return Storage.peakSize() * sizeof(T);
  }
  void resetPeak() override { Storage.resetPeak(); }
  std::size_t size() const override { return Storage.size(); }
  void rewind(std::size_t Size) override { Storage.rewind(Size); }

  Tape<T> Storage;
};

} // namespace detail

/// The sizes of the calling thread's tapes at one point, for tape_rewind.
/// Trivially copyable (generated code assigns it like a number); holds up to
/// MaxTapes tapes, one per element type in use.
class TapePosition {
public:
  static constexpr std::size_t MaxTapes = 16;

  /// Empty: rewinds nothing. tape_position() gives the current one.
  TapePosition() = default;

  static TapePosition current() {
    TapePosition P;
    P.capture();
    return P;
  }

  /// Becomes the current position.
  void capture() {
    Count = 0;
    for (detail::TapeAccount *T = detail::TapeAccount::first(); T;
         T = T->next()) {
      if (Count == MaxTapes) {
        std::fprintf(stderr, "fluxion: more than %zu tape element types in "
                             "one thread; tape_position() cannot hold them\n",
                     MaxTapes);
        std::abort();
      }
      Tapes[Count] = T;
      Sizes[Count++] = T->size();
    }
  }

  /// Takes back the pops made on every tape since this position.
  void rewind() const {
    for (std::size_t I = 0; I < Count; ++I)
      Tapes[I]->rewind(Sizes[I]);
  }

private:
  // Only the first Count entries are set (no zeroing: f_jacobian takes a
  // position per call).
  detail::TapeAccount *Tapes[MaxTapes];
  std::size_t Sizes[MaxTapes];
  std::size_t Count = 0;
};
static_assert(std::is_trivially_copyable<TapePosition>::value,
              "generated code copies positions as values");

/// Where the calling thread's tapes stand now.
inline TapePosition tape_position() { return TapePosition::current(); }
/// The same, in place (what generated code calls: no copy of a position).
inline void tape_position(TapePosition *P) { P->capture(); }

/// Takes back the pops made since P: the reverse sweep that popped them can
/// run again (generated f_jacobian code, one reverse sweep per output).
inline void tape_rewind(const TapePosition &P) { P.rewind(); }

/// The calling thread's tape for values of type T.
template <class T> inline Tape<T> &tape() {
  static thread_local detail::AccountedTape<T> Instance;
  return Instance.Storage;
}

} // namespace fluxion

#endif // FLUXION_TAPE_HPP
