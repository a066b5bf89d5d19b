// The GPU driver of the `bypass` path: a persistent CUDA kernel drives softnic ports directly.
//
// Rings, packet slots and slot pools live in GPU memory; the ports' registers live in pinned host
// memory mapped into the GPU (as a NIC's BAR would be). One thread block per plane q polls rx
// queue q of every port, runs the NF chain (a thread per packet), fills tx queue q of the output
// port in arrival order, recycles slots on tx completion and writes RDT/TDT. Frames an NF sends
// to the host are copied into an exception ring in pinned memory. After start() no CPU thread
// touches a packet: the only CPU work is the NIC model itself and the slow path's exceptions.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "driver/driver.h"
#include "driver/gpu_clock.h"
#include "driver/options.h"
#include "driver/plane.h"
#include "nf/chain.h"
#include "nic/port.h"

namespace gnf::driver {

// Counters each block publishes into pinned memory (one writer: the block's thread 0).
struct GpuPlaneCounters : DriverCounterValues {
  uint64_t polls;  // loop iterations, a liveness signal
  uint64_t timed_polls;  // the iterations phase_ns covers (PhaseLaps: a sample)
  uint64_t phase_ns[kGpuDriverPhaseCount];  // where the iterations' time went (kGpuDriverPhaseNames)
  uint64_t nf[nf::kMaxChainLength][nf::NfCounters::kMax];
};

class GpuBypass final : public Driver {
 public:
  // Entries of each plane's exception ring (frames for the host's slow path).
  static constexpr uint32_t kExceptionRingEntries = 256;
  // Entries of each plane's arrival ring (one_way = rx), 32 bytes each: the slow path empties it
  // every 100 µs, which leaves room for 600 Mpps per plane.
  static constexpr uint32_t kArrivalRingEntries = 65536;

  // The ports' register blocks must be in pinned host memory (nic::Port with external registers).
  // options.burst is at most kMaxBurst (a block's threads) and smaller than options.rx_ring_size
  // (a burst polls that many descriptors ahead): ctl::validate() checks both before app builds a
  // path::Pipeline, which makes one of these.
  GpuBypass(const std::vector<nic::Port*>& ports, uint16_t queues, const DriverOptions& options,
            const nf::NfChainView& chain);
  ~GpuBypass() override;
  GpuBypass(const GpuBypass&) = delete;
  GpuBypass& operator=(const GpuBypass&) = delete;

  // Launches the persistent kernel (one block per plane; `threads` is not used: no CPU thread
  // polls) on a stream of its own. After a stop() it carries on where it stopped: the rings, pools
  // and counters are kept in memory.
  void start(uint32_t threads) override;
  uint32_t max_threads() const override { return 0; }
  // Raises the exit flag and waits for the kernel to finish, which first hands every pending
  // tail to the NIC; packets still in rx rings wait there for the next start(). Checks for errors.
  // Idempotent.
  void stop() override;
  void pause() override { stop(); }
  void resume() override { start(0); }
  bool running() const;
  // With a one-way mode: launches the GPU clock's kernel, calibrates and keeps it calibrated. The
  // timings the kernel takes before that use an offset of 0.
  void start_clock() override;
  std::optional<GpuClockStats> clock_stats() const override;
  // Ends the GPU clock's kernel (one-way modes), which runs across stop() and start().
  void stop_gpu() override;

  // Live counters (pinned memory the kernel writes), summed over planes.
  DriverTotals counters() const override;
  // Frames waiting in the exception rings, taken out (any thread, one at a time).
  std::vector<HostFrame> take_host_frames() override;
  std::vector<GpuArrival> take_arrivals() override;
  std::vector<SlotAudit> audit() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint32_t planes_ = 0;
};

// Registers for a port in pinned host memory, so GPU threads can write tails. Null without CUDA.
nic::PortRegs* alloc_pinned_port_regs();
void free_pinned_port_regs(nic::PortRegs* regs);

}  // namespace gnf::driver
