// A softnic port: the model of one 82599 port as its driver sees it.
//
// The wire side takes frames from a source at line rate into the on-NIC rx buffer; the DMA side
// moves them into the buffers of rx descriptors the driver supplied (never advancing RDH onto RDT),
// and sends what the driver queued on tx rings out to a sink at line rate. The driver talks to the
// port only through the register block and the rings in memory, exactly as it would to hardware.
//
// The port's queues are served in queue groups (queue_group.h), each by one NIC-model thread, so
// that the model scales with threads; what the 82599 shares between its queues, the groups share
// here: the on-NIC rx buffer's capacity (512 KiB), the stall of a port whose queue without DROP_EN
// has no descriptor (head-of-line blocking), and the tx line.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nic/dma_counters.h"
#include "nic/pacing.h"
#include "nic/port_counters.h"
#include "nic/queue_group.h"
#include "nic/regs.h"
#include "nic/rss.h"
#include "wire/generator.h"
#include "wire/wire.h"

namespace gnf::nic {

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
  std::array<uint8_t, 6> mac = {0x02, 0, 0, 0, 0, 0};
  RssConfig rss;
  // Calibration (`gnf bench --calibrate`): frames that pass the MAC checks, RSS and the rx buffer
  // go straight onto this port's own tx line, paced as transmitted frames are, instead of into rx
  // rings. No DMA, no driver: what the sink measures is the wire and the NIC model alone, the
  // floor under every latency a data path adds. The rx side then drives the tx line too, so
  // poll_tx() has nothing to do.
  bool loopback = false;
};

// What is attached to a port, and how its queues are served.
struct PortWiring {
  // Frames arriving on the wire, or none. A generator is split over the groups where it can be.
  wire::Source* source = nullptr;
  wire::Generator* generator = nullptr;  // the source, when it is a generator
  // Where transmitted frames go, one sink per queue group (null: nowhere); the number of groups.
  std::vector<wire::Sink*> sinks = {nullptr};
  DmaSide dma = DmaSide::Host;
  // Where the FIFOs between the wire side and the DMA side live: HostPinned for the GPU agent.
  mem::Domain fifo_domain = mem::Domain::Host;
};

class Port {
 public:
  // `regs`, when given, is where the register block lives (pinned host memory for a GPU driver)
  // and must outlive the port; otherwise the port allocates it in host memory. Throws UserError
  // when the wiring asks for several groups and the source cannot be split.
  Port(const PortOptions& options, PortWiring wiring, PortRegs* regs = nullptr);
  // One group, host DMA.
  Port(const PortOptions& options, wire::Source* source, wire::Sink* sink);

  PortRegs& regs() { return *regs_; }
  const PortOptions& options() const { return options_; }
  // The counters of every group added up, with the GPU agent's (set_agent_counters).
  PortCounterSnapshot counters() const;
  DmaCounterValues dma_counters() const;

  // Whether a port with this source and these options can have several queue groups.
  static bool splittable(const PortOptions& options, const wire::Source* source, const wire::Generator* generator);

  uint32_t group_count() const { return uint32_t(groups_.size()); }
  // How many of a split generator's flows group g receives (0 where the port has none): what the
  // NIC-model threads are dealt by.
  uint32_t group_flows(uint32_t g) const { return g < group_flows_.size() ? group_flows_[g] : 0; }
  QueueGroup& group(uint32_t g) { return *groups_[g]; }

  // Starts the wire clocks and the source at `now_ns`.
  void start(uint64_t now_ns);
  // One round of NIC work on a one-group port at time `now_ns`. Returns true if anything moved.
  bool poll(uint64_t now_ns) {
    bool moved = groups_[0]->poll_rx(now_ns);
    return groups_[0]->poll_tx(now_ns) || moved;
  }
  bool poll_rx(uint64_t now_ns) { return groups_[0]->poll_rx(now_ns); }
  bool poll_tx(uint64_t now_ns) { return groups_[0]->poll_tx(now_ns); }
  // Takes no more frames from the source (Ctrl-C, end of a timed run). Thread-safe.
  void stop_source();

  // No more frames will come from the wire and the rx buffer is empty.
  bool rx_drained() const;
  // Every tx ring is empty (TDH == TDT on all enabled queues) and nothing waits to be sent.
  bool tx_drained() const;

  // --- What the queue groups share (queue_group.cpp) ---
  // Takes room for frames in the on-NIC rx buffer, into `credit`, until it holds `need` bytes;
  // false if the buffer has not that much room. Credit is handed back with free_rx_buffer(); a
  // busy group may keep up to rx_buffer_hold() bytes of it between polls.
  bool take_rx_buffer(int64_t& credit, uint32_t need);
  void free_rx_buffer(int64_t bytes);
  int64_t rx_buffer_hold() const { return rx_buffer_hold_; }
  // Room in the buffer no group has taken, as last seen (relaxed: a hint, not a reservation).
  int64_t rx_buffer_unclaimed() const { return rx_buffer_free_.load(std::memory_order_relaxed); }
  // Reserves the tx line for `wire_ps` picoseconds of frames starting no earlier than
  // `earliest_ps`; returns when the first of them starts.
  uint64_t reserve_line(uint64_t wire_ps, uint64_t earliest_ps);
  uint64_t tx_window_ps() const { return tx_window_ps_; }
  uint64_t ps_per_byte() const { return ps_per_byte_; }
  // Head-of-line blocking: queues without DROP_EN that found no descriptor.
  std::atomic<uint32_t>& stalled_queues() { return stalled_queues_; }
  // Adds the GPU agent's counters for this port to a sum of counters() and dma_counters()
  // (gpu_agent.h); null: none.
  using AgentCounters = std::function<void(PortCounterSnapshot&, DmaCounterValues&)>;
  void set_agent_counters(AgentCounters add) { agent_counters_ = std::move(add); }

 private:
  // Every group's counters and the GPU agent's, added to `counters` and `dma`.
  void add_up(PortCounterSnapshot& counters, DmaCounterValues& dma) const;

  PortOptions options_;
  std::unique_ptr<PortRegs> own_regs_;
  PortRegs* regs_;
  uint64_t ps_per_byte_;
  uint64_t tx_window_ps_;
  int64_t rx_buffer_hold_;
  std::vector<RssResult> flow_rss_;  // a split generator's flows
  std::vector<uint32_t> group_flows_;
  std::vector<std::unique_ptr<QueueGroup>> groups_;
  AgentCounters agent_counters_;
  alignas(64) std::atomic<int64_t> rx_buffer_free_;
  alignas(64) std::atomic<uint64_t> tx_line_free_ps_{0};
  alignas(64) std::atomic<uint32_t> stalled_queues_{0};
};

}  // namespace gnf::nic
