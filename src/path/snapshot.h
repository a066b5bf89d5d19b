// What a running path counted at one moment: its ports', its driver's and its NFs' counters (each
// named by its table: nic/port.h, driver/driver.h, the NFs' own), with what the control plane
// attached to it adds; and the accounting of frames over them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "driver/driver.h"
#include "nf/tables.h"
#include "nic/port.h"
#include "util/loop_phases.h"
#include "wire/link.h"

namespace gnf::path {

class Ports;

// A port's counters (nic/port.h, its table names them) and what else the summary says of it.
struct PortStats : nic::PortCounterValues {
  std::string name;
  uint64_t source_frames = 0, source_malformed = 0;
  nic::DmaCounterValues dma;
  std::vector<uint64_t> rx_queue_packets, rx_queue_drops, tx_queue_packets;  // QPRC, QPRDC, QPTC per queue
  std::optional<wire::LinkCounters> link;  // a port attached to a Linux interface: what went over it
  uint32_t queue_groups = 1;  // NIC-model threads the port's queues are dealt over
};

// The driver's counters over every plane (driver/driver.h, its table names them).
struct DriverStats : driver::DriverCounterValues {
  // Frames the slow path put on a port's wire itself (replies, errors, held packets): they count
  // among the ports' tx_packets but were never offered by a source.
  uint64_t host_tx = 0;
};

struct NfStats {
  std::string name;
  std::vector<std::pair<std::string, uint64_t>> counters;
  std::optional<nf::NfTableStats> table;  // per-entry counters of its tables (an acl's rules)
  std::optional<nf::NfRuntime> runtime;   // where the driver counts it (driver::DriverTotals)
};

using NamedCounters = std::vector<std::pair<std::string, uint64_t>>;

struct Snapshot {
  uint64_t time_ns = 0;
  std::vector<PortStats> ports;
  DriverStats driver;
  std::vector<NfStats> nfs;
  // Filled by the control plane attached to the path (path/host_hooks.h): the router's slow path
  // (ctl/slow_path.h), when the chain has an l3fwd, and [netlink], what the sync took from the
  // kernel (ctl/netlink_sync.h).
  NamedCounters slow_path;
  NamedCounters netlink;
  // How the GPU's persistent loops went round (per block, on average, phase by phase): the bypass
  // driver's and the GPU agent's. A diagnostic: a loop's round time bounds the latency it adds.
  LoopPhases gpu_driver;
  LoopPhases gpu_agent_rx, gpu_agent_tx;  // its rx blocks and its tx blocks

  // Every frame a source produced is accounted for: dropped at the NIC under a named cause,
  // dropped or punted by the driver/NF under a named cause, sent on a wire, or still in flight.
  uint64_t offered() const;
  uint64_t accounted() const;
  // No frame is in an rx ring, the driver or a tx ring: the ports handed the driver as many as it
  // took, it ended or queued each one it took, and the ports took each one queued off the tx rings.
  bool rings_and_driver_empty() const;

  // The counters less those of `baseline`, an earlier snapshot of the same path (a cleared view,
  // as `gnf ctl clear counters` gives: nothing in the data path is written). A maximum (the
  // longest wire lag) and the tables' per-entry counters stay as they are.
  Snapshot since(const Snapshot& baseline) const;
};

// The counters of port `i` and of its wire.
PortStats port_stats(const Ports& ports, size_t i);
// The driver's counters into `s`, its NF counters named by the chain.
void add_driver_stats(Snapshot& s, const driver::DriverTotals& totals, const nf::NfChain& chain);

}  // namespace gnf::path
