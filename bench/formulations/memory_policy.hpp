// How the timing programs let glibc's malloc treat freed memory: kept in
// the process, not returned to the system. A hand-written adjoint that
// allocates its trajectory at every call (a std::vector of steps x n
// values) then reuses the pages of the previous call, as Fluxion's tape
// reuses its chunks, instead of taking a page fault per 4 KiB at every
// call: warm calls compare the adjoints, not the allocator's policy (an
// AD tool that allocates its cache at every call is measured the same
// way). First calls still start from fresh memory.
#ifndef FLUXION_FORMULATIONS_MEMORY_POLICY_HPP
#define FLUXION_FORMULATIONS_MEMORY_POLICY_HPP

#if defined(__GLIBC__)
#include <climits>
#include <malloc.h>
#endif

namespace formulations {

inline void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);             // large blocks from the heap too
  mallopt(M_TRIM_THRESHOLD, INT_MAX); // and the heap never trimmed
#endif
}

} // namespace formulations

#endif // FLUXION_FORMULATIONS_MEMORY_POLICY_HPP
