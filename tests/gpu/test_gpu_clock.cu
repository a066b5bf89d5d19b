// The GPU clock: a GPU time put on the host's clock lies where the host saw it happen, and
// tracking keeps it there.
#include <cuda_runtime.h>
#include <cuda/atomic>

#include <chrono>
#include <cstdio>
#include <thread>

#include "driver/gpu_clock.h"
#include "driver/gpu_timer.cuh"
#include "gpu_test.h"
#include "mem/block.h"
#include "util/clock.h"
#include "util/cuda_check.h"

using namespace gnf;

namespace {

// What a bypass kernel does to stamp a time: the global timer plus the published offset.
__global__ void read_host_time(const int64_t* offset, uint64_t* out) {
  *out = driver::host_time_ns(gnf::global_timer_ns(), offset);
}

// Host time of a GPU read, bracketed by the host's times around its launch and completion.
struct Bracket {
  uint64_t before, gpu, after;
};

Bracket bracket(const driver::GpuClock& clock, cudaStream_t stream, uint64_t* out) {
  Bracket b;
  b.before = now_ns();
  read_host_time<<<1, 1, 0, stream>>>(clock.device_offset(), out);
  GNF_CUDA_CHECK_LAUNCH();
  GNF_CUDA_CHECK(cudaStreamSynchronize(stream));
  b.after = now_ns();
  b.gpu = *out;
  return b;
}

}  // namespace

TEST(GpuClock, AGpuTimeOnTheHostClockFallsWhereTheHostSawItHappen) {
  GNF_REQUIRE_GPU();
  // Before the clock: freeing memory waits for every kernel, the clock's spinning one included.
  mem::Block out(mem::Domain::HostPinned, sizeof(uint64_t));
  driver::GpuClock clock;
  const driver::GpuClockStats s = clock.stats();
  std::printf("GPU clock: offset %lld ns, uncertainty %llu ns, timer step %llu ns\n", (long long)s.offset_ns,
              (unsigned long long)s.uncertainty_ns, (unsigned long long)s.timer_step_ns);
  EXPECT_EQ(s.calibrations, 1u);
  EXPECT_GT(s.timer_step_ns, 0u);
  EXPECT_LE(s.timer_step_ns, 1'000u);
  EXPECT_LT(s.uncertainty_ns, 5'000u);  // a PCIe round trip, halved

  cudaStream_t stream;
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int64_t slack = int64_t(s.uncertainty_ns + s.timer_step_ns);
  for (int i = 0; i < 50; ++i) {
    const Bracket b = bracket(clock, stream, reinterpret_cast<uint64_t*>(out.data()));
    EXPECT_GE(int64_t(b.gpu), int64_t(b.before) - slack) << "round " << i;
    EXPECT_LE(int64_t(b.gpu), int64_t(b.after) + slack) << "round " << i;
  }
  GNF_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GpuClock, TrackingRecalibratesAndTheOffsetHoldsStill) {
  GNF_REQUIRE_GPU();
  driver::GpuClock clock;
  clock.start_tracking();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  clock.stop_tracking();
  const driver::GpuClockStats s = clock.stats();
  std::printf("GPU clock after 300 ms: %llu calibrations, drift %lld ns, worst uncertainty %llu ns\n",
              (unsigned long long)s.calibrations, (long long)s.drift_ns, (unsigned long long)s.worst_uncertainty_ns);
  EXPECT_GE(s.calibrations, 10u);
  // Two oscillators a few ppm apart drift about a microsecond in 300 ms; more means a bad offset.
  EXPECT_LT(std::llabs(s.drift_ns), 20'000);
  EXPECT_LT(s.worst_uncertainty_ns, 50'000u);
}
