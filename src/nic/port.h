// A softnic port: the model of one 82599 port as its driver sees it.
//
// The wire side takes frames from a Source at line rate into the on-NIC rx buffer; the DMA side
// moves them into the buffers of rx descriptors the driver supplied (never advancing RDH onto RDT),
// and sends what the driver queued on tx rings out to a Sink at line rate. A port is driven by
// calling poll() from one NIC-model thread; the driver talks to it only through the register
// block and the rings in memory, exactly as it would to hardware.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nic/dma.h"
#include "nic/pacing.h"
#include "nic/regs.h"
#include "nic/rss.h"
#include "nic/rx_buffer.h"
#include "util/counter.h"
#include "wire/wire.h"

namespace gnf::nic {

inline constexpr uint64_t kLateFrameNs = 10'000;

struct PortOptions {
  std::string name = "port0";
  uint32_t speed_gbps = 10;
  uint16_t rx_queues = 1;
  uint16_t tx_queues = 1;
  uint32_t rx_buffer_bytes = 512 * 1024;
  uint32_t max_frame_bytes = wire::kMaxStdFrameBytes;  // without FCS; larger frames count as oversize
  // 802.3x flow control: when the rx buffer is full the link partner is paused instead of the
  // frame being dropped. Lossless; meant for replaying a pcap exactly.
  bool flow_control = false;
  // The on-NIC transmit packet buffer (160 KiB on the 82599): how far ahead of the line the NIC may
  // fetch descriptors and packets. It lets the NIC keep the line busy between two polls.
  uint32_t tx_buffer_bytes = 160 * 1024;
  // Rx write-back batching (RXDCTL.WTHRESH, with the interrupt throttle timer as the bound on
  // waiting): write-backs are pushed out once this many are pending or the oldest waited this long.
  // Host-memory DMA is immediate, so this matters where DMA goes through a copy engine.
  uint32_t rx_writeback_batch = 32;
  uint64_t rx_writeback_timeout_ns = 4000;
  std::array<uint8_t, 6> mac = {0x02, 0, 0, 0, 0, 0};
  RssConfig rss;
  // Calibration (`gnf bench --calibrate`): frames that pass the MAC checks, RSS and the rx buffer
  // go straight onto this port's own tx line, paced as transmitted frames are, instead of into rx
  // rings. No DMA, no driver: what the sink measures is the wire and the NIC model alone, the
  // floor under every latency a data path adds. The rx side then drives the tx line too, so
  // poll_tx() has nothing to do.
  bool loopback = false;
};

// Modelled on the 82599's statistics registers (section 8.2.3.23); names in comments. `T` is
// Counter for the port's live counters, uint64_t for a snapshot of them (util/counter.h).
template <typename T>
struct PortCountersOf {
  T rx_good_packets{};       // GPRC: delivered into an rx descriptor
  T rx_good_bytes{};         // GORC (with FCS)
  T tx_good_packets{};       // GPTC
  T tx_good_bytes{};         // GOTC (with FCS)
  T rx_missed{};             // MPC: dropped because the rx buffer was full
  T rx_runt{};               // RUC: shorter than 64 B with FCS
  T rx_oversize{};           // ROC: longer than max_frame_bytes
  T rx_no_desc_drop{};       // sum of QPRDC: dropped for a DROP_EN queue with no descriptor
  T rx_no_desc_stall{};      // RNBC: a non-DROP_EN queue had no descriptor, the port waited
  T rx_buffer_too_small{};   // frame larger than the descriptor's buffer (no scatter in gnf)
  T rx_queue_disabled{};     // frame hashed to a queue that is not enabled
  T tx_bad_desc{};           // a tx descriptor gnf's NIC model cannot send (no EOP, bad length)
  // Not an 82599 counter, a model diagnostic: descriptors the driver overwrote before the NIC sent
  // them, seen as TDT moving further than the ring had room for (only a driver without tx
  // completions, tx_completion = "none", can do that). Those packets are never sent.
  T tx_overrun{};
  T rx_pause{};              // flow control: arrivals held back because the buffer was full
  // The model's own health, not an 82599 counter: how late (after its last bit arrived) the NIC
  // model took each frame off the wire. A model that keeps up takes every frame within a poll;
  // frames taken more than kLateFrameNs late mean the wire outran the model, and latencies and
  // rates measured then describe the model, not the data path.
  T wire_lag_max_ns{};
  T wire_lag_sum_ns{};
  T wire_late_frames{};
  // Transmit rounds that sent something (each: one descriptor fetch, one packet read).
  T tx_rounds{};

