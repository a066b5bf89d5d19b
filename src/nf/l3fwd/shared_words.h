// Loads of table words that a writer may change while they are read (lpm4, lpm6, neighbour slots,
// records), and the fence a reader puts between a word that links to more table and the loads there.
#pragma once
#include <cstdint>

#include "util/hd.h"

namespace gnf::nf {

// One word, loaded once. A reader racing the builder must not let the compiler split, repeat or
// cache the load: relaxed atomic on the host (a plain mov on x86), volatile on the device (which also
// keeps a persistent kernel from reading a stale L1 line forever).
GNF_INLINE uint32_t load_shared_word(const uint32_t* word) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile uint32_t*>(word);
#else
  return __atomic_load_n(word, __ATOMIC_RELAXED);
#endif
}

// After loading an entry that points to more table (a group), before loading from there: the
// acquire half of the builder's release. Free on x86; fence.acq_rel.gpu on the GPU. Paid only by
// lookups that go to a further level.
GNF_INLINE void table_acquire_fence() {
#if defined(__CUDA_ARCH__)
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

}  // namespace gnf::nf
