// The NF chain on the GPU: a thread block runs it over packets it holds in memory all its threads
// reach (device code only). Elements run a thread per packet, except tiled ones (nf/tile.cuh), which
// run a packet on as many lanes as the block has threads per packet, so that a burst smaller than
// the block still keeps every thread busy.
#pragma once
#include <cstdint>

#include "nf/chain.h"
#include "nf/tile.cuh"

namespace gnf::nf {

// Packets refs[first + k * stride], k < count: a block's share of a burst.
struct BlockPackets {
  PacketRef* refs;
  uint32_t first, stride, count;
  __device__ PacketRef& operator[](uint32_t k) const { return refs[first + k * stride]; }
};

// How many of a burst's `packets` are number `rank` of `ways` when packet i goes to i % ways.
__device__ inline uint32_t share_of(uint32_t packets, uint32_t rank, uint32_t ways) {
  return packets > rank ? (packets - rank + ways - 1) / ways : 0;
}

namespace chain_detail {

#define GNF_NF_TILED_KIND(Kind, name, View, configure) \
  case NfKind::Kind: return TiledNf<View>::value;
__host__ __device__ inline bool tiled(NfKind kind) {
  switch (kind) { GNF_NF_KINDS(GNF_NF_TILED_KIND) }
  return false;
}
#undef GNF_NF_TILED_KIND

// A template, so that the call is discarded for views without process_tile.
template <class View>
__device__ void process_view_on_tile(const View& view, PacketRef& packet, NfCounters& counters, const Tile& tile) {
  if constexpr (TiledNf<View>::value) view.process_tile(packet, counters, tile);
}

#define GNF_NF_PROCESS_TILE(Kind, name, View, configure)                                                 \
  case NfKind::Kind:                                                                                    \
    if constexpr (holds(kKinds, NfKind::Kind)) process_view_on_tile(element.name, packet, counters, tile); \
    break;
template <NfKindSet kKinds>
__device__ inline void process_on_tile(const NfElement& element, PacketRef& packet, NfCounters& counters,
                                       const Tile& tile) {
  switch (element.kind) { GNF_NF_KINDS(GNF_NF_PROCESS_TILE) }
}
#undef GNF_NF_PROCESS_TILE

// A thread's counters go into the block's totals (shared memory) once per packet, non-zero ones only.
__device__ inline void add_counters(const NfCounters& local, unsigned long long* row) {
  for (int k = 0; k < NfCounters::kMax; ++k)
    if (local.value[k]) atomicAdd(&row[k], local.value[k]);
}

// Elements [first, end), none tiled, a thread per packet. Only those rows of the thread's counters
// are zeroed: they live in local memory, and zeroing all of them cost the bypass kernel a third of
// its rate (session 9).
template <NfKindSet kKinds>
__device__ inline void run_per_thread(const NfChainView& chain, uint32_t first, uint32_t end, const BlockPackets& packets,
                                      unsigned long long* totals) {
  for (uint32_t k = threadIdx.x; k < packets.count; k += blockDim.x) {
    PacketRef r = packets[k];
    NfCounters local[kMaxChainLength];
    for (uint32_t e = first; e < end; ++e)
      for (int c = 0; c < NfCounters::kMax; ++c) local[e].value[c] = 0;
    PacketBatch one{&r, 1};
    for (uint32_t e = first; e < end; ++e) process_element<kKinds>(chain.elements[e], one, local[e]);
    packets[k] = r;
    for (uint32_t e = first; e < end; ++e) add_counters(local[e], totals + e * NfCounters::kMax);
  }
}

// One tiled element: tiles of the widest power of two (up to a warp) that gives every packet a tile.
template <NfKindSet kKinds>
__device__ inline void run_tiled(const NfElement& element, const BlockPackets& packets, unsigned long long* row) {
  uint32_t size = 1;
  while (size < 32 && size * 2 * packets.count <= blockDim.x) size *= 2;
  const Tile tile = tile_of(size);
  for (uint32_t k = threadIdx.x / size; k < packets.count; k += blockDim.x / size) {
    PacketRef r = packets[k];
    NfCounters local{};
    process_on_tile<kKinds>(element, r, local, tile);
    if (tile.leader()) {
      packets[k] = r;
      add_counters(local, row);
    }
  }
}

}  // namespace chain_detail

// Whether an element of the chain runs on tiles: a kernel launch gives its blocks fewer packets then.
__host__ __device__ inline bool has_tiled(const NfChainView& chain) {
  for (uint32_t e = 0; e < chain.count; ++e)
    if (chain_detail::tiled(chain.elements[e].kind)) return true;
  return false;
}

// Every thread of the block calls it, with the same arguments; blockDim.x is a multiple of 32.
// `totals` holds kMaxChainLength rows of NfCounters::kMax (shared memory). The caller orders the
// packets' refs before the call and after it (a barrier or the hand-over that brought them).
// Built for the NF kinds `kKinds` (nf/chain.h): the chain must hold no other.
template <NfKindSet kKinds = kAllNfKinds>
__device__ inline void run_chain_on_block(const NfChainView& chain, const BlockPackets& packets,
                                          unsigned long long* totals) {
  for (uint32_t e = 0; e < chain.count;) {
    if (chain_detail::tiled(chain.elements[e].kind)) {
      // A tile's packet may be one another thread ran the elements before on, and the next
      // elements may run on another thread again.
      __syncthreads();
      chain_detail::run_tiled<kKinds>(chain.elements[e], packets, totals + e * NfCounters::kMax);
      __syncthreads();
      ++e;
      continue;
    }
    uint32_t end = e + 1;
    while (end < chain.count && !chain_detail::tiled(chain.elements[end].kind)) ++end;
    chain_detail::run_per_thread<kKinds>(chain, e, end, packets, totals);
    e = end;
  }
}

}  // namespace gnf::nf
