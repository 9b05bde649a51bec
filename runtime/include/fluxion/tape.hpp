// Fluxion runtime: the tape that generated reverse sweeps record on.
//
// A Tape<T> is a LIFO stack of T stored in chunks that double in size up to
// a limit. Pushing never moves stored elements, needs no allocation except
// when a new chunk is first reached, and chunks are kept when popped so that
// a tape reused across calls allocates nothing after warm-up. Large chunks
// are aligned for, and on Linux advised to use, transparent huge pages: the
// first call that fills them then takes one page fault per 2 MiB instead of
// one per 4 KiB, which is most of what a first call costs over a warm one. Generated code reaches its tapes through
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
#include <new>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

/// Marks the rare paths of the tape (a new chunk, the previous chunk): they
/// stay out of line, so every inlined push and pop is a compare, a store and
/// an increment, and the optimiser has less generated code to work through.
#if defined(__GNUC__) || defined(__clang__)
#define FLUXION_TAPE_SLOW_PATH __attribute__((noinline, cold))
#else
#define FLUXION_TAPE_SLOW_PATH
#endif

/// The copy loops of push_range/pop_range run for at most 8 elements: left
/// as a plain loop, not unrolled and vectorised into code for every count,
/// at every call site.
#if defined(__clang__)
#define FLUXION_SHORT_LOOP _Pragma("clang loop unroll(disable) vectorize(disable)")
#else
#define FLUXION_SHORT_LOOP
#endif

namespace fluxion {

namespace detail {

/// What every Tape<T> shares, whatever T is: chunks of raw bytes, the
/// high-water mark, rewinding, and the thread's list of tapes that
/// memory_stats() and TapePosition walk. None of it is a template, so a
/// translation unit pays for it once however many element types its
/// generated code records: only push and pop are instantiated per type.
class TapeStorage {
public:
  TapeStorage(const TapeStorage &) = delete;
  TapeStorage &operator=(const TapeStorage &) = delete;

  ~TapeStorage() {
    if (Listed)
      leaveThreadList();
    freeChunks();
  }

  /// Number of elements currently stored.
  std::size_t size() const { return bytesHeld() / ElemSize; }

  /// Bytes of element storage reserved (kept chunks included).
  std::size_t capacityBytes() const { return chunkStart(NumChunks); }

  /// Largest number of bytes of elements stored at once since construction
  /// or the last resetPeak().
  std::size_t peakBytes() const {
    const char *High = Mark > Top ? Mark : Top;
    std::size_t Here =
        chunkStart(Current) + static_cast<std::size_t>(High - Begin);
    return PeakBytes > Here ? PeakBytes : Here;
  }
  void resetPeak() {
    PeakBytes = bytesHeld();
    Mark = Top;
  }

  /// Takes back the pops made since the tape held Size elements: pops do not
  /// erase, so a second reverse sweep can run over the same forward sweep
  /// (f_jacobian, one reverse sweep per row). Nothing may have been pushed
  /// since the tape last held Size elements.
  void rewind(std::size_t Size) {
    std::size_t Bytes = Size * ElemSize;
    if (Bytes == bytesHeld())
      return;
    assert(Bytes > bytesHeld() && Bytes <= capacityBytes() &&
           "rewind beyond what the tape held");
    PeakBytes = peakBytes();
    std::size_t Index = chunkHolding(Bytes);
    std::size_t Offset = Bytes - chunkStart(Index);
    if (Offset == 0 && Index > 0) { // the end of the previous chunk
      --Index;
      Offset = chunkBytes(Index);
    }
    setChunk(Index);
    Top = Mark = Begin + Offset;
  }

  /// Drops every element; keeps the chunks for reuse.
  void clear() {
    PeakBytes = peakBytes();
    Current = 0;
    if (NumChunks > 0)
      setChunk(0);
    Top = Mark = Begin;
  }

  /// Returns every chunk to the allocator.
  void release() {
    clear();
    freeChunks();
    Begin = Top = End = Mark = nullptr;
  }

