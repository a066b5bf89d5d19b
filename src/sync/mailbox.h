// A mailbox between host threads and a persistent GPU kernel, in pinned host memory: sequence
// numbers posted by the host, sequence numbers answered by the GPU, and a stop word.
//
// Requests are numbered from 1 and posted in order: the host writes what request k needs (the
// `request` payload, or entries elsewhere that request k names), then post(k), a release store;
// the kernel's acquire load that reads k (or a later number) sees all of it. The kernel answers in
// order the same way: it writes the `reply` payload (or its results elsewhere), then complete(k);
// the host's acquire in has_completed(k) sees them. The orders are sync/ordering.h's.
// Comparisons are by sequence (wrapping at 2^32), so numbers may run on for ever.
//
// Each word has a cache line of its own (the payload beside it): the host writes one, the GPU the
// other, and neither side's polling pulls the line the other side is writing.
#pragma once
#include <cstdint>

#include "sync/ordering.h"

namespace gnf::sync {

struct NoPayload {};

// Whether sequence number `seen` is `wanted` or later.
GNF_INLINE bool sequence_reached(uint32_t seen, uint32_t wanted) { return int32_t(seen - wanted) >= 0; }

template <typename Request = NoPayload, typename Reply = NoPayload>
struct Mailbox {
  alignas(128) uint32_t posted = 0;  // the latest request posted (host release, GPU acquire)
  Request request{};
  alignas(128) uint32_t completed = 0;  // the latest request answered (GPU release, host acquire)
  Reply reply{};
  alignas(128) uint32_t stop = 0;  // nonzero: the kernel returns (host release, GPU acquire)

  // Host side.
  GNF_INLINE void post(uint32_t sequence) { store_release_sys(&posted, sequence); }
  GNF_INLINE bool has_completed(uint32_t sequence) const {
    return sequence_reached(load_acquire_sys(&completed), sequence);
  }
  GNF_INLINE void request_stop() { store_release_sys(&stop, 1); }
  // Before a kernel is launched again on the same mailbox.
  GNF_INLINE void clear_stop() { store_release_sys(&stop, 0); }

  // Kernel side.
  GNF_INLINE uint32_t latest_posted() const { return load_acquire_sys(&posted); }
  GNF_INLINE bool has_posted(uint32_t sequence) const { return sequence_reached(latest_posted(), sequence); }
  GNF_INLINE bool stop_requested() const { return load_acquire_sys(&stop) != 0; }
  // By the one thread that wrote the answer.
  GNF_INLINE void complete(uint32_t sequence) { store_release_sys(&completed, sequence); }
  // By one thread of a block whose threads all wrote the answer, after __syncthreads().
  GNF_INLINE void complete_after_barrier(uint32_t sequence) { publish_after_barrier(&completed, sequence); }
};

}  // namespace gnf::sync