  // Named as the JSON summary names them, drops in the per-second stats line's order. The
  // summary's nic_model reports the diagnostics as a maximum, a mean and a count.
  static constexpr CounterField<PortCountersOf, T> kFields[] = {
      {"rx_packets", &PortCountersOf::rx_good_packets, Role::ToDriver},
      {"rx_bytes", &PortCountersOf::rx_good_bytes},
      {"tx_packets", &PortCountersOf::tx_good_packets, Role::Sent},
      {"tx_bytes", &PortCountersOf::tx_good_bytes},
      {"rx_missed", &PortCountersOf::rx_missed, Role::NicRxDrop, Loss::NicRxBuffer, "missed"},
      {"rx_no_desc", &PortCountersOf::rx_no_desc_drop, Role::NicRxDrop, Loss::RxRing, "no_desc"},
      {"rx_runt", &PortCountersOf::rx_runt, Role::NicRxDrop, Loss::Other, "runt"},
      {"rx_oversize", &PortCountersOf::rx_oversize, Role::NicRxDrop, Loss::Other, "oversize"},
      {"rx_buffer_too_small", &PortCountersOf::rx_buffer_too_small, Role::NicRxDrop, Loss::Other},
      {"rx_queue_disabled", &PortCountersOf::rx_queue_disabled, Role::NicRxDrop, Loss::Other},
      {"tx_bad_desc", &PortCountersOf::tx_bad_desc, Role::NicTxDrop, Loss::Other},
      {"tx_overrun", &PortCountersOf::tx_overrun, Role::NicTxDrop, Loss::TxRing},
      {"rx_no_desc_stalls", &PortCountersOf::rx_no_desc_stall},
      {"rx_pause", &PortCountersOf::rx_pause},
      {"wire_lag_max_ns", &PortCountersOf::wire_lag_max_ns, Role::Diagnostic},
      {"wire_lag_sum_ns", &PortCountersOf::wire_lag_sum_ns, Role::Diagnostic},
      {"wire_late_frames", &PortCountersOf::wire_late_frames, Role::Diagnostic},
      {"tx_rounds", &PortCountersOf::tx_rounds, Role::Diagnostic},
  };
};
static_assert(std::size(PortCountersOf<Counter>::kFields) * sizeof(Counter) == sizeof(PortCountersOf<Counter>),
              "every port counter has a line in the table");
using PortCounterValues = PortCountersOf<uint64_t>;

struct PortCounters : PortCountersOf<Counter> {
  std::array<Counter, kMaxQueues> rx_queue_packets;  // QPRC
  std::array<Counter, kMaxQueues> rx_queue_drops;    // QPRDC
  std::array<Counter, kMaxQueues> tx_queue_packets;  // QPTC
};

class Port {
 public:
  // `source` and `sink` may be null (a port with nothing attached on that side). The rx and tx
  // sides each have a DMA engine of their own (they may run on different threads); they may be
  // the same engine when one thread polls the whole port. `regs`, when given, is where the register
  // block lives (pinned host memory for a GPU driver) and must outlive the port; otherwise the port
  // allocates it in host memory.
  Port(const PortOptions& options, DmaEngine& rx_dma, DmaEngine& tx_dma, wire::Source* source, wire::Sink* sink,
       PortRegs* regs = nullptr);
  Port(const PortOptions& options, DmaEngine& dma, wire::Source* source, wire::Sink* sink)
      : Port(options, dma, dma, source, sink) {}

  PortRegs& regs() { return *regs_; }
  const PortOptions& options() const { return options_; }
  const PortCounters& counters() const { return counters_; }

