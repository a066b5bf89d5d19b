// The receiver's anti-replay window (RFC 4303 §3.4.3, appendix A), host and device from one source.
//
// The window spans `size` packets (64-4096, a multiple of 64) ending at `top`, the highest
// sequence number that passed its ICV check. Its bits are a ring of size/64 + 1 words indexed by
// sequence / 64, so that sliding the window clears whole words instead of shifting the bitmap
// (RFC 6479's scheme, as DPDK's rte_ipsec and VPP do it); the extra word holds the part of the
// lowest word that lies below the window.
//
// A packet is checked twice: before its ICV (replay_check: cheap rejection of replays without
// spending crypto on them) and, once its ICV passed, when its bit is set (replay_accept), which
// checks again: between the two the window may have moved.
//
// Writers. On the CPU one per SA: an inbound SA's packets all carry the same outer addresses, so RSS
// hashes them onto one ring, and one plane's thread owns its window. On the GPU that does not hold:
// the drivers' kernels run a thread per packet, so the packets of one SA in a burst are checked and
// accepted by several threads at once (and by several blocks, should an SA's packets arrive on
// several rings). There ReplayWindowLock makes each check and each accept a critical section of its
// own (not the ICV check between them: that runs in parallel). Their order among the burst's threads
// is not the packets' order: a receiver whose window is smaller than a burst may drop, as outside
// the window, a packet that the CPU path accepts; a window of at least the burst size accepts the
// same packets on every path.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#include <cuda/atomic>
#endif

#include "nf/ipsec/sa.h"
#include "util/hd.h"

namespace gnf::nf {

inline constexpr uint32_t kReplayWords = kMaxReplayWindow / 64 + 1;

struct ReplayWindow {
  uint64_t top;  // 0: nothing received yet
  uint64_t words[kReplayWords];
  uint32_t gpu_lock;  // ReplayWindowLock's: 1 while a GPU thread holds the window
};

// Holds `w` for the scope on the GPU (above); nothing on the CPU, where the window has one writer.
// Acquire on taking, release on leaving: a thread that takes the lock reads the window as the last
// holder left it, not a line its SM's L1 kept from before (sync/ordering.h). The spin relies on
// independent thread scheduling (Volta and later) for lanes of one warp that contend.
class ReplayWindowLock {
 public:
  GNF_INLINE explicit ReplayWindowLock(ReplayWindow& w) : word_(&w.gpu_lock) {
#if defined(__CUDA_ARCH__)
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device> lock(*word_);
    uint32_t free = 0;
    while (!lock.compare_exchange_weak(free, 1u, cuda::memory_order_acquire, cuda::memory_order_relaxed)) free = 0;
#endif
  }
  GNF_INLINE ~ReplayWindowLock() {
#if defined(__CUDA_ARCH__)
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device>(*word_).store(0u, cuda::memory_order_release);
#endif
  }
  ReplayWindowLock(const ReplayWindowLock&) = delete;
  ReplayWindowLock& operator=(const ReplayWindowLock&) = delete;

 private:
  uint32_t* word_;
};

enum class ReplayVerdict : uint8_t { New, Replayed, OutsideWindow };

GNF_INLINE uint32_t replay_ring_words(uint32_t size) { return size / 64 + 1; }

// The full sequence number of a received packet from the 32 bits on the wire (RFC 4303 appendix
// A2.2): without ESN the wire's number; with ESN the one closest above the window's bottom. 0 when
// it would lie below the first subspace (no valid packet has it: the first number is 1).
GNF_INLINE uint64_t replay_infer_sequence(const ReplayWindow& w, uint32_t size, bool esn, uint32_t seq_low) {
  if (!esn) return seq_low;
  const uint32_t top_low = uint32_t(w.top);
  uint32_t top_high = uint32_t(w.top >> 32);
  const uint32_t bottom = top_low - (size - 1);  // mod 2^32
  if (top_low >= size - 1) {
    // Case A: the window lies within one subspace; numbers below its bottom are the next one's.
    if (seq_low < bottom) ++top_high;
  } else if (seq_low >= bottom) {
    // Case B: the window straddles a subspace boundary; numbers above its bottom are the last one's.
    if (top_high == 0) return 0;
    --top_high;
  }
  return uint64_t(top_high) << 32 | seq_low;
}

GNF_INLINE ReplayVerdict replay_check(const ReplayWindow& w, uint32_t size, uint64_t seq) {
  if (seq == 0) return ReplayVerdict::OutsideWindow;
  if (seq > w.top) return ReplayVerdict::New;
  if (w.top - seq >= size) return ReplayVerdict::OutsideWindow;
  const uint64_t word = w.words[(seq / 64) % replay_ring_words(size)];
  return (word >> (seq % 64)) & 1 ? ReplayVerdict::Replayed : ReplayVerdict::New;
}

// Records an authenticated packet: slides the window when it is the highest yet, and sets its bit.
// Anything but New leaves the window as it was.
GNF_INLINE ReplayVerdict replay_accept(ReplayWindow& w, uint32_t size, uint64_t seq) {
  const ReplayVerdict verdict = replay_check(w, size, seq);
  if (verdict != ReplayVerdict::New) return verdict;
  const uint32_t ring = replay_ring_words(size);
  if (seq > w.top) {
    // The words between the old top's and the new one's come into the window empty; after a jump
    // of a whole ring or more, every word does.
    const uint64_t old_word = w.top / 64, new_word = seq / 64;
    const uint64_t fresh = new_word - old_word < ring ? new_word - old_word : ring;
    for (uint64_t i = 1; i <= fresh; ++i) w.words[(old_word + i) % ring] = 0;
    w.top = seq;
  }
  w.words[(seq / 64) % ring] |= uint64_t(1) << (seq % 64);
  return ReplayVerdict::New;
}

}  // namespace gnf::nf
