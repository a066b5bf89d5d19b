// How a GPU agent block moves frames' bytes (nic/gpu_agent.cu, its only includer): the first warp
// lists a round's frames as 16-byte pieces (Shared), every thread of the block copies them, and an
// rx round reads the FIFO's bytes beside the records (the window). Device code only.
#pragma once
#include <cstdint>

namespace gnf::nic {

namespace {

constexpr uint32_t kFullMask = 0xFFFFFFFFu;
constexpr uint32_t kWarp = 32;
// A block per queue and direction: its first warp runs that direction's DMA state machine (up to
// 32 frames a round, a lane each); every thread of the block copies the frames' bytes, so that a
// round of 1500 B frames keeps 32 KiB of PCIe reads in flight, not a warp's 4 KiB.
constexpr uint32_t kThreads = 256;
// 16-byte pieces each thread has in flight while it copies.
constexpr uint32_t kUnroll = 8;
// The most an rx round reads of its FIFO's bytes while the first warp reads the records: four
// 16-byte pieces per thread of the other warps (nine 1500 B frames, or every frame of a round of
// small ones), into shared memory.
constexpr uint32_t kWindowThreads = kThreads - kWarp;
constexpr uint32_t kWindowUnroll = 4;
constexpr uint32_t kWindowPieces = kWindowThreads * kWindowUnroll;
constexpr uint32_t kWindowBytes = kWindowPieces * 16;

// What the first warp hands the block to copy: per lane a frame (`pieces` 16-byte pieces from
// src to dst), and where each frame's pieces start in the block's list of them. Also the round's
// words for the whole block: stop, and the rx FIFO's bytes that the block reads before it knows
// the frames (rx_round): `window` bytes from free-running position window_start, of which frame k
// begins at window_offset[k] (kNotInWindow after the round's frames).
struct Shared {
  const uint8_t* src[kWarp];
  uint8_t* dst[kWarp];
  uint32_t first_piece[kWarp + 1];
  uint32_t window_offset[kWarp];
  const uint8_t* fifo_bytes;  // the rx FIFO's byte ring
  uint32_t fifo_byte_mask;
  uint32_t window_start;
  uint32_t window;       // bytes read
  uint32_t window_used;  // of which the frames' are in place (window, or 0: see rx_round)
  uint4 window_data[kWindowPieces];
  // What round r's poll found (kStopFlag, kRxWork, kTxWork), in round_flags[r % 2]: the first warp
  // writes the next round's while the others may still read this one's (a round with nothing to
  // move has no barrier after that read).
  uint32_t round_flags[2];
  uint32_t tx_from_host;  // the queue's tx ring and buffers are in pinned host memory
};
constexpr uint32_t kNotInWindow = 0xFFFFFFFFu;
constexpr uint32_t kStopFlag = 1, kRxWork = 2, kTxWork = 4;

__device__ __forceinline__ uint32_t lanes_below(uint32_t lane) { return (1u << lane) - 1; }

// A 16-byte piece across PCIe from pinned host memory: volatile, never a cached copy of a line
// the host has written since.
__device__ __forceinline__ uint4 load_host(const uint8_t* p) { return __ldcv(reinterpret_cast<const uint4*>(p)); }
// From GPU memory another kernel wrote: through L2, never a stale L1 line of a recycled buffer.
__device__ __forceinline__ uint4 load_gpu(const uint8_t* p) { return __ldcg(reinterpret_cast<const uint4*>(p)); }

__device__ uint32_t warp_sum(uint32_t v) {
  for (uint32_t o = 16; o; o /= 2) v += __shfl_xor_sync(kFullMask, v, o);
  return v;
}

// The last k < kWarp with keys[k] <= x, or 0 when there is none (keys nondecreasing): which frame a
// piece belongs to, by where the frames' pieces or bytes begin.
__device__ __forceinline__ uint32_t last_at_most(const uint32_t* keys, uint32_t x) {
  uint32_t lo = 0, hi = kWarp;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (keys[mid] <= x) lo = mid;
    else hi = mid;
  }
  return lo;
}

// First warp: lane k's frame has `pieces` pieces; where each frame's pieces start in the list.
__device__ void list_pieces(Shared& s, uint32_t pieces, uint32_t lane) {
  uint32_t first = pieces;
  for (uint32_t o = 1; o < kWarp; o *= 2) {  // inclusive scan
    const uint32_t v = __shfl_up_sync(kFullMask, first, o);
    if (lane >= o) first += v;
  }
  s.first_piece[lane + 1] = first;
  if (lane == 0) s.first_piece[0] = 0;
}

// Every thread, between two barriers: copies the listed frames as one list of pieces the block
// walks together, so that the loads of consecutive threads are consecutive bytes and kUnroll of
// them are in flight per thread. Pieces the window held (`window` bytes, rx only) are in place
// already.
template <bool kFromHost>
__device__ void copy_pieces(const Shared& s, uint32_t window) {
  const uint32_t total = s.first_piece[kWarp];
  for (uint32_t base = 0; base < total; base += kThreads * kUnroll) {
    uint4 v[kUnroll];
    uint8_t* to[kUnroll];
#pragma unroll
    for (uint32_t u = 0; u < kUnroll; ++u) {
      const uint32_t g = base + u * kThreads + threadIdx.x;
      to[u] = nullptr;
      if (g < total) {
        const uint32_t lo = last_at_most(s.first_piece, g);  // first_piece[lo] <= g < first_piece[lo + 1]
        const uint32_t offset = (g - s.first_piece[lo]) * 16;
        if (window != 0 && s.window_offset[lo] + offset < window) continue;
        v[u] = kFromHost ? load_host(s.src[lo] + offset) : load_gpu(s.src[lo] + offset);
        to[u] = s.dst[lo] + offset;
      }
    }
#pragma unroll
    for (uint32_t u = 0; u < kUnroll; ++u)
      if (to[u]) *reinterpret_cast<uint4*>(to[u]) = v[u];
  }
}

// Every thread but the first warp's, as an rx round begins: its pieces of the window (Shared), read
// across PCIe while the first warp reads the records that say whose they are. The frames are
// contiguous in the FIFO from where the last round's took off: reading the bytes with the records
// saves a round trip per frame (the records first, then the bytes, took two). Not the first warp,
// and not into registers: with every warp loading (session 23 run 1) the round was no shorter,
// and the pieces held across the decision took the block from 128 to 173 registers.
__device__ void load_window(Shared& s) {
  if (threadIdx.x < kWarp) return;
  uint4 v[kWindowUnroll];
#pragma unroll
  for (uint32_t u = 0; u < kWindowUnroll; ++u) {
    const uint32_t at = (u * kWindowThreads + threadIdx.x - kWarp) * 16;
    if (at < s.window) v[u] = load_host(s.fifo_bytes + ((s.window_start + at) & s.fifo_byte_mask));
  }
#pragma unroll
  for (uint32_t u = 0; u < kWindowUnroll; ++u) {
    const uint32_t g = u * kWindowThreads + threadIdx.x - kWarp;
    if (g * 16 < s.window) s.window_data[g] = v[u];
  }
}

// Every thread, after the first warp listed the frames: stores the window's pieces into the
// buffers of the frames they belong to (none: a gap the FIFO skipped, or a frame not taken).
__device__ void store_window(const Shared& s) {
  for (uint32_t g = threadIdx.x; g * 16 < s.window_used; g += kThreads) {
    const uint32_t at = g * 16;
    const uint32_t lo = last_at_most(s.window_offset, at);
    if (s.window_offset[lo] > at) continue;
    const uint32_t offset = at - s.window_offset[lo];
    if (offset < (s.first_piece[lo + 1] - s.first_piece[lo]) * 16)
      *reinterpret_cast<uint4*>(s.dst[lo] + offset) = s.window_data[g];
  }
}

}  // namespace

}  // namespace gnf::nic
