// AES's tables in shared memory as 32 copies, one per bank, each lane of a warp reading its own
// (device code only): the table layout of the GPU's own cipher kernels (gnf-esp-bench; aes.h's
// rounds take it as they take AesTables).
//
// Why: a round is 16 lookups, and a warp's 32 lanes look up 32 unrelated bytes. With one copy of
// a table they fall into 32 banks at random, a few ways deep, and shared memory serves them one
// way at a time: in the GCM kernel on the H100 the L1/shared pipe was 94 % busy and the limit.
// Entry x of a table is at word 32·x + lane here (lane = the thread's index in its warp), so a
// warp's 32 lookups are in 32 different banks whatever the bytes: one pass each, always (the
// layout of Tezcan, "Optimized AES on GPUs", 2021). Lookups are also loads from an address a lane
// computes as its column's base plus byte·128, which the compiler turns into one byte permute and
// one multiply-add: half the integer work of indexing a flat table. Measured in
// bench/results/2026-11-25-session20: AES-128 counter mode alone 1.6 → 2.9 Tbit/s.
//
// The price: 32 KiB for te, 32 KiB for td and 8 KiB for the inverse S-box (four bytes to a word),
// 72 KiB a block; 3 blocks fit on an H100 SM (227 KiB), more than gnf-esp-bench's kernels run
// with (2 of 256 threads: their registers, bench/esp/gpu.cu). It leaks no more and no less than
// aes.h's tables: the bank a lane reads is fixed, the word in it is not.
#pragma once
#include <cstdint>

#include "nf/ipsec/aes.h"

namespace gnf::nf {

inline constexpr uint32_t kAesLaneCopies = 32;
inline constexpr uint32_t kAesLaneTableBytes = 256 * 4 * kAesLaneCopies;                          // te or td
inline constexpr uint32_t kAesLaneTablesBytes = 2 * kAesLaneTableBytes + 64 * 4 * kAesLaneCopies;  // + Si

struct AesLaneTables {
  uint32_t te_at, td_at, inv_at;  // this lane's column of each table, as shared-memory addresses

  __device__ uint32_t enc(uint32_t word, uint32_t k) const { return load(te_at + (byte(word, k) << 7)); }
  __device__ uint32_t dec(uint32_t word, uint32_t k) const { return load(td_at + (byte(word, k) << 7)); }
  __device__ uint32_t inv(uint32_t word, uint32_t k) const {
    const uint32_t b = byte(word, k);
    return __byte_perm(load(inv_at + ((b >> 2) << 7)), 0, 0x4440 | (b & 3));
  }

 private:
  __device__ static uint32_t byte(uint32_t word, uint32_t k) { return __byte_perm(word, 0, 0x4440 | k); }
  // Not volatile: the tables do not change after aes_lane_tables' barrier, so the compiler may
  // schedule and merge these loads as it would plain ones.
  __device__ static uint32_t load(uint32_t at) {
    uint32_t v;
    asm("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(at));
    return v;
  }
};

// Every thread of a 1-D block (blockDim.x a multiple of 32) calls it at the kernel's start, before
// any thread returns: copies `tables` (global memory) into `shared`, kAesLaneTablesBytes of the
// kernel's dynamic shared memory, 16-byte aligned, and returns the calling lane's view. The barrier
// makes every thread's stores visible to the whole block before the first lookup.
__device__ inline AesLaneTables aes_lane_tables(const AesTables& tables, void* shared) {
  uint32_t* to = static_cast<uint32_t*>(shared);
  const uint32_t words = 256 * kAesLaneCopies;
  for (uint32_t i = threadIdx.x; i < words; i += blockDim.x) {
    to[i] = tables.te[i / kAesLaneCopies];
    to[words + i] = tables.td[i / kAesLaneCopies];
  }
  const uint32_t* inv = reinterpret_cast<const uint32_t*>(tables.inv_sbox);  // four bytes to a word
  for (uint32_t i = threadIdx.x; i < 64 * kAesLaneCopies; i += blockDim.x) to[2 * words + i] = inv[i / kAesLaneCopies];
  __syncthreads();
  const uint32_t base = uint32_t(__cvta_generic_to_shared(shared)) + 4 * (threadIdx.x % 32);
  return AesLaneTables{base, base + kAesLaneTableBytes, base + 2 * kAesLaneTableBytes};
}

}  // namespace gnf::nf
