#include "driver/gpu_clock.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>

#include <fmt/format.h>

#include "driver/gpu_timer.cuh"
#include "mem/block.h"
#include "sync/mailbox.h"
#include "util/clock.h"
#include "util/cuda_check.h"
#include "util/cuda_wait.h"
#include "util/error.h"

namespace gnf::driver {

namespace {

// A ping is a request of the mailbox; its payload is the offset to publish, the reply's the timer
// when the ping was answered.
struct ClockRequest {
  int64_t offset_to_publish;
};
struct ClockReply {
  uint64_t gpu_ns;
  uint64_t timer_step_ns;  // written once, before the first answer
};
using ClockMailbox = sync::Mailbox<ClockRequest, ClockReply>;

constexpr uint32_t kTimerStepSamples = 1000;

__global__ void clock_answer_kernel(ClockMailbox* box, int64_t* device_offset) {
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
  box->reply.timer_step_ns = step;
  uint32_t answered = 0;
  for (uint32_t round = 0;; ++round) {
    const uint32_t request = box->latest_posted();
    if (request == answered) {
      // The stop word is read on every 16th idle round only: a ping never waits for that read.
      if (round % 16 == 0 && box->stop_requested()) break;
      __nanosleep(64);
      continue;
    }
    const uint64_t now = global_timer_ns();
    // The acquire above orders this read after the post that released the request.
    store_gpu<MemoryOrder::Relaxed>(device_offset, box->request.offset_to_publish);
    box->reply.gpu_ns = now;
    box->complete(request);  // after gpu_ns, for the host's acquire
    answered = request;
  }
}

}  // namespace

struct GpuClock::Impl {
  mem::Block pinned;  // the mailbox
  mem::Block device;  // the published offset
  ClockMailbox* box = nullptr;
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
    const uint32_t seq = ++sequence;
    t0 = now_ns();
    box->post(seq);
    // The first answer waits for the kernel to start and to have measured its timer's step.
    const uint64_t give_up = t0 + (seq == 1 ? 10'000'000'000ull : 1'000'000'000ull);
    while (!box->has_completed(seq)) {
      if (now_ns() > give_up)
        throw std::runtime_error(fmt::format("the GPU clock's kernel did not answer ping {} in time", seq));
    }
    t1 = now_ns();
    gpu = box->reply.gpu_ns;
  }
};

GpuClock::GpuClock(bool launch_now) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.pinned = mem::Block(mem::Domain::HostPinned, sizeof(ClockMailbox));
  m.device = mem::Block(mem::Domain::Device, sizeof(int64_t));
  m.box = new (m.pinned.data()) ClockMailbox{};
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
  // On this stream, not the legacy default one, which would wait for every spinning kernel.
  GNF_CUDA_CHECK(cudaMemsetAsync(m.device.data(), 0, sizeof(int64_t), m.stream));
  GNF_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  if (launch_now) launch();
}

void GpuClock::launch() {
  Impl& m = *impl_;
  if (m.kernel_running) return;
  clock_answer_kernel<<<1, 1, 0, m.stream>>>(m.box, reinterpret_cast<int64_t*>(m.device.data()));
  GNF_CUDA_CHECK_LAUNCH();
  m.kernel_running = true;
  try {
    calibrate();
  } catch (...) {
    // The kernel must end before any memory is freed: freeing waits for the whole device, and the
    // kernel would never end by itself.
    m.box->request_stop();
    wait_for_stop(m.stream, "the GPU clock's kernel");
    throw;
  }
  {
    std::lock_guard lock(m.mutex);
    m.stats.timer_step_ns = m.box->reply.timer_step_ns;  // written before the first answer
  }
}

GpuClock::~GpuClock() {
  stop_kernel();
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

void GpuClock::stop_kernel() {
  Impl& m = *impl_;
  stop_tracking();
  if (!m.kernel_running) return;
  m.box->request_stop();
  m.kernel_running = false;
  try {
    wait_for_stop(m.stream, "the GPU clock's kernel");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gnf: the GPU clock's kernel: %s\n", e.what());
  }
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
  m.box->request.offset_to_publish = best_offset;
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
