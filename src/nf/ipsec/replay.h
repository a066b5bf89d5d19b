// The receiver's anti-replay window (RFC 4303 §3.4.3, appendix A), host and device from one source.
//
// The window spans `size` packets (64-4096, a multiple of 64) ending at `top`, the highest
// sequence number that passed its ICV check. Its bits are a ring of size/32 + 1 words indexed by
// sequence / 32, so that sliding the window never shifts a bitmap (RFC 6479's scheme, as DPDK's
// rte_ipsec and VPP do it); the extra word holds the part of the lowest word that lies below the
// window.
//
// A packet is checked twice: before its ICV (replay_check: cheap rejection of replays without
// spending crypto on them) and, once its ICV passed, when its bit is set (replay_accept), which
// checks again: between the two the window may have moved.
//
// Writers. Several at once, on the GPU and possibly on the CPU: the drivers' kernels run a thread
// per packet, so the packets of one SA in a burst are checked and accepted by several threads at
// once, and by several blocks should an SA's packets arrive on several rings; on the CPU an SA's
// packets normally hash onto one ring, but one SA may be reached through two ports. The window is
// therefore lock-free, one implementation for both sides:
// - Each word of the ring holds 32 numbers' bits in its low half and, in its high half, which block
//   of 32 numbers (sequence / 32, its low 32 bits) those bits belong to. A word whose tag is older
//   than the block a number needs holds no bit of that block: it is taken over by a compare-and-
//   swap that writes the new tag and the one bit. So sliding the window clears nothing: the words
//   left behind are reset lazily by the first number that needs them.
// - A number is accepted by the one compare-and-swap that sets its bit; a second attempt finds the
//   bit (Replayed) or a newer tag (OutsideWindow). A word's tag only grows, and within a tag its
//   bits only get set, so no number is accepted twice, whatever the interleaving.
// - `top` only grows (a compare-and-swap maximum after the bit is set): it bounds the window, a
//   number `size` or more below it is OutsideWindow without touching the ring.
// Until session 15 a spin lock per SA made each check and accept a critical section; with every
// ring's threads on one SA, the GPU paths' tunnel benchmark forwarded ~72 kpps whatever it was
// offered (bench/results/2026-11-24-session14, run 9).
//
// Between the check and the accept the window may move: a packet checked New may be refused at
// its accept. The order of a burst's threads is not the packets' order: a receiver whose window is
// smaller than a burst may drop, as outside the window, a packet that the CPU path accepts; a window
// of at least the burst size accepts the same packets on every path.
//
// Every access is relaxed: each verdict rests on one atomic read-modify-write of one word (or on
// `top`, which only grows), and nothing else is read because of it.
#pragma once
#include <cstdint>

#include "nf/ipsec/sa.h"
#include "sync/ordering.h"
#include "util/hd.h"

namespace gnf::nf {

inline constexpr uint32_t kReplayBitsPerWord = 32;
inline constexpr uint32_t kReplayWords = kMaxReplayWindow / kReplayBitsPerWord + 1;

struct ReplayWindow {
  unsigned long long top;  // 0: nothing received yet
  unsigned long long words[kReplayWords];  // (block << 32) | bits, block = sequence / 32
};

enum class ReplayVerdict : uint8_t { New, Replayed, OutsideWindow };

// Words of the ring for a window of `size` numbers: one more than it spans, so that the word of its
// lowest number is never the word of its highest.
GNF_INLINE uint32_t replay_ring_words(uint32_t size) { return size / kReplayBitsPerWord + 1; }

GNF_INLINE unsigned long long replay_top(const ReplayWindow& w) { return load_sys<MemoryOrder::Relaxed>(&w.top); }

// The full sequence number of a received packet from the 32 bits on the wire (RFC 4303 appendix
// A2.2): without ESN the wire's number; with ESN the one closest above the window's bottom. 0 when
// it would lie below the first subspace (no valid packet has it: the first number is 1).
GNF_INLINE uint64_t replay_infer_sequence(const ReplayWindow& w, uint32_t size, bool esn, uint32_t seq_low) {
  if (!esn) return seq_low;
  const uint64_t top = replay_top(w);
  const uint32_t top_low = uint32_t(top);
  uint32_t top_high = uint32_t(top >> 32);
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

namespace replay_detail {

GNF_INLINE uint32_t tag_of(uint64_t seq) { return uint32_t(seq / kReplayBitsPerWord); }
GNF_INLINE unsigned long long bit_of(uint64_t seq) { return 1ull << (seq % kReplayBitsPerWord); }
// Whether tag `held` is a later block than `wanted` (tags compare modulo 2^32: the words of a ring
// hold blocks at most a ring apart, unless the sender jumped 2^36 numbers ahead).
GNF_INLINE bool newer(uint32_t held, uint32_t wanted) { return int32_t(held - wanted) > 0; }

// The verdict `word` gives `seq`, and (for New) the word with its bit set.
GNF_INLINE ReplayVerdict judge(unsigned long long word, uint64_t seq, unsigned long long& with_bit) {
  const uint32_t held = uint32_t(word >> 32), wanted = tag_of(seq);
  if (held == wanted) {
    if (word & bit_of(seq)) return ReplayVerdict::Replayed;
    with_bit = word | bit_of(seq);
    return ReplayVerdict::New;
  }
  if (newer(held, wanted)) return ReplayVerdict::OutsideWindow;  // the window has left its block
  with_bit = (static_cast<unsigned long long>(wanted) << 32) | bit_of(seq);
  return ReplayVerdict::New;
}

// Whether `top` alone puts `seq` outside the window (the first number is 1).
GNF_INLINE bool outside_by_top(const ReplayWindow& w, uint32_t size, uint64_t seq) {
  const uint64_t top = replay_top(w);
  return seq == 0 || (seq <= top && top - seq >= size);
}

// The ring word of `seq`'s block.
template <typename Window>
GNF_INLINE auto& word_of(Window& w, uint32_t size, uint64_t seq) {
  return w.words[(seq / kReplayBitsPerWord) % replay_ring_words(size)];
}

}  // namespace replay_detail

GNF_INLINE ReplayVerdict replay_check(const ReplayWindow& w, uint32_t size, uint64_t seq) {
  using namespace replay_detail;
  if (outside_by_top(w, size, seq)) return ReplayVerdict::OutsideWindow;
  unsigned long long with_bit;
  return judge(load_sys<MemoryOrder::Relaxed>(&word_of(w, size, seq)), seq, with_bit);
}

// Records an authenticated packet: sets its bit and raises the window's top when it is the highest
// yet. Anything but New leaves the window as it was.
GNF_INLINE ReplayVerdict replay_accept(ReplayWindow& w, uint32_t size, uint64_t seq) {
  using namespace replay_detail;
  if (outside_by_top(w, size, seq)) return ReplayVerdict::OutsideWindow;
  unsigned long long* word = &word_of(w, size, seq);
  unsigned long long held = load_sys<MemoryOrder::Relaxed>(word), with_bit = 0;
  for (;;) {
    const ReplayVerdict verdict = judge(held, seq, with_bit);
    if (verdict != ReplayVerdict::New) return verdict;
    if (compare_exchange_relaxed(word, held, with_bit)) break;
  }
  unsigned long long top = replay_top(w);
  while (seq > top && !compare_exchange_relaxed(&w.top, top, seq)) {
  }
  return ReplayVerdict::New;
}

}  // namespace gnf::nf
