// A pool of fixed-size packet slots (the driver's "mbufs"), as a trivially copyable ref that host
// and device code use alike: the CPU driver's planes and the GPU driver's blocks run the same pool.
//
// The slots are `count` of `slot_size` bytes from `base`; the free ones are a stack of slot indices
// in memory the owner allocated beside them (driver/queue_rings.h), in whatever domain the driver
// runs against. Each rx ring gets a pool of its own and only one thread, or one thread block, ever
// touches it, so allocation is a pop and release a push, with no locks. A slot is named by its
// address (what descriptors carry); the pool knows which addresses are its own, so a slot sent out
// on another port's tx ring finds its way home on completion.
#pragma once
#include <cassert>
#include <cstdint>
#include <type_traits>

#include "util/hd.h"

namespace gnf::mem {

struct SlotStackRef {
  uint32_t* free_stack;  // indices of free slots; [0, top) are free, the top one goes out first
  uint32_t top;
  uint32_t slot_size;
  uint32_t count;
  uint64_t base;

  GNF_INLINE bool owns(uint64_t addr) const { return addr >= base && addr < base + uint64_t(count) * slot_size; }
  GNF_INLINE uint64_t address_of(uint32_t index) const { return base + uint64_t(index) * slot_size; }

  // The slot the (k+1)-th allocation from now would return (k < top): threads of a block take
  // slots k = 0, 1, ... at once, then one of them pops them all.
  GNF_INLINE uint64_t peek(uint32_t k) const { return address_of(free_stack[top - 1 - k]); }
  GNF_INLINE void pop(uint32_t n) { top -= n; }

  // A free slot's address, or 0 when the pool is empty (the caller counts and copes; never aborts).
  GNF_INLINE uint64_t alloc() {
    if (top == 0) return 0;
    return address_of(free_stack[--top]);
  }

  // Returns a slot; the address must be one of this pool's slot starts. On the GPU the threads of
  // the pool's block may release at once (an atomic on `top`), never while others allocate.
  GNF_INLINE void release(uint64_t addr) {
    // A pool spans less than 4 GiB (QueueRings refuses more): a 32-bit division, not the GPU's
    // much longer 64-bit one, on every slot that comes back.
    const uint32_t index = uint32_t(addr - base) / slot_size;
#if defined(__CUDA_ARCH__)
    free_stack[atomicAdd(&top, 1u)] = index;
#else
    free_stack[top++] = index;
#endif
  }
};
static_assert(std::is_trivially_copyable_v<SlotStackRef>);

// Returns a slot to whichever of `pools` owns it.
GNF_INLINE void release_slot(SlotStackRef* pools, uint32_t pool_count, uint64_t addr) {
  for (uint32_t i = 0; i < pool_count; ++i) {
    if (pools[i].owns(addr)) {
      pools[i].release(addr);
      return;
    }
  }
  assert(!"slot returned to a plane that does not own it");
}

}  // namespace gnf::mem
