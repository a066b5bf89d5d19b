// The GPU's global timer on the host's clock, through the offset a GpuClock (gpu_clock.h) keeps
// current in GPU memory. Device code only.
#pragma once
#include <cstdint>

#include "sync/ordering.h"
#include "util/gpu_timer.cuh"

namespace gnf::driver {

// host ns = GPU ns + *host_minus_gpu_ns; the offset moves while the clock tracks: read it relaxed.
__device__ __forceinline__ uint64_t host_time_ns(uint64_t gpu_ns, const int64_t* host_minus_gpu_ns) {
  return gpu_ns + load_gpu<MemoryOrder::Relaxed>(host_minus_gpu_ns);
}

}  // namespace gnf::driver
