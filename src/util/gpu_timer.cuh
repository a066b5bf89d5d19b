// The GPU's global timer (%globaltimer, ns). Device code only.
#pragma once
#include <cstdint>

namespace gnf {

__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread times a loop's rounds phase by phase (util/loop_phases.h): lap() adds the time since
// the last lap to a phase's total. A clock read costs about 120 ns on the H100 (gnf-pcie-probe), a
// tenth of a GPU agent's round at six laps, so only every kEvery-th round is timed.
struct PhaseLaps {
  static constexpr uint64_t kEvery = 16;
  uint64_t last = 0;
  bool on = false;
  // Whether round `round` is timed; if so its clock starts now. The timed round's place among each
  // kEvery moves on by one every kEvery rounds: the loops do some work every 8th or 16th round (a
  // stop word read across PCIe, tx reclaim), and timing only the rounds that do it overstated
  // those phases (session 14 run 1).
  __device__ __forceinline__ bool begin_round(uint64_t round) {
    on = round % kEvery == (round / kEvery) % kEvery;
    if (on) last = global_timer_ns();
    return on;
  }
  template <typename Total>
  __device__ __forceinline__ void lap(Total& total) {
    if (!on) return;
    const uint64_t now = global_timer_ns();
    total += now - last;
    last = now;
  }
};

}  // namespace gnf
