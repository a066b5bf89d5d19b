// A plane: everything one driver thread owns (the Keio paper's "plane"). Plane q holds rx queue q
// and tx queue q of every port, one slot pool per rx ring, and its own copy of the NF chain's
// counters. No two threads share a plane, so its hot path has no locks and no atomics beyond the
// acquire/release pairs with the NIC. A flow that RSS puts on rx queue q leaves on tx queue q,
// in order.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "driver/driver.h"
#include "driver/gpu_nf_runner.h"
#include "driver/options.h"
#include "driver/queue_rings.h"
#include "nf/chain.h"
#include "nic/port.h"
#include "util/counter.h"

namespace gnf::driver {

struct PlaneCounters : DriverCountersOf<Counter> {
  std::array<std::array<Counter, nf::NfCounters::kMax>, nf::kMaxChainLength> nf;
  // nf::NfRuntime per element, where the chain runs on this plane's thread (not on the GPU).
  std::array<Counter, nf::kMaxChainLength> nf_calls, nf_packets;
};

class Plane {
 public:
  static constexpr size_t kExceptionQueueDepth = 1024;

  // `nf_on_gpu`: the staged path. Rings and slots go into pinned host memory mapped into the GPU,
  // and bursts go to the GPU (gpu_nf_runner.h) while the plane goes on receiving.
  Plane(uint16_t queue, const std::vector<nic::Port*>& ports, const DriverOptions& options,
        const nf::NfChainView& chain, bool nf_on_gpu = false);

  // One pass over every rx ring, the NF chain, the tx rings and the tail registers.
  // Returns whether any packet moved.
  bool poll(uint64_t now_ns);
  // Writes every pending tail and reclaims every finished tx descriptor.
  void flush(uint64_t now_ns);
  // Nothing waits for the plane's thread but new packets: no tail write that tail batching holds
  // back (its timeout is the thread's to keep), no backlog, no burst on the GPU.
  bool quiet() const;
  // Staged path: stops the GPU runner's persistent kernel, if any. Every plane's must be stopped
  // before any plane frees memory: freeing waits for the whole device.
  void stop_gpu();

  const PlaneCounters& counters() const { return counters_; }
  // Whether the NF chain runs on this plane's thread, which then counts its runtime.
  bool runs_chain() const { return !gpu_nf_; }
  uint16_t queue() const { return queue_; }
  // Frames punted to the host since the last call (any thread).
  std::vector<HostFrame> take_host_frames();

  // Only while no thread runs poll().
  SlotAudit audit() const;

 private:
  void dispatch(nf::PacketRef* packets, uint32_t count, uint64_t now_ns);
  // Sends what waits in the backlogs; true while any still waits.
  bool send_backlog(uint64_t now_ns);
  void reclaim_all();

  uint16_t queue_;
  std::vector<nic::Port*> ports_;
  DriverOptions options_;
  const nf::NfChainView& chain_;

  QueueRings rings_;  // every ring and slot of this plane, one allocation

  // Dispatches the bursts the GPU has finished, in order; with `wait_for_one`, waits for the oldest.
  bool complete_gpu_bursts(uint64_t now_ns, bool wait_for_one);

  std::unique_ptr<GpuNfRunner> gpu_nf_;  // staged path only
  std::vector<nf::PacketRef> host_batch_;  // cpu path: the burst being processed
  std::vector<nf::PacketRef*> out_;
  std::vector<std::deque<nf::PacketRef>> backlog_;  // per output port, with tx_full_wait
  std::array<nf::NfCounters, nf::kMaxChainLength> nf_counters_{};
  std::array<nf::NfRuntime, nf::kMaxChainLength> nf_runtime_{};
  PlaneCounters counters_;

  std::mutex host_mutex_;  // the exception queue is the slow path; a lock is fine there
  std::deque<HostFrame> host_frames_;
};

}  // namespace gnf::driver
