// Immutable records (next hops, neighbours) that table entries point to by index.
//
// A record is written whole and published before any entry that points to it, and never changed
// afterwards: an update makes a new record and repoints the entry, so a reader never needs more than
// one entry load and one record load, and never sees a record half-written.
// Ordering: on the host the writer fences (release) between record and pointer, and the reader
// fences (acquire; free on x86) between pointer and record. On the GPU the records go to the mirror
// in one replay kernel and the pointers in a later one (nf/l3fwd/router.cpp), which is launched only
// after the first has finished: by then the records are in L2, the GPU's point of coherence, and the
// reader's volatile loads go to L2. That is an argument from the hardware's cache structure, not from
// the PTX memory model; the GPU test of live updates checks it.
#pragma once
#include <cstdint>

#include "nf/l3fwd/shared_words.h"
#include "util/hd.h"

namespace gnf::nf {

GNF_INLINE void record_acquire_fence() {
#if !defined(__CUDA_ARCH__)
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

// Loads a record word by word (load_shared_word).
template <typename Record>
GNF_INLINE Record load_record(const Record* record) {
  static_assert(sizeof(Record) % 4 == 0 && alignof(Record) >= 4);
  Record out;
  auto* to = reinterpret_cast<uint32_t*>(&out);
  auto* from = reinterpret_cast<const uint32_t*>(record);
  for (unsigned w = 0; w < sizeof(Record) / 4; ++w) to[w] = load_shared_word(from + w);
  return out;
}

}  // namespace gnf::nf
