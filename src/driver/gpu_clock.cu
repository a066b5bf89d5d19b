#include "driver/gpu_clock.h"

#include <cuda/atomic>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "driver/gpu_timer.cuh"
#include "mem/block.h"
#include "util/clock.h"
#include "util/cuda_check.h"
#include "util/error.h"
#include "util/sys_atomic.cuh"

namespace gnf::driver {

namespace {

// Request and answer words on cache lines of their own: the host writes one, the GPU the other.
struct alignas(128) Mailbox {
  uint32_t request;  // a sequence number, or kStop
  uint32_t pad0;
  int64_t offset_to_publish;
  alignas(128) uint32_t answer;  // the request answered
  uint32_t pad1;
  uint64_t gpu_ns;               // the timer when it was answered
  uint64_t timer_step_ns;
};

constexpr uint32_t kStop = 0xFFFFFFFFu;
constexpr uint32_t kTimerStepSamples = 1000;

__global__ void clock_answer_kernel(Mailbox* box, int64_t* device_offset) {
  // The timer's step, as this GPU shows it (some update it every microsecond, some every 32 ns).
  uint64_t step = ~uint64_t(0), last = global_timer_ns();
  for (uint32_t seen = 0; seen < kTimerStepSamples;) {
    const uint64_t now = global_timer_ns();
    if (now != last) {
      step = min(step, now - last);
      last = now;
      ++seen;
    }
  }
  box->timer_step_ns = step;
  uint32_t answered = 0;
  for (;;) {
    const uint32_t request = load_acquire_sys(&box->request);
    if (request == kStop) break;
    if (request == answered) {
      __nanosleep(64);
      continue;
    }
    const uint64_t now = global_timer_ns();
    // Acquire above orders this read after the request word the host released it with.
    cuda::atomic_ref<int64_t, cuda::thread_scope_device>(*device_offset)
        .store(box->offset_to_publish, cuda::memory_order_relaxed);
    box->gpu_ns = now;
    store_release_sys(&box->answer, request);  // after gpu_ns, for the host's acquire
    answered = request;
  }
}

}  // namespace

struct GpuClock::Impl {
  mem::Block pinned;  // the Mailbox
  mem::Block device;  // the published offset
  Mailbox* box = nullptr;
  cudaStream_t stream = nullptr;
  bool kernel_running = false;
  uint32_t sequence = 0;
  mutable std::mutex mutex;  // guards stats
  GpuClockStats stats;
  int64_t first_offset = 0;
  std::thread tracker;
  std::atomic<bool> tracking{false};

  // One ping: the host's times around the GPU's answer.
  void ping(uint64_t& t0, uint64_t& t1, uint64_t& gpu) {
    const uint32_t seq = ++sequence == kStop ? ++sequence : sequence;
    t0 = now_ns();
    store_release_sys(&box->request, seq);
    const uint64_t give_up = t0 + 1'000'000'000;
    while (load_acquire_sys(&box->answer) != seq) {
      if (now_ns() > give_up) throw std::runtime_error("the GPU clock's kernel did not answer within a second");
    }
    t1 = now_ns();
    gpu = box->gpu_ns;
  }
};

GpuClock::GpuClock() : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.pinned = mem::Block(mem::Domain::HostPinned, sizeof(Mailbox));
  m.device = mem::Block(mem::Domain::Device, sizeof(int64_t));
  m.box = new (m.pinned.data()) Mailbox{};
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
  // On this stream, not the legacy default one, which would wait for every spinning kernel.
  GNF_CUDA_CHECK(cudaMemsetAsync(m.device.data(), 0, sizeof(int64_t), m.stream));
  GNF_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  clock_answer_kernel<<<1, 1, 0, m.stream>>>(m.box, reinterpret_cast<int64_t*>(m.device.data()));
  GNF_CUDA_CHECK_LAUNCH();
  m.kernel_running = true;
  calibrate();
  {
    std::lock_guard lock(m.mutex);
    m.stats.timer_step_ns = m.box->timer_step_ns;  // written before the first answer
  }
}

GpuClock::~GpuClock() {
  Impl& m = *impl_;
  stop_tracking();
  if (m.kernel_running) {
    store_release_sys(&m.box->request, kStop);
    cudaStreamSynchronize(m.stream);
  }
  if (m.stream) cudaStreamDestroy(m.stream);
}

const int64_t* GpuClock::device_offset() const { return reinterpret_cast<const int64_t*>(impl_->device.data()); }

void GpuClock::calibrate() {
  Impl& m = *impl_;
  uint64_t best_rtt = ~uint64_t(0);
  int64_t best_offset = 0;
  for (uint32_t i = 0; i < kPings; ++i) {
    uint64_t t0, t1, gpu;
    m.ping(t0, t1, gpu);
    if (t1 - t0 < best_rtt) {
      best_rtt = t1 - t0;
      best_offset = int64_t(t0 + (t1 - t0) / 2) - int64_t(gpu);
    }
  }
  // One more request carries the offset into GPU memory; its answer says it is there.
  m.box->offset_to_publish = best_offset;
  uint64_t t0, t1, gpu;
  m.ping(t0, t1, gpu);
  std::lock_guard lock(m.mutex);
  if (m.stats.calibrations == 0) m.first_offset = best_offset;
  m.stats.offset_ns = best_offset;
  m.stats.uncertainty_ns = best_rtt / 2;
  m.stats.worst_uncertainty_ns = std::max(m.stats.worst_uncertainty_ns, best_rtt / 2);
  m.stats.drift_ns = best_offset - m.first_offset;
  ++m.stats.calibrations;
}

void GpuClock::start_tracking() {
  Impl& m = *impl_;
  if (m.tracking.exchange(true)) return;
  m.tracker = std::thread([this] {
    try {
      while (impl_->tracking.load()) {
        calibrate();
        std::this_thread::sleep_for(std::chrono::nanoseconds(kTrackingIntervalNs));
      }
    } catch (const std::exception& e) {
      // The offset stays as last calibrated; the stats show when that was.
      std::fprintf(stderr, "gnf: the GPU clock stopped tracking: %s\n", e.what());
    }
  });
}

void GpuClock::stop_tracking() {
  Impl& m = *impl_;
  if (!m.tracking.exchange(false)) return;
  m.tracker.join();
}

GpuClockStats GpuClock::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

}  // namespace gnf::driver
