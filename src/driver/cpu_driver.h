// The cpu and staged paths' driver: one plane per queue (driver/plane.h), dealt over CPU threads
// that poll them. On the cpu path the NF chain runs inside those threads; on the staged path each
// plane hands its bursts to the GPU (driver/gpu_nf_runner.h) and goes on receiving.
#pragma once
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "driver/driver.h"
#include "driver/plane.h"

namespace gnf::driver {

class CpuDriver final : public Driver {
 public:
  // `chain` is the host view on the cpu path, the device view with `nf_on_gpu` (staged); it must
  // outlive the driver.
  CpuDriver(const std::vector<nic::Port*>& ports, uint16_t queues, const DriverOptions& options,
            const nf::NfChainView& chain, bool nf_on_gpu);
  ~CpuDriver() override;

  // Thread t polls planes t, t + threads, ...
  void start(uint32_t threads) override;
  uint32_t max_threads() const override { return uint32_t(planes_.size()); }
  // Joins the threads, which first flush their planes.
  void stop() override;
  void stop_gpu() override;

  DriverTotals counters() const override;
  std::vector<HostFrame> take_host_frames() override;
  std::vector<SlotAudit> audit() const override;
  std::vector<ThreadCpu> thread_cpu() const override { return thread_cpu_; }

 private:
  void poll_loop(std::vector<Plane*> planes, size_t index);

  std::vector<std::unique_ptr<Plane>> planes_;
  std::atomic<bool> running_{false};
  std::vector<std::thread> threads_;
  std::vector<ThreadCpu> thread_cpu_;  // written by each thread as it exits
};

}  // namespace gnf::driver
