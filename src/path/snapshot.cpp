#include "path/snapshot.h"

#include <algorithm>

#include "path/ports.h"

namespace gnf::path {

uint64_t Snapshot::offered() const {
  uint64_t n = 0;
  for (const auto& p : ports) n += p.source_frames;
  return n;
}

uint64_t Snapshot::accounted() const {
  uint64_t n = frames_ended(driver);
  for (const auto& p : ports) n += frames_ended(p);
  // The slow path's own frames ended at the ports but were never offered. It may send more than it
  // was given (a fragmented packet), so they come off the whole count, not off the driver's part.
  return n - std::min(n, driver.host_tx);
}

bool Snapshot::rings_and_driver_empty() const {
  uint64_t to_driver = 0, off_tx_rings = 0;
  for (const auto& p : ports) {
    to_driver += frames(p, Role::ToDriver);
    off_tx_rings += frames(p, Role::Sent) + frames(p, Role::NicTxDrop);
  }
  const uint64_t taken = frames(driver, Role::FromNic), queued = frames(driver, Role::ToNic);
  // The slow path's frames go on the tx rings beside the driver's.
  return to_driver == taken && taken == queued + frames(driver, Role::DriverEnd) &&
         queued + driver.host_tx == off_tx_rings;
}

PortStats port_stats(const Ports& ports, size_t i) {
  const nic::Port& port = ports[i];
  const nic::PortCounterSnapshot c = port.counters();
  PortStats p;
  p.name = port.options().name;
  const wire::SourceCounters source = ports.source_counters(i);
  p.source_frames = source.frames;
  p.source_malformed = source.malformed;
  if (const wire::Link* link = ports.link(i)) p.link = link->link_counters();
  static_cast<nic::PortCounterValues&>(p) = c;
  p.dma = port.dma_counters();
  p.queue_groups = port.group_count();
  for (uint16_t q = 0; q < port.options().rx_queues; ++q) {
    p.rx_queue_packets.push_back(c.rx_queue_packets[q]);
    p.rx_queue_drops.push_back(c.rx_queue_drops[q]);
  }
  for (uint16_t q = 0; q < port.options().tx_queues; ++q) p.tx_queue_packets.push_back(c.tx_queue_packets[q]);
  return p;
}

void add_driver_stats(Snapshot& s, const driver::DriverTotals& totals, const nf::NfChain& chain) {
  add_counters(s.driver, totals);
  s.gpu_driver = totals.gpu_loop;
  for (uint32_t e = 0; e < chain.size(); ++e) {
    NfStats nf{chain.name(e), {}, {}};
    std::vector<std::string> names = chain.counter_names(e);
    for (size_t k = 0; k < names.size(); ++k) nf.counters.emplace_back(names[k], totals.nf[e][k]);
    if (const nf::NfTables* tables = chain.tables(e)) nf.table = tables->table_stats();
    if (totals.runtime_counted) nf.runtime = totals.nf_runtime[e];
    s.nfs.push_back(nf);
  }
}

namespace {

void subtract(std::vector<uint64_t>& values, const std::vector<uint64_t>& baseline) {
  for (size_t i = 0; i < std::min(values.size(), baseline.size()); ++i) values[i] -= baseline[i];
}

void subtract(NamedCounters& values, const NamedCounters& baseline) {
  for (size_t i = 0; i < std::min(values.size(), baseline.size()); ++i) values[i].second -= baseline[i].second;
}

}  // namespace

Snapshot Snapshot::since(const Snapshot& baseline) const {
  Snapshot s = *this;
  for (size_t i = 0; i < std::min(s.ports.size(), baseline.ports.size()); ++i) {
    PortStats& p = s.ports[i];
    const PortStats& b = baseline.ports[i];
    subtract_counters<nic::PortCountersOf>(p, b);
    p.wire_lag_max_ns = ports[i].wire_lag_max_ns;
    subtract_counters<nic::DmaCountersOf>(p.dma, b.dma);
    p.source_frames -= b.source_frames;
    p.source_malformed -= b.source_malformed;
    subtract(p.rx_queue_packets, b.rx_queue_packets);
    subtract(p.rx_queue_drops, b.rx_queue_drops);
    subtract(p.tx_queue_packets, b.tx_queue_packets);
  }
  subtract_counters<driver::DriverCountersOf>(s.driver, baseline.driver);
  s.driver.host_tx -= baseline.driver.host_tx;
  for (size_t e = 0; e < std::min(s.nfs.size(), baseline.nfs.size()); ++e) {
    NfStats& nf = s.nfs[e];
    const NfStats& b = baseline.nfs[e];
    subtract(nf.counters, b.counters);
    if (nf.runtime && b.runtime) {
      nf.runtime->calls -= b.runtime->calls;
      nf.runtime->packets -= b.runtime->packets;
    }
  }
  subtract(s.slow_path, baseline.slow_path);
  subtract(s.netlink, baseline.netlink);
  return s;
}

}  // namespace gnf::path
