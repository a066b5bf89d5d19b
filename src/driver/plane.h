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

#include "driver/gpu_nf_runner.h"
#include "driver/options.h"
#include "driver/queue_rings.h"
#include "nf/chain.h"
#include "nic/port.h"
#include "util/counter.h"

namespace gnf::driver {

// What a driver counts, per plane. `T` is Counter for a CPU plane's live counters, uint64_t for
// what the GPU driver publishes (gpu_bypass.h, in this order: bypass::Stat) and for snapshots.
template <typename T>
struct DriverCountersOf {
  T rx_packets{};        // taken from rx rings
  T tx_packets{};        // queued on tx rings
  T nf_drops{};          // verdict Drop
  T to_host{};           // verdict ToHost, handed to the exception queue
  T to_host_overflow{};  // ToHost while the exception queue was full (dropped)
  T tx_ring_full{};      // forwarded, but the tx ring had no room (dropped, like rte_eth_tx_burst's rest)
  T bad_out_port{};      // an NF named a port that does not exist (dropped)
  T alloc_failures{};    // an rx burst stopped because the pool had no slot to refill with
  T tail_writes{};       // RDT + TDT register writes (each one a PCIe write on hardware)
  // The GPU as a one-way sink (bypass, one_way = rx): frames it took in, and those of them it could
  // not note because its arrival ring was full (lost to the measurement).
  T consumed{};
  T unrecorded{};

  // Named as the JSON summary's driver object names them, in the per-second stats line's order.
  static constexpr CounterField<DriverCountersOf, T> kFields[] = {
      {"rx_packets", &DriverCountersOf::rx_packets, Role::FromNic},
      {"tx_packets", &DriverCountersOf::tx_packets, Role::ToNic},
      {"nf_drops", &DriverCountersOf::nf_drops, Role::DriverEnd, Loss::NfDrop, "nf_drop"},
      {"to_host", &DriverCountersOf::to_host, Role::DriverEnd, Loss::ToHost, "to_host"},
      {"to_host_overflow", &DriverCountersOf::to_host_overflow, Role::DriverEnd, Loss::ToHost},
      {"tx_ring_full", &DriverCountersOf::tx_ring_full, Role::DriverEnd, Loss::TxRing, "tx_full"},
      {"bad_out_port", &DriverCountersOf::bad_out_port, Role::DriverEnd, Loss::Other},
      {"alloc_failures", &DriverCountersOf::alloc_failures, Role::Count, Loss::None, "alloc_fail"},
      {"tail_writes", &DriverCountersOf::tail_writes},
      {"gpu_sink", &DriverCountersOf::consumed, Role::DriverEnd},
      {"gpu_sink_unrecorded", &DriverCountersOf::unrecorded, Role::Count, Loss::Other},
  };
};
static_assert(std::size(DriverCountersOf<Counter>::kFields) * sizeof(Counter) == sizeof(DriverCountersOf<Counter>),
              "every driver counter has a line in the table");
using DriverCounterValues = DriverCountersOf<uint64_t>;

struct PlaneCounters : DriverCountersOf<Counter> {
  std::array<std::array<Counter, nf::NfCounters::kMax>, nf::kMaxChainLength> nf;
};

// A frame on its way to the host's slow path (copied out, so its slot is freed at once).
struct HostFrame {
  uint16_t port;
  std::vector<uint8_t> bytes;
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
  // Staged path: stops the GPU runner's persistent kernel, if any. Every plane's must be stopped
  // before any plane frees memory: freeing waits for the whole device.
  void stop_gpu();

  const PlaneCounters& counters() const { return counters_; }
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
  PlaneCounters counters_;

  std::mutex host_mutex_;  // the exception queue is the slow path; a lock is fine there
  std::deque<HostFrame> host_frames_;
};

}  // namespace gnf::driver
