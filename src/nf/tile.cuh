// A tile: 1 to 32 lanes of one warp that run one packet of an NF together (device code only).
//
// An NF whose work per packet is long and divisible (nids' scan of a payload, a cipher's blocks)
// declares `static constexpr bool kTiled = true;` and
//   __device__ void process_tile(PacketRef& p, NfCounters& counters, const Tile& tile) const;
// next to its process(). Every lane of the tile calls it with its own copy of the same packet; the
// leader's copy (lane 0) is what the chain keeps, and only the leader's counters count. The lanes
// talk only through the tile's shuffles, and a tile never waits on another: tiles of one warp may
// run different numbers of packets (nf/chain_device.cuh).
#pragma once
#include <cstdint>
#include <type_traits>

namespace gnf::nf {

struct Tile {
  uint32_t lane;  // 0 .. size - 1
  uint32_t size;  // a power of two, 1 to 32
  unsigned mask;  // the tile's lanes in its warp

  __device__ bool leader() const { return lane == 0; }
  // `value` as lane `from` of the tile holds it.
  template <class T>
  __device__ T from(uint32_t from, T value) const {
    return __shfl_sync(mask, value, int(from), int(size));
  }
  __device__ uint32_t max(uint32_t value) const {
    for (uint32_t d = size / 2; d > 0; d /= 2) value = ::max(value, __shfl_xor_sync(mask, value, int(d), int(size)));
    return value;
  }
  // The XOR of every lane's `value`, in every lane.
  __device__ unsigned long long xor_all(unsigned long long value) const {
    for (uint32_t d = size / 2; d > 0; d /= 2) value ^= __shfl_xor_sync(mask, value, int(d), int(size));
    return value;
  }
  __device__ bool any(bool value) const { return (__ballot_sync(mask, value) & mask) != 0; }
};

// The tile of `size` lanes (a power of two, 1 to 32) that the calling thread is in: its warp's lanes
// taken `size` at a time from lane 0 (blockDim.x a multiple of 32, so a tile never straddles warps).
__device__ inline Tile tile_of(uint32_t size) {
  const uint32_t warp_lane = threadIdx.x % 32, lane = warp_lane % size;
  return Tile{lane, size, size == 32 ? 0xFFFFFFFFu : ((1u << size) - 1) << (warp_lane - lane)};
}

// Whether View runs a packet on a tile (kTiled), else a thread per packet.
template <class View, class = void>
struct TiledNf : std::false_type {};
template <class View>
struct TiledNf<View, std::enable_if_t<View::kTiled>> : std::true_type {};

}  // namespace gnf::nf