  /// The calling thread's tapes (those of fluxion::tape<T>()), most
  /// recently created first.
  static TapeStorage *first() { return head(); }
  TapeStorage *next() const { return Next; }

protected:
  TapeStorage(std::size_t ElemSize, std::size_t ElemAlign,
              std::size_t ChunkBytes)
      : ElemSize(ElemSize), ElemAlign(ElemAlign), ChunkBytes(ChunkBytes) {}

  /// Joins the calling thread's list; the destructor leaves it.
  void joinThreadList() {
    Next = head();
    head() = this;
    Listed = true;
  }

  /// Top reached End: moves to the next chunk, allocating it the first time.
  FLUXION_TAPE_SLOW_PATH void nextChunk() {
    if (Begin == nullptr) { // first push ever, or first since release()
      if (NumChunks == 0)
        appendChunk();
      setChunk(0);
      Top = Mark = Begin;
      return;
    }
    std::size_t Reached = chunkStart(Current + 1);
    if (Reached > PeakBytes)
      PeakBytes = Reached;
    if (Current + 1 == NumChunks)
      appendChunk();
    setChunk(Current + 1);
    Top = Mark = Begin;
  }

  /// Top reached Begin while popping: moves back to the previous chunk.
  FLUXION_TAPE_SLOW_PATH void previousChunk() {
    assert(Current > 0 && "pop from an empty tape");
    PeakBytes = peakBytes(); // leaving this chunk: fold its high-water mark in
    setChunk(Current - 1);
    Top = Mark = End;
  }

  /// push_range and pop_range when the values span a chunk end (Bytes is a
  /// whole number of elements, and so is every chunk).
  FLUXION_TAPE_SLOW_PATH void pushSpanning(const char *From, std::size_t Bytes) {
    while (Bytes > 0) {
      if (Top == End)
        nextChunk();
      std::size_t N = std::min<std::size_t>(Bytes, End - Top);
      std::memcpy(Top, From, N);
      Top += N;
      From += N;
      Bytes -= N;
    }
  }
  FLUXION_TAPE_SLOW_PATH void popSpanning(char *To, std::size_t Bytes) {
    while (Bytes > 0) {
      if (Top == Begin)
        previousChunk();
      std::size_t N = std::min<std::size_t>(Bytes, Top - Begin);
      Top -= N;
      Bytes -= N;
      std::memcpy(To + Bytes, Top, N);
    }
  }

  const char *chunk(std::size_t Index) const { return Chunks[Index]; }

  /// Chunk I holds ChunkBytes << min(I, GrowthSteps) bytes: a short tape
  /// reserves 16 KiB, a long one grows in 64 MiB chunks (with 16 KiB first
  /// chunks), so the number of chunk changes stays small at any size.
  static constexpr unsigned GrowthSteps = 12;
  std::size_t chunkBytes(std::size_t I) const {
    return ChunkBytes << (I < GrowthSteps ? I : GrowthSteps);
  }
  /// Bytes stored in the chunks before chunk I.
  std::size_t chunkStart(std::size_t I) const {
    if (I <= GrowthSteps)
      return ChunkBytes * ((std::size_t(1) << I) - 1);
    return chunkStart(GrowthSteps) + (I - GrowthSteps) * chunkBytes(I);
  }
  /// The chunk that byte offset Bytes of the tape falls in.
  std::size_t chunkHolding(std::size_t Bytes) const {
    std::size_t Grown = chunkStart(GrowthSteps);
    if (Bytes >= Grown)
      return GrowthSteps + (Bytes - Grown) / chunkBytes(GrowthSteps);
    std::size_t I = 0;
    while (chunkStart(I + 1) <= Bytes)
      ++I;
    return I;
  }
  bool holdsNothing() const { return Top == Begin && Current == 0; }

  char *Begin = nullptr;
  char *Top = nullptr;
  char *End = nullptr;
  /// Highest Top seen in the current chunk by pop() (peakBytes() needs it:
  /// push() stays a compare and a store).
  char *Mark = nullptr;

private:
  std::size_t bytesHeld() const {
    if (NumChunks == 0)
      return 0;
    return chunkStart(Current) + static_cast<std::size_t>(Top - Begin);
  }

  void setChunk(std::size_t Index) {
    Current = Index;
    Begin = Chunks[Index];
    End = Begin + chunkBytes(Index);
  }

