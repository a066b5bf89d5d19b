// Readers of shared tables, and the grace periods a writer waits out before it reuses memory that
// readers may still be looking at (quiescent-state-based reclamation, as DPDK's rte_rcu_qsbr, with
// GPU thread blocks among the readers).
//
// A reader is a CPU plane, a staged plane's GPU bursts, a bypass kernel's block, or the slow path.
// It counts the bursts it has entered and left, in its own slot: a burst's lookups happen between
// its enter and its leave. A writer that has unlinked something (a table group, a record) and made
// the unlinking visible takes a grace ticket: every reader's `entered` now. Once every reader's
// `left` has reached its ticket value, no burst that could have seen the old link is still running
// and the memory may be reused. Bursts finish in the order they began, so counting is enough.
//
// Ordering (the helpers of sync/ordering.h): the reader stores `entered`, then fences (seq_cst at
// system scope), then looks up; the writer makes the unlink visible, fences, then reads `entered`.
// Either the writer sees the new count (and waits for the burst) or the burst sees the unlinked
// table. `left` is stored after the burst's last lookup with release order; on the GPU the lookups
// were made by the whole block, so the fence after the barrier comes first (a fence followed by a
// store is a release in PTX's model, and the fence is cumulative over the block's lookups).
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "mem/block.h"
#include "sync/ordering.h"

namespace gnf::sync {

struct alignas(64) ReaderSlot {
  uint64_t entered;
  uint64_t left;
};

// Host and device: called by the one thread that speaks for the reader (a block's thread 0; on the
// GPU reader_leave after the block's __syncthreads()).
GNF_INLINE void reader_enter(ReaderSlot* slot) {
  store_sys<MemoryOrder::Relaxed>(&slot->entered, load_sys<MemoryOrder::Relaxed>(&slot->entered) + 1);
  fence_seq_cst_sys();
}

GNF_INLINE void reader_leave(ReaderSlot* slot) {
#if defined(__CUDA_ARCH__)
  fence_seq_cst_sys();
  store_sys<MemoryOrder::Relaxed>(&slot->left, load_sys<MemoryOrder::Relaxed>(&slot->left) + 1);
#else
  store_release_sys(&slot->left, load_sys<MemoryOrder::Relaxed>(&slot->left) + 1);
#endif
}

// A host reader's burst as a scope.
struct ReaderGuard {
  explicit ReaderGuard(ReaderSlot* s) : slot(s) {
    if (slot) reader_enter(slot);
  }
  ~ReaderGuard() {
    if (slot) reader_leave(slot);
  }
  ReaderGuard(const ReaderGuard&) = delete;
  ReaderGuard& operator=(const ReaderGuard&) = delete;
  ReaderSlot* slot;
};

class ReaderRegistry {
 public:
  static constexpr uint32_t kSlots = 72;  // a plane per queue (64), the slow path, tests

  // The slots live in memory the GPU can write when `gpu_visible` (pinned), else in host memory.
  explicit ReaderRegistry(bool gpu_visible);

  ReaderSlot* slots() const { return reinterpret_cast<ReaderSlot*>(block_.data()); }
  ReaderSlot* slot(uint32_t index) const { return slots() + index; }

  // Call after the unlinking stores are visible to every reader (on the GPU: replayed). Any thread:
  // the writers of several NFs' tables share the registry.
  uint64_t begin_grace();
  bool grace_over(uint64_t grace);
  // Waits until grace_over(grace) or `timeout` passes; true if it is over.
  bool wait(uint64_t grace, std::chrono::microseconds timeout);

 private:
  mem::Block block_;
  std::mutex mutex_;  // over the tickets
  uint64_t next_grace_ = 0, over_through_ = 0;  // graces [0, over_through_) are over
  std::deque<std::vector<uint64_t>> tickets_;     // graces [over_through_, next_grace_)
};

// Indices that readers may still see once freed: reused only after a grace period. Without a
// registry (no concurrent readers, e.g. a table built before any reader starts) frees are
// reusable at once.
class Recycler {
 public:
  explicit Recycler(std::vector<uint32_t>& free_list) : free_list_(free_list) {}
  void set_readers(ReaderRegistry* readers) { readers_ = readers; }

  void release(uint32_t index);
  // The unlinking of everything released so far is visible to readers: their grace starts.
  void published();
  // Moves indices whose grace is over to the free list. With `wait` and nothing reusable yet,
  // waits up to a second for the oldest grace. Returns how many came back.
  uint32_t reclaim(bool wait);
  uint32_t waiting() const;

 private:
  std::vector<uint32_t>& free_list_;
  ReaderRegistry* readers_ = nullptr;
  std::vector<uint32_t> unpublished_;
  std::deque<std::pair<uint64_t, uint32_t>> retired_;  // (grace, index)
};

}  // namespace gnf::sync
