// A running data path: softnic ports with their wires, the memory, the driver planes and the NF
// chain, and the threads that run them. The cpu path lives here; the GPU paths (staged, bypass)
// plug in as other ways to run the planes over the same ports.
//
// Thread roles (reported separately, since the NIC model's cost is not the driver's):
//  - NIC model threads: poll softnic ports (wire in, DMA, wire out) — the "hardware", and with it
//    the wire: generators and sinks run inside the threads of the ports they are attached to;
//  - driver threads: each owns one or more planes (rx queue q and tx queue q of every port); on
//    the cpu path the NF chain runs inside them.
// The calibrate "path" has no planes: every port loops its rx buffer back to its own tx line.
#pragma once
#include <atomic>
#include <deque>
#include <mutex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ctl/config.h"
#include "ctl/netlink_sync.h"
#include "ctl/slow_path.h"
#include "driver/host_tx.h"
#include "driver/gpu_bypass.h"
#include "driver/plane.h"
#include "nf/chain.h"
#include "nic/gpu_agent.h"
#include "nic/port.h"
#include "wire/generator.h"
#include "wire/link.h"
#include "wire/measure.h"
#include "wire/pcap_sink.h"

namespace gnf::path {

// A port's counters (nic/port.h, its table names them) and what else the summary says of it.
struct PortStats : nic::PortCounterValues {
  std::string name;
  uint64_t source_frames = 0, source_malformed = 0;
  nic::DmaCounterValues dma;
  std::vector<uint64_t> rx_queue_packets, rx_queue_drops;  // QPRC, QPRDC per queue
  std::optional<wire::LinkCounters> link;  // a port attached to a Linux interface: what went over it
  uint32_t queue_groups = 1;  // NIC-model threads the port's queues are dealt over
};

// The driver's counters over every plane (driver/plane.h, its table names them).
struct DriverStats : driver::DriverCounterValues {
  // Frames the slow path put on a port's wire itself (replies, errors, held packets): they count
  // among the ports' tx_packets but were never offered by a source.
  uint64_t host_tx = 0;
};

struct NfStats {
  std::string name;
  std::vector<std::pair<std::string, uint64_t>> counters;
};

struct Snapshot {
  uint64_t time_ns = 0;
  std::vector<PortStats> ports;
  DriverStats driver;
  std::vector<NfStats> nfs;
  // The router's slow path (ctl/slow_path.h), when the chain has an l3fwd.
  std::vector<std::pair<std::string, uint64_t>> slow_path;
  // [netlink]: what the sync took from the kernel (ctl/netlink_sync.h).
  std::vector<std::pair<std::string, uint64_t>> netlink;
  // How often the GPU's persistent loops went round (per block, on average): the bypass driver's
  // and the GPU agent's. A diagnostic: a loop's round time bounds the latency it adds.
  uint64_t gpu_driver_polls = 0;
  nic::GpuAgent::Loops gpu_agent;

  // Every frame a source produced is accounted for: dropped at the NIC under a named cause,
  // dropped or punted by the driver/NF under a named cause, sent on a wire, or still in flight.
  uint64_t offered() const;
  uint64_t accounted() const;
  // No frame is in an rx ring, the driver or a tx ring: the ports handed the driver as many as it
  // took, it ended or queued each one it took, and the ports took each one queued off the tx rings.
  bool rings_and_driver_empty() const;
};

class Pipeline {
 public:
  // Builds everything the config describes; throws gnf::UserError on what cannot be built.
  explicit Pipeline(const ctl::Config& config);
  ~Pipeline();

  void start();
  // Starts as start() does, and makes every generator and measuring sink count the measured
  // window as well: frames sent in [start + warmup_ns, start + warmup_ns + window_ns).
  void start(uint64_t warmup_ns, uint64_t window_ns);
  // When start() started the wires (CLOCK_MONOTONIC ns); 0 before.
  uint64_t start_ns() const { return start_ns_; }
  // Asks every source to stop (Ctrl-C, end of a timed run); in-flight packets still drain.
  void stop_sources();
  // True once every source is exhausted and every packet has left or been counted as dropped.
  bool drained() const;
  // Stops the threads and closes the wires. Idempotent. Throws UserError, once everything has
  // stopped and every sink has been finished, if a sink could not write its file.
  void stop();

  Snapshot snapshot() const;
  // Only after stop(): where every slot is, per plane.
  std::vector<driver::SlotAudit> audit() const;
  // Per port: what its sink measured (stamped frames: latency, loss, reordering); with
  // driver.one_way = "rx" one more, last: what the GPU measured as the sink.
  std::vector<wire::MeasureReport> measurements() const;
  // With driver.one_way set: how the GPU's clock was calibrated against the host's.
  std::optional<driver::GpuClockStats> gpu_clock() const;
  // Frames sent per flow by all generators together (indexed by flow id), for loss accounting.
  std::vector<uint64_t> generated_per_flow() const;
  // Frames the NFs sent to the host (the slow path) since the last call: from the planes' exception
  // queues, or the bypass path's exception rings. Any thread.
  std::vector<driver::HostFrame> take_host_frames();
  // Only after stop(), with a measured window: frames the generators sent inside it, per flow
  // and per second of the window.
  std::vector<uint64_t> generated_in_window_per_flow() const;
  std::vector<uint64_t> generated_in_window_per_second() const;
  // Every generator has sent its whole schedule (any thread; true when there is none).
  bool generators_finished() const;
  uint64_t host_frames() const { return host_frames_.load(); }

