#if defined(GNF_HAVE_CUDA)
#include "nf/nids/alert_clock.h"

#include <climits>

#include "mem/block.h"
#include "util/cuda_check.h"
#include "util/gpu_timer.cuh"

namespace gnf::nf {

namespace {

__global__ void read_global_timer(uint64_t* out) { *out = global_timer_ns(); }

}  // namespace

int64_t nids_unix_minus_gpu_timer_ns() {
  constexpr int kLaunches = 16;
  mem::Block word(mem::Domain::HostPinned, sizeof(uint64_t));
  auto* timer = reinterpret_cast<uint64_t*>(word.data());
  // A stream of its own: the legacy default stream would wait for every other stream's kernels.
  cudaStream_t stream;
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int64_t best_round = INT64_MAX, offset = 0;
  for (int i = 0; i < kLaunches; ++i) {
    const int64_t before = int64_t(nids_unix_now_ns());
    read_global_timer<<<1, 1, 0, stream>>>(timer);
    GNF_CUDA_CHECK_LAUNCH();
    GNF_CUDA_CHECK(cudaStreamSynchronize(stream));  // the timer's value is the host's to read after it
    const int64_t after = int64_t(nids_unix_now_ns());
    if (after - before < best_round) {
      best_round = after - before;
      offset = before + best_round / 2 - int64_t(*timer);
    }
  }
  GNF_CUDA_CHECK(cudaStreamDestroy(stream));
  return offset;
}

}  // namespace gnf::nf
#endif
