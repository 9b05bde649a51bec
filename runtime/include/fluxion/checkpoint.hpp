// Fluxion runtime: the undo log of [[fluxion::checkpoint]] callees.
//
// A checkpointed callee records nothing on the tapes in the forward sweep: it
// runs as plain primal code that, before each write to memory outside its own
// frame, saves the old value with checkpoint_save. Its reverse sweep undoes
// those writes, newest first, which gives back the memory as it was when the
// callee was called, then recomputes the callee's forward sweep (taped this
// time) and reverses it. So the log holds one entry per write instead of the
// callee's whole tape.
//
// The log is thread_local and strictly LIFO, like the tapes: each call
// remembers checkpoint_mark() on entry and later undoes down to it, so
// nested checkpointed calls and recursion share the one log.
#ifndef FLUXION_CHECKPOINT_HPP
#define FLUXION_CHECKPOINT_HPP

#include <fluxion/tape.hpp>

#include <cassert>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace fluxion {

namespace detail {

/// One overwritten location and its old bytes. Scalars are all generated
/// code saves, so the bytes live inline (32 bytes per entry on x86-64).
struct UndoEntry {
  void *Address;
  unsigned char Size;
  unsigned char Bytes[sizeof(long double)];
};

/// The calling thread's undo log. A tape of entries: chunked, never moving
/// what it holds, and keeping its chunks for the next call. It is not one
/// of fluxion::tape<T>(), so memory_stats() counts it separately.
inline Tape<UndoEntry> &undoLog() {
  static thread_local Tape<UndoEntry> Log;
  return Log;
}

} // namespace detail

/// Records the address and the current value of *P, which the caller is
/// about to overwrite.
template <class T> inline void checkpoint_save(T *P) {
  static_assert(std::is_trivially_copyable<T>::value,
                "the undo log restores values bytewise");
  static_assert(sizeof(T) <= sizeof(detail::UndoEntry::Bytes),
                "the undo log holds scalars; save larger objects by member");
  detail::UndoEntry Entry;
  Entry.Address = static_cast<void *>(P);
  Entry.Size = static_cast<unsigned char>(sizeof(T));
  std::memcpy(Entry.Bytes, P, sizeof(T));
  detail::undoLog().push(Entry);
}

/// The current length of the log, to undo down to later.
inline std::size_t checkpoint_mark() { return detail::undoLog().size(); }

/// Restores every location saved since Mark, newest first (so a location
/// saved twice gets its older value), and drops those entries.
inline void checkpoint_undo(std::size_t Mark) {
  Tape<detail::UndoEntry> &Log = detail::undoLog();
  std::size_t Size = Log.size();
  assert(Mark <= Size && "undo to a mark that was already undone");
  for (; Size > Mark; --Size) {
    detail::UndoEntry Entry = Log.pop();
    std::memcpy(Entry.Address, Entry.Bytes, Entry.Size);
  }
}

} // namespace fluxion

#endif // FLUXION_CHECKPOINT_HPP