  // Starts the wire clocks and the source at `now_ns`.
  void start(uint64_t now_ns);
  // The clock a running dataplane polls with (CLOCK_MONOTONIC ns). With one, a frame's first bit
  // leaves no earlier than when its packet read returned, however long the DMA took; without
  // (tests that set the time themselves), the round's time stands for both.
  void set_clock(uint64_t (*clock_ns)()) { clock_ns_ = clock_ns; }
  // One round of NIC work at time `now_ns`. Returns true if anything moved.
  bool poll(uint64_t now_ns) {
    bool moved = poll_rx(now_ns);
    return poll_tx(now_ns) || moved;
  }
  // The two directions share no state, so two NIC-model threads may run them side by side:
  // wire in + rx DMA ...
  bool poll_rx(uint64_t now_ns);
  // ... and tx DMA + wire out.
  bool poll_tx(uint64_t now_ns);
  // Takes no more frames from the source (Ctrl-C, end of a timed run). Thread-safe.
  void stop_source() { source_stopped_.store(true, std::memory_order_relaxed); }

  // No more frames will come from the wire and the rx buffer is empty.
  bool rx_drained() const { return rx_drained_.load(std::memory_order_acquire); }
  // Every tx ring is empty (TDH == TDT on all enabled queues).
  bool tx_drained() const;

 private:
  uint64_t (*clock_ns_)() = nullptr;
  bool admit_arrivals(uint64_t now_ps);
  void record_lag(uint64_t lag_ps);
  bool dma_to_rx_rings();
  bool loop_back(uint64_t now_ps);
  bool transmit(uint64_t now_ps);
  bool next_source_frame();

  PortOptions options_;
  DmaEngine& rx_dma_;
  DmaEngine& tx_dma_;
  uint32_t rx_writebacks_pending_ = 0;
  uint64_t rx_writeback_oldest_ns_ = 0;
  wire::Source* source_;
  wire::Sink* sink_;
  std::unique_ptr<PortRegs> own_regs_;
  PortRegs* regs_;
  std::unique_ptr<ToeplitzTable> rss_table_;
  RxPacketBuffer rx_buffer_;
  LineClock rx_line_;
  LineClock tx_line_;
  PortCounters counters_;

  // The frame the wire is currently delivering, with its computed arrival (last bit) time.
  wire::Frame pending_{};
  bool have_pending_ = false;
  uint64_t pending_arrival_ps_ = 0;
  bool source_done_ = false;
  std::atomic<bool> source_stopped_{false};
  std::atomic<bool> rx_drained_{false};

  // Descriptor prefetch (the 82599 fetches rx descriptors in bursts): buffer addresses of the
  // descriptors [first, first + count) of one queue, fetched in one DMA read.
  static constexpr uint32_t kDescBurst = 128;
  // Tx descriptors fetched per queue per transmit round.
  static constexpr uint32_t kTxDescBurst = 256;
  struct RxDescCache {
    uint32_t first = 0;
    uint32_t count = 0;
    uint64_t pkt_addr[kDescBurst];
  };
  uint64_t rx_buffer_address(uint16_t queue, uint32_t rdh, uint32_t rdt, uint32_t entries, uint64_t ring_base);
  std::vector<RxDescCache> rx_desc_cache_;

  bool rx_stalled_ = false;  // counts RNBC once per stall, not once per poll
  bool pause_counted_ = false;
  uint64_t tx_window_ps_ = 0;
  std::vector<uint8_t> tx_staging_;
  uint32_t tx_next_queue_ = 0;
  // One transmit round's work, kept between rounds so the hot path does not allocate.
  struct TxFetch {
    uint32_t queue;
    uint32_t tdh;
    uint32_t count;       // descriptors fetched
    uint32_t entries;
    uint64_t ring_base;
    uint32_t first_desc;  // index into tx_descs_
    uint32_t taken;       // of those, how many this round sends (or counts as bad)
  };
  std::vector<TxFetch> tx_fetches_;
  std::vector<DescRead> desc_reads_;
  std::vector<PacketRead> packet_reads_;
  std::vector<ixgbe_adv_tx_desc> tx_descs_;
  std::vector<uint8_t> tx_sendable_;
  std::array<uint32_t, kMaxQueues> last_tdt_{};  // per tx queue, the tail seen last round
};

}  // namespace gnf::nic
