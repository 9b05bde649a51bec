// Fluxion runtime: how much memory differentiation took on this thread.
//
// The tapes, the undo log of checkpointed callees and the snapshots of
// checkpointed loops each keep their own high-water mark; this header, which
// sees all three, adds them up. Every count is per thread, like the storage.
#ifndef FLUXION_MEMORY_HPP
#define FLUXION_MEMORY_HPP

#include <fluxion/checkpoint.hpp>
#include <fluxion/revolve.hpp>
#include <fluxion/tape.hpp>

#include <cstddef>

namespace fluxion {

struct MemoryStats {
  /// Sum over every fluxion::tape<T>() of this thread of its peak bytes of
  /// elements (chunks reserved but never filled do not count).
  std::size_t tapeBytesPeak = 0;
  /// Peak bytes of entries in the undo log of checkpointed callees.
  std::size_t checkpointBytesPeak = 0;
  /// Peak bytes of loop state held in revolve snapshots, all loops together.
  std::size_t snapshotBytesPeak = 0;

  /// The sum of the peaks. The parts need not peak at the same time, so this
  /// bounds the combined peak from above.
  std::size_t totalPeak() const {
    return tapeBytesPeak + checkpointBytesPeak + snapshotBytesPeak;
  }
};

/// The peaks since the thread started or since reset_memory_peaks().
inline MemoryStats memory_stats() {
  MemoryStats Stats;
  for (const detail::TapeStorage *Tape = detail::TapeStorage::first(); Tape;
       Tape = Tape->next())
    Stats.tapeBytesPeak += Tape->peakBytes();
  Stats.checkpointBytesPeak =
      detail::undoLog().peakSize() * sizeof(detail::UndoEntry);
  Stats.snapshotBytesPeak = detail::revolveThread().SnapshotBytesPeak;
  return Stats;
}

/// Lowers every peak of this thread to what is held now.
inline void reset_memory_peaks() {
  for (detail::TapeStorage *Tape = detail::TapeStorage::first(); Tape;
       Tape = Tape->next())
    Tape->resetPeak();
  detail::undoLog().resetPeak();
  detail::RevolveThread &Revolve = detail::revolveThread();
  Revolve.SnapshotBytesPeak = Revolve.SnapshotBytesHeld;
}

} // namespace fluxion

#endif // FLUXION_MEMORY_HPP
