// The one interface every driver has (ixy's `ixy_device`): start, stop, counters, the frames its
// NFs sent to the host (exceptions), and where every slot is (audit). The cpu and staged paths'
// driver is a set of planes polled by CPU threads (driver/cpu_driver.h); the bypass path's is a
// persistent GPU kernel (driver/gpu_bypass.h). path/ chooses one per path and knows no other.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "driver/gpu_clock.h"
#include "driver/queue_rings.h"
#include "nf/chain.h"
#include "util/counter.h"
#include "util/loop_phases.h"
#include "util/poll_thread.h"
#include "wire/stamp.h"

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

// What a driver counted over all its planes, with its copy of the NF chain's counters.
struct DriverTotals : DriverCounterValues {
  uint64_t nf[nf::kMaxChainLength][nf::NfCounters::kMax] = {};
  // Per element, calls and packets as VPP's `show runtime` counts them: only where the chain runs
  // in CPU planes (runtime_counted), as on the cpu path.
  nf::NfRuntime nf_runtime[nf::kMaxChainLength] = {};
  bool runtime_counted = false;
  // How a GPU driver's persistent loop went round, per block on average, phase by phase
  // (kGpuDriverPhaseNames; nothing on the CPU): a diagnostic, since a loop's round time bounds the
  // latency it adds.
  LoopPhases gpu_loop;
};

// The phases of the bypass driver's round: tx completions, the rx poll, taking the burst's packets
// and refilling their descriptors, the NF chain, placing the burst on tx rings (room, ranks,
// descriptors), ringing doorbells, and the end of the round (idle tails, stop word, counters).
inline constexpr uint32_t kGpuDriverPhaseCount = 7;
inline constexpr const char* kGpuDriverPhaseNames[kGpuDriverPhaseCount] = {
    "reclaim", "poll", "take", "nf", "place", "commit", "round_end"};

// A frame on its way to the host's slow path (copied out, so its slot is freed at once).
struct HostFrame {
  uint16_t port;
  std::vector<uint8_t> bytes;
  nf::HostReason reason = nf::HostReason::Unspecified;  // what the NF that punted it said
};


// A frame the GPU consumed as a one-way sink: its stamp, length, and when the GPU saw it (ns on
// the host's clock).
struct GpuArrival {
  wire::Stamp stamp;
  uint32_t len;
  uint64_t seen_ns;
};

class Driver {
 public:
  virtual ~Driver() = default;

  // Starts polling: a CPU driver on `threads` threads of its own (at least one, at most
  // max_threads()), a GPU driver in its persistent kernel.
  virtual void start(uint32_t threads) = 0;
  // Where the threads start() runs go, in order, and how they wait when nothing arrives.
  void set_threads(PollThreads threads) { threads_ = std::move(threads); }
  // The most threads start() can use (one per plane); 0 for a driver that runs on the GPU.
  virtual uint32_t max_threads() const = 0;
  // Stops polling once every pending tail is handed to the NIC; packets still in rx rings stay
  // there. Idempotent.
  virtual void stop() = 0;
  // Stops and starts again, carrying on where it stopped (rx rings keep what arrives meanwhile, up
  // to their size). Only a driver that keeps its state across runs can; the others throw
  // UserError.
  virtual void pause();
  virtual void resume();

  // One-way timing: starts the GPU clock's kernel, after every other persistent kernel of the path
  // is running (gpu_clock.h says why); and its calibration so far.
  virtual void start_clock() {}
  virtual std::optional<GpuClockStats> clock_stats() const { return std::nullopt; }
  // Ends every kernel the driver still runs (staged runners, the GPU clock): before the path frees
  // any memory, since freeing waits for the whole device. Idempotent.
  virtual void stop_gpu() {}

  // Live counters, summed over planes (any thread).
  virtual DriverTotals counters() const = 0;
  // Frames the NFs sent to the host since the last call, taken out (any thread).
  virtual std::vector<HostFrame> take_host_frames() = 0;
  // one_way = rx: the frames the GPU consumed since the last call (one thread). Frames without a
  // stamp are left out.
  virtual std::vector<GpuArrival> take_arrivals() { return {}; }
  // Only after stop(): where every slot of each plane is.
  virtual std::vector<SlotAudit> audit() const = 0;
  // Its threads' CPU time, complete after stop() (none for a GPU driver).
  virtual std::vector<ThreadCpu> thread_cpu() const { return {}; }

 protected:
  const PollThreads& threads() const { return threads_; }

 private:
  PollThreads threads_;
};

}  // namespace gnf::driver
