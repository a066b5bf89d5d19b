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

namespace gnf {

// One thread times a loop's round phase by phase (util/loop_phases.h): lap() adds the time since the
// last lap to a phase's total. A clock read per phase.
struct PhaseLaps {
  uint64_t last;
  __device__ __forceinline__ void start() { last = global_timer_ns(); }
  template <typename Total>
  __device__ __forceinline__ void lap(Total& total) {
    const uint64_t now = global_timer_ns();
    total += now - last;
    last = now;
  }
};

}  // namespace gnf
