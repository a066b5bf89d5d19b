// The GPU driver of the `bypass` path: persistent CUDA kernels drive softnic ports directly.
//
// Rings, packet slots and slot pools live in GPU memory; the ports' registers live in pinned host
// memory mapped into the GPU (as a NIC's BAR would be). One thread block per plane q polls rx
// queue q of every port, runs the NF chain, fills tx queue q of the output port, recycles slots on
// tx completion (head write-back into GPU memory) and writes RDT/TDT. After start() no CPU thread
// touches a packet: the only CPU work is the NIC model itself.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "driver/options.h"
#include "driver/plane.h"
#include "nf/chain.h"
#include "nic/port.h"

namespace gnf::driver {

// Counters each block publishes into pinned memory (one writer: the block's thread 0).
struct GpuPlaneCounters {
  uint64_t rx_packets, tx_packets, nf_drops, to_host, tx_ring_full, bad_out_port, alloc_failures, tail_writes;
  uint64_t polls;  // loop iterations, a liveness signal
  uint64_t nf[nf::kMaxChainLength][nf::NfCounters::kMax];
};

class GpuBypass {
 public:
  // The ports' register blocks must be in pinned host memory (nic::Port with external registers).
  GpuBypass(const std::vector<nic::Port*>& ports, uint16_t queues, const DriverOptions& options,
            const nf::NfChainView& chain);
  ~GpuBypass();
  GpuBypass(const GpuBypass&) = delete;
  GpuBypass& operator=(const GpuBypass&) = delete;

  // Launches the persistent kernel (one block per plane) on a stream of its own.
  void start();
  // Raises the exit flag and waits for the kernel to finish; checks for errors. Idempotent.
  void stop();

  // Live counters (pinned memory the kernel writes), summed over planes.
  GpuPlaneCounters totals() const;
  // Only after stop(): where every slot of each plane is.
  std::vector<SlotAudit> audit() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint32_t planes_ = 0;
};

// Registers for a port in pinned host memory, so GPU threads can write tails. Null without CUDA.
nic::PortRegs* alloc_pinned_port_regs();
void free_pinned_port_regs(nic::PortRegs* regs);

}  // namespace gnf::driver
