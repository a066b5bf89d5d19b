// 32-bit words the host and the GPU share (flags, doorbells, sequence numbers and counters in
// pinned memory; descriptor status words in GPU memory): acquire loads and release stores at
// system scope, for host and device code alike. CUDA translation units spell these orders here
// and nowhere else (nic/regs.h builds the NIC register accessors on them).
#pragma once
#include <cuda/atomic>

#include <cstdint>

namespace gnf {

__host__ __device__ __forceinline__ uint32_t load_acquire_sys(const uint32_t* word) {
  return cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*const_cast<uint32_t*>(word))
      .load(cuda::memory_order_acquire);
}

__host__ __device__ __forceinline__ void store_release_sys(uint32_t* word, uint32_t value) {
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*word).store(value, cuda::memory_order_release);
}

// A doorbell rung by one thread for what its whole block wrote: called after __syncthreads(),
// it fences at system scope, which is cumulative over the writes the barrier ordered before it,
// and then stores with release semantics. A release store alone orders only its own thread's writes.
__device__ __forceinline__ void publish_after_barrier(uint32_t* word, uint32_t value) {
  __threadfence_system();
  store_release_sys(word, value);
}

}  // namespace gnf
