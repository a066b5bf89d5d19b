// The staged path's GPU step: the CPU driver receives bursts into pinned host memory mapped into
// the GPU and hands them to this runner, which runs the NF chain on the GPU (one thread per
// packet) while the driver goes on receiving; finished bursts come back in submission order, so a
// flow's packets leave in order. One runner per plane, each on its own stream.
//
// Three ways to get a burst to the GPU (DriverOptions::staged_mode):
//  - ZeroCopy:   one kernel launch per burst, reading and writing the slots in place over PCIe;
//  - Copy:       per burst, the packets are copied into GPU memory (one batch of copies), a kernel
//                runs there, and the packets are copied back: the classic "copy in, kernel, copy
//                out" of GPU packet processing, four crossings of PCIe per packet with the NIC's;
//  - Persistent: a kernel launched once polls a work queue in pinned memory (as NVIDIA's
//                l2fwd-nv does); a burst is posted by a release store and completes by one; no
//                launch per burst. Packets are read in place, as with ZeroCopy.
#pragma once
#include <cstdint>
#include <memory>

#include "driver/options.h"
#include "nf/chain.h"

namespace gnf::driver {

class GpuNfRunner {
 public:
  // Up to `depth` bursts of up to `max_batch` packets in flight. Throws UserError without a GPU.
  GpuNfRunner(StagedMode mode, uint32_t max_batch, uint32_t depth, uint32_t slot_bytes, const nf::NfChainView& chain);
  ~GpuNfRunner();
  GpuNfRunner(const GpuNfRunner&) = delete;
  GpuNfRunner& operator=(const GpuNfRunner&) = delete;

  // Where the driver builds the next burst's packet references (pinned, mapped), or null while
  // `depth` bursts are in flight.
  nf::PacketRef* next_batch();
  // Starts the chain over next_batch()[0, count).
  void submit(uint32_t count);

  // The oldest burst in flight once the GPU is done with it: its references (verdicts and
  // rewritten packets in place) until the next call, with the NFs' counters added to `counters`.
  // With `wait`, blocks until it is done; otherwise returns {nullptr, 0} if it is not yet.
  struct Done {
    nf::PacketRef* refs;
    uint32_t count;
  };
  Done take_done(bool wait, nf::NfCounters* counters);

  uint32_t in_flight() const;
  // Stops the persistent kernel (Persistent mode; started by the first submit()) and waits for
  // it. Bursts still in flight are abandoned. Idempotent.
  void stop();
  // Packets of the bursts in flight, for slot audits (only while no burst completes).
  void for_each_in_flight(void (*visit)(const nf::PacketRef&, void*), void* context) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnf::driver