  // The bypass path's GPU driver alone: stop() it (rx rings keep what arrives, up to their size)
  // and start() it again, carrying on where it stopped. Throws UserError on other paths.
  void pause_driver();
  void resume_driver();

  // Per thread, by role ("nic" or "driver"); complete after stop(). Poll-mode threads use their
  // whole core (cpu_s ~ wall time), so busy_s counts only the rounds that moved packets: the
  // time the work took, from which packets per busy core-second follow.
  struct ThreadCpu {
    std::string role;
    double cpu_s;
    double busy_s;
  };
  std::vector<ThreadCpu> thread_cpu() const;

  const ctl::Config& config() const { return config_; }
  // The Linux interface port `port` is attached to, or null.
  const wire::Link* link(size_t port) const { return links_[port]; }
  uint32_t driver_thread_count() const { return uint32_t(driver_threads_.size()); }
  uint32_t nic_thread_count() const { return uint32_t(nic_threads_.size()); }

 private:
  // A NIC-model thread's share: one direction of a queue group of a port.
  struct NicWork {
    nic::QueueGroup* group;
    bool rx;
  };
  void nic_loop(std::vector<NicWork> work, size_t index);
  // How many queue groups port `spec` gets: one per NIC-model thread (at most one per queue) if
  // its wire can be split, else one.
  uint32_t queue_groups(const ctl::PortSpec& spec, const wire::Source* source) const;
  void driver_loop(std::vector<driver::Plane*> planes, size_t index);
  // Takes the frames the NFs sent to the host (GPU exception rings or the planes' queues) to the
  // router's slow path, or without a router into host_queue_ (bypass); and the GPU sink's arrivals
  // (one_way = rx) into gpu_sink_.
  void slow_path_loop();
  // With an l3fwd in the chain: the ports' host tx queues and the slow path over its router.
  void make_slow_path(uint16_t host_queue);

  ctl::Config config_;
  std::unique_ptr<nf::NfChain> chain_;
  std::vector<std::unique_ptr<wire::Source>> sources_;  // per port; may be null
  std::vector<wire::Link*> links_;  // per port: its source and sink when it has a link, else null
  std::vector<wire::Generator*> generators_;
  std::vector<std::unique_ptr<wire::PcapSink>> pcap_sinks_;
  // Per port, one measuring sink per queue group: a flow's frames all leave through one group.
  std::vector<std::vector<std::unique_ptr<wire::MeasuringSink>>> sinks_;
  std::unique_ptr<wire::MeasuringSink> gpu_sink_;  // one_way = rx; the slow path's thread feeds it
  // Register blocks in pinned host memory (bypass path); declared before the ports, which use them.
  struct PinnedRegs {
    PinnedRegs() : regs(driver::alloc_pinned_port_regs()) {}
    ~PinnedRegs() { driver::free_pinned_port_regs(regs); }
    PinnedRegs(const PinnedRegs&) = delete;
    PinnedRegs& operator=(const PinnedRegs&) = delete;
    nic::PortRegs* regs;
  };
  std::vector<std::unique_ptr<PinnedRegs>> pinned_regs_;
  std::vector<std::unique_ptr<nic::Port>> ports_;
  std::vector<std::unique_ptr<driver::Plane>> planes_;   // cpu path
  std::unique_ptr<driver::GpuBypass> bypass_;            // bypass path
  uint32_t planes_count_ = 0;                            // the bypass driver's blocks
  std::unique_ptr<nic::GpuAgent> agent_;                 // the NIC's DMA for rings in GPU memory (bypass)

  std::atomic<bool> running_{false};
  std::atomic<uint64_t> host_frames_{0};
  std::mutex host_mutex_;
  std::deque<driver::HostFrame> host_queue_;  // the newest kHostQueueDepth frames from the GPU
  static constexpr size_t kHostQueueDepth = 1024;
  std::vector<std::unique_ptr<driver::HostTxQueue>> host_tx_;  // per port, with a slow path
  std::unique_ptr<ctl::SlowPath> slow_path_;
  std::unique_ptr<ctl::NetlinkSync> netlink_;
  mutable std::mutex slow_path_mutex_;  // the slow path's thread against snapshot()
  std::atomic<uint64_t> host_tx_frames_{0};
  std::thread slow_path_thread_;
  std::atomic<bool> slow_path_running_{false};
  std::vector<std::thread> nic_threads_;
  std::vector<ThreadCpu> nic_cpu_;     // written by each thread as it exits
  std::vector<ThreadCpu> driver_cpu_;
  std::vector<std::thread> driver_threads_;
  uint64_t start_ns_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace gnf::path
