//===- tape.cpp - The tape's rare paths, compiled once -------------------===//
//
// What a tape does when it reaches a chunk end, when values span one, and
// when it is created or destroyed. Generated code reaches these only on
// its cold paths, so defining them here, not inline in tape.hpp, costs it
// nothing at run time and saves every translation unit that records on a
// tape from compiling them again.
//
//===----------------------------------------------------------------------===//
#include "fluxion/tape.hpp"

namespace fluxion::detail {

TapeStorage::~TapeStorage() {
  if (Listed)
    leaveThreadList();
  freeChunks();
}

void TapeStorage::release() {
  clear();
  freeChunks();
  Begin = Top = End = Mark = nullptr;
}

TapeStorage *TapeStorage::first() { return head(); }

void TapeStorage::joinThreadList() {
  Next = head();
  head() = this;
  Listed = true;
}

void TapeStorage::nextChunk() {
  if (Begin == nullptr) { // first push ever, or first since release()
    if (NumChunks == 0)
      appendChunk();
    setChunk(0);
    Top = Mark = Begin;
    return;
  }
  std::size_t Reached = (Current + 1) * ChunkBytes;
  if (Reached > PeakBytes)
    PeakBytes = Reached;
  if (Current + 1 == NumChunks)
    appendChunk();
  setChunk(Current + 1);
  Top = Mark = Begin;
}

void TapeStorage::previousChunk() {
  assert(Current > 0 && "pop from an empty tape");
  PeakBytes = peakBytes(); // leaving this chunk: fold its high-water mark in
  setChunk(Current - 1);
  Top = Mark = End;
}

void TapeStorage::pushSpanning(const char *From, std::size_t Bytes) {
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

void TapeStorage::popSpanning(char *To, std::size_t Bytes) {
  while (Bytes > 0) {
    if (Top == Begin)
      previousChunk();
    std::size_t N = std::min<std::size_t>(Bytes, Top - Begin);
    Top -= N;
    Bytes -= N;
    std::memcpy(To + Bytes, Top, N);
  }
}

void TapeStorage::appendChunk() {
  if (NumChunks == ChunkSlots) {
    std::size_t Slots = ChunkSlots ? 2 * ChunkSlots : 8;
    char **Grown = new char *[Slots];
    if (NumChunks > 0)
      std::memcpy(Grown, Chunks, NumChunks * sizeof(char *));
    delete[] Chunks;
    Chunks = Grown;
    ChunkSlots = Slots;
  }
  Chunks[NumChunks++] = static_cast<char *>(
      ::operator new(ChunkBytes, std::align_val_t(ElemAlign)));
}

void TapeStorage::freeChunks() {
  for (std::size_t I = 0; I < NumChunks; ++I)
    ::operator delete(Chunks[I], std::align_val_t(ElemAlign));
  delete[] Chunks;
  Chunks = nullptr;
  NumChunks = ChunkSlots = 0;
  Current = 0;
}

void TapeStorage::leaveThreadList() {
  for (TapeStorage **Link = &head(); *Link; Link = &(*Link)->Next) {
    if (*Link == this) {
      *Link = Next;
      return;
    }
  }
}

TapeStorage *&TapeStorage::head() {
  // A plain pointer: constant-initialised, so it needs no guard and
  // outlives every tape of the thread, whatever order they are destroyed in.
  static thread_local TapeStorage *Head = nullptr;
  return Head;
}

} // namespace fluxion::detail