  void appendChunk() {
    if (NumChunks == ChunkSlots) {
      std::size_t Slots = ChunkSlots ? 2 * ChunkSlots : 8;
      char **Grown = new char *[Slots];
      if (NumChunks > 0)
        std::memcpy(Grown, Chunks, NumChunks * sizeof(char *));
      delete[] Chunks;
      Chunks = Grown;
      ChunkSlots = Slots;
    }
    std::size_t Bytes = chunkBytes(NumChunks);
#ifdef __cpp_aligned_new
    char *Chunk = static_cast<char *>(
        ::operator new(Bytes, std::align_val_t(chunkAlign(Bytes))));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (Bytes >= HugePage) // advice only: without it, 4 KiB pages
      ::madvise(Chunk, Bytes, MADV_HUGEPAGE);
#endif
#else
    char *Chunk = static_cast<char *>(::operator new(Bytes));
#endif
    Chunks[NumChunks++] = Chunk;
  }

  static constexpr std::size_t HugePage = std::size_t(2) << 20;
  std::size_t chunkAlign(std::size_t Bytes) const {
    return Bytes >= HugePage && ElemAlign < HugePage ? HugePage : ElemAlign;
  }

  void freeChunks() {
    for (std::size_t I = 0; I < NumChunks; ++I)
#ifdef __cpp_aligned_new
      ::operator delete(Chunks[I],
                        std::align_val_t(chunkAlign(chunkBytes(I))));
#else
      ::operator delete(Chunks[I]);
#endif
    delete[] Chunks;
    Chunks = nullptr;
    NumChunks = ChunkSlots = 0;
    Current = 0;
  }

  void leaveThreadList() {
    for (TapeStorage **Link = &head(); *Link; Link = &(*Link)->Next) {
      if (*Link == this) {
        *Link = Next;
        return;
      }
    }
  }

  // A plain pointer: constant-initialised, so it needs no guard and outlives
  // every tape of the thread, whatever order they are destroyed in.
  static TapeStorage *&head() {
    static thread_local TapeStorage *Head = nullptr;
    return Head;
  }

