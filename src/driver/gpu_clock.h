// The GPU's global timer (%globaltimer, ns) against the host's CLOCK_MONOTONIC, so that a kernel
// can stamp times the host's sinks and generators understand (one-way measurements).
//
// Cristian's method: the host posts a request into pinned memory and spins for the answer; a
// one-thread kernel answers with its timer. The GPU read the timer somewhere inside the host's
// [t0, t1], so host = gpu + offset with offset = (t0 + t1) / 2 - gpu, off by at most
// (t1 - t0) / 2. Of each calibration's pings the one with the shortest round trip counts. Every
// request also carries the latest offset, which the kernel copies into GPU memory for kernels
// to read (a word in GPU memory costs a bypass thread nothing to read; pinned memory would cost
// a PCIe round trip per read).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

namespace gnf::driver {

struct GpuClockStats {
  int64_t offset_ns = 0;           // the latest: host ns = GPU ns + offset
  uint64_t uncertainty_ns = 0;     // of the latest offset: half its round trip
  uint64_t worst_uncertainty_ns = 0;  // over every calibration so far
  int64_t drift_ns = 0;            // latest offset minus the first
  uint64_t calibrations = 0;
  uint64_t timer_step_ns = 0;      // the smallest step the GPU's timer was seen to take
};

class GpuClock {
 public:
  // Pings per calibration, and how often tracking recalibrates.
  static constexpr uint32_t kPings = 32;
  static constexpr uint64_t kTrackingIntervalNs = 10'000'000;

  // Launches the answering kernel on a stream of its own and calibrates once (with `launch_now`;
  // otherwise launch() does, later). Throws without CUDA.
  explicit GpuClock(bool launch_now = true);
  // Launches the kernel and calibrates, if not yet done. A data path starts its own persistent
  // kernels first: seen on the H200, the bypass driver's kernel, launched while this one already
  // spun, never started (gnf hung in the launch); launched after it, both run.
  void launch();
  // Stops tracking and ends the kernel (it spins until told): before any GPU or pinned memory is
  // freed anywhere, since freeing waits for the whole device. The destructor does it too.
  void stop_kernel();
  ~GpuClock();
  GpuClock(const GpuClock&) = delete;
  GpuClock& operator=(const GpuClock&) = delete;

  // In GPU memory: host ns = GPU timer ns + *offset (read it relaxed; it moves while tracking).
  const int64_t* device_offset() const;
  // One calibration; publishes its offset to the GPU. Not while tracking.
  void calibrate();
  // A thread recalibrates every kTrackingIntervalNs until stop_tracking().
  void start_tracking();
  void stop_tracking();
  GpuClockStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnf::driver
