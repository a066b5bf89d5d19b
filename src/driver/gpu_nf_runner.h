// The staged path's GPU step: the CPU driver has a burst in pinned host memory mapped into the
// GPU; one kernel launch runs the NF chain over it (one thread per packet, reading and writing the
// slots in place over PCIe, "zero-copy"), and the driver waits for it before transmitting. One
// runner per plane, each with its own stream, so planes never wait on each other's launches.
#pragma once
#include <cstdint>
#include <memory>

#include "nf/chain.h"

namespace gnf::driver {

class GpuNfRunner {
 public:
  explicit GpuNfRunner(uint32_t max_batch);  // throws UserError without a usable GPU
  ~GpuNfRunner();
  GpuNfRunner(const GpuNfRunner&) = delete;
  GpuNfRunner& operator=(const GpuNfRunner&) = delete;

  // Where the driver builds each burst's packet references (pinned, mapped).
  nf::PacketRef* refs();
  // Runs the chain over refs()[0, count) on the GPU and adds the NFs' counters to `counters`.
  void run(const nf::NfChainView& chain, uint32_t count, nf::NfCounters* counters);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnf::driver
