// Waiting for a persistent kernel to end after it was asked to stop: a kernel that does not stop
// would otherwise hang gnf in silence (cudaStreamSynchronize never returns). Only CUDA code.
#pragma once
#if defined(GNF_HAVE_CUDA)
#include <chrono>
#include <cstdio>
#include <thread>

#include "util/cuda_check.h"

namespace gnf {

// Waits until the work on `stream` is done; says on stderr once, after five seconds, that `what`
// has not stopped (and keeps waiting). Throws on a CUDA error.
inline void wait_for_stop(cudaStream_t stream, const char* what) {
  const auto since = std::chrono::steady_clock::now();
  bool reported = false;
  for (;;) {
    const cudaError_t err = cudaStreamQuery(stream);
    if (err == cudaSuccess) return;
    if (err != cudaErrorNotReady) GNF_CUDA_CHECK(err);
    if (!reported && std::chrono::steady_clock::now() - since > std::chrono::seconds(5)) {
      std::fprintf(stderr, "gnf: %s has not stopped 5 s after it was asked to; still waiting\n", what);
      reported = true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace gnf
#endif
