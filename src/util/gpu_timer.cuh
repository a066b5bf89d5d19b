// The GPU's global timer (%globaltimer, ns). Device code only.
#pragma once
#include <cstdint>

namespace gnf {

__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace gnf