  char **Chunks = nullptr;
  std::size_t NumChunks = 0;
  std::size_t ChunkSlots = 0;
  std::size_t Current = 0;
  std::size_t PeakBytes = 0;
  const std::size_t ElemSize;
  const std::size_t ElemAlign;
  const std::size_t ChunkBytes;
  TapeStorage *Next = nullptr;
  bool Listed = false;
};

} // namespace detail

template <class T> class Tape : public detail::TapeStorage {
  static_assert(std::is_trivially_copyable<T>::value,
                "the tape stores trivially copyable values only");

public:
  /// Elements in the first chunk (16 KiB): a short-lived tape reserves
  /// little memory. Later chunks double in size (see chunkBytes).
  static constexpr std::size_t ChunkSize =
      sizeof(T) >= 16384 ? 1 : 16384 / sizeof(T);

  Tape() : TapeStorage(sizeof(T), alignof(T), ChunkSize * sizeof(T)) {}

  void push(T Value) {
    if (Top == End)
      nextChunk();
    *reinterpret_cast<T *>(Top) = Value;
    Top += sizeof(T);
  }

  T pop() {
    if (Top > Mark) // popping after pushes: remember how high they got
      Mark = Top;
    if (Top == Begin)
      previousChunk();
    assert(Top != Begin && "pop from an empty tape");
    Top -= sizeof(T);
    return *reinterpret_cast<T *>(Top);
  }

  /// Pushes N consecutive values (a whole local array); pop_array restores
  /// them in place.
  void push_array(const T *Values, std::size_t N) {
    push_range(Values, static_cast<long>(N));
  }

  void pop_array(T *Values, std::size_t N) {
    pop_range(Values, static_cast<long>(N));
  }

  /// Pushes several values with one check for room: what generated code
  /// emits for consecutive pushes (the locals a forward sweep hands to its
  /// reverse sweep).
  template <class... Us> void push_values(const Us &...Values) {
    constexpr std::size_t N = sizeof...(Us);
    if (static_cast<long>(N) <= room()) {
      // One store per value, like push(): a reverse sweep that starts right
      // after this forward one loads them back one by one, and loads that
      // each match one store are forwarded from the store buffer.
      T *To = reinterpret_cast<T *>(Top);
      int InOrder[] = {((*To++ = static_cast<T>(Values)), 0)...};
      (void)InOrder;
      Top += N * sizeof(T);
      return;
    }
    const T Staged[] = {static_cast<T>(Values)...};
    pushSpanning(reinterpret_cast<const char *>(Staged), sizeof Staged);
  }

  /// Pops sizeof...(Targets) values with one check, in the order of as many
  /// pop()s: the first target gets the value pushed last. So
  /// push_values(a, b, c) is undone by pop_values(c, b, a).
  template <class... Us> void pop_values(Us &...Targets) {
    constexpr std::size_t N = sizeof...(Us);
    if (Top > Mark)
      Mark = Top;
    T Staged[N];
    const T *From = Staged + N;
    if (static_cast<long>(N) <= held()) { // read in place, one load each
      From = reinterpret_cast<const T *>(Top);
      Top -= N * sizeof(T);
    } else {
      popSpanning(reinterpret_cast<char *>(Staged), sizeof Staged);
    }
    int InOrder[] = {((Targets = *--From), 0)...};
    (void)InOrder;
  }

  /// Pushes the Count values from First on (none if Count <= 0): the part
  /// of an array that a callee reads, saved once at the call instead of at
  /// every write before it. pop_range gives them back in place.
  void push_range(const T *First, long Count) {
    if (Count <= room()) { // the common case: it fits in this chunk
      T *To = reinterpret_cast<T *>(Top);
      if (Count > 8) {
        std::memcpy(To, First, Count * sizeof(T));
      } else {
        FLUXION_SHORT_LOOP
        for (long I = 0; I < Count; ++I)
          To[I] = First[I];
      }
      Top += Count > 0 ? Count * sizeof(T) : 0;
      return;
    }
    pushSpanning(reinterpret_cast<const char *>(First), Count * sizeof(T));
  }

  void pop_range(T *First, long Count) {
    if (Count <= 0)
      return;
    if (Top > Mark)
      Mark = Top;
    if (Count <= held()) { // the common case: all in this chunk
      Top -= Count * sizeof(T);
      const T *From = reinterpret_cast<const T *>(Top);
      if (Count > 8) {
        std::memcpy(First, From, Count * sizeof(T));
      } else {
        FLUXION_SHORT_LOOP
        for (long I = 0; I < Count; ++I)
          First[I] = From[I];
      }
      return;
    }
    popSpanning(reinterpret_cast<char *>(First), Count * sizeof(T));
  }

  /// The most recently pushed element.
  const T &back() const {
    if (Top == Begin) {
      assert(!empty() && "back() of an empty tape");
      return at(size() - 1);
    }
    return reinterpret_cast<const T *>(Top)[-1];
  }

  bool empty() const { return holdsNothing(); }

  /// The element pushed Index-th (0 is the oldest still stored).
  const T &at(std::size_t Index) const {
    assert(Index < size() && "tape index out of range");
    std::size_t Bytes = Index * sizeof(T), I = this->chunkHolding(Bytes);
    return *reinterpret_cast<const T *>(chunk(I) + (Bytes - this->chunkStart(I)));
  }

  /// Largest number of elements stored at once since construction or the
  /// last resetPeak().
  std::size_t peakSize() const { return peakBytes() / sizeof(T); }

private:
  /// Elements that still fit in the current chunk, and elements stored in it.
  long room() const { return (End - Top) / static_cast<long>(sizeof(T)); }
  long held() const { return (Top - Begin) / static_cast<long>(sizeof(T)); }
};

namespace detail {

/// The tape of fluxion::tape<T>(): one per type and thread, on the thread's
/// list so that memory_stats() and tape_position() see it.
template <class T> class ThreadTape final : public Tape<T> {
public:
  ThreadTape() { this->joinThreadList(); }
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
    for (detail::TapeStorage *T = detail::TapeStorage::first(); T;
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
  detail::TapeStorage *Tapes[MaxTapes];
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
  static thread_local detail::ThreadTape<T> Instance;
  return Instance;
}

} // namespace fluxion

#endif // FLUXION_TAPE_HPP
