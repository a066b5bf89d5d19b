#include "nic/port.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nic {

namespace {

// Room in the on-NIC buffer is taken from the port's count in pieces of this size (a few frames):
// one atomic operation per piece, not per frame, and handed back at the end of every poll.
constexpr int64_t kBufferPiece = 4096;

// Which group each of a generator's flows belongs to: the group of the queue its frames hash to.
std::vector<uint32_t> group_of_flows(const wire::Generator& generator, const RssConfig& rss, uint32_t groups,
                                     std::vector<RssResult>& flow_rss) {
  const ToeplitzTable table(rss.key);
  const uint32_t flows = generator.options().flows;
  std::vector<uint32_t> group(flows);
  flow_rss.resize(flows);
  for (uint32_t f = 0; f < flows; ++f) {
    const std::vector<uint8_t> frame = generator.sample_frame(f);
    flow_rss[f] = rss_classify(rss, table, frame.data(), uint32_t(frame.size()));
    group[f] = flow_rss[f].queue % groups;
  }
  return group;
}

}  // namespace

bool Port::splittable(const PortOptions& options, const wire::Source* source, const wire::Generator* generator) {
  return !source || (generator == source && !options.flow_control && generator->splittable());
}

Port::Port(const PortOptions& options, wire::Source* source, wire::Sink* sink)
    : Port(options, PortWiring{source, nullptr, {sink}, DmaSide::Host, mem::Domain::Host}) {}

Port::Port(const PortOptions& options, PortWiring wiring, PortRegs* regs)
    : options_(options),
      own_regs_(regs ? nullptr : std::make_unique<PortRegs>()),
      regs_(regs ? regs : own_regs_.get()),
      ps_per_byte_(line_ps_per_byte(options.speed_gbps)),
      tx_window_ps_(uint64_t(options.tx_buffer_bytes) * line_ps_per_byte(options.speed_gbps)),
      rx_buffer_free_(options.rx_buffer_bytes) {
  std::memset(static_cast<void*>(regs_), 0, sizeof(PortRegs));
  const uint32_t groups = uint32_t(wiring.sinks.size());
  if (groups == 0) throw UserError(fmt::format("port '{}': no queue group", options.name));
  // What busy groups keep of the buffer between polls is at most 1/16 of it in all: overload is
  // lost at the port's buffer as before, ~6 % early at worst. One group has nobody to share with.
  rx_buffer_hold_ = groups > 1 ? std::min<int64_t>(kBufferPiece, options.rx_buffer_bytes / (16 * groups)) : 0;
  if (groups > 1 && !splittable(options, wiring.source, wiring.generator))
    throw UserError(fmt::format("port '{}': its wire cannot be split over {} NIC-model threads", options.name, groups));
  for (uint32_t g = 0; g < groups; ++g)
    groups_.push_back(std::make_unique<QueueGroup>(*this, g, groups, wiring.sinks[g], wiring.dma, wiring.fifo_domain));
  if (!wiring.source) return;
  if (!splittable(options, wiring.source, wiring.generator)) {
    groups_[0]->set_wire(SourceWire(*wiring.source, options.speed_gbps, options_.rss));
    return;
  }
  // A generator, split over the groups by the queue each flow hashes to (one shard of every flow
  // for one group): each group's thread writes its own frames straight into its queues' FIFOs.
  wire::Generator& generator = *wiring.generator;
  const std::vector<uint32_t> group_of_flow = group_of_flows(generator, options_.rss, groups, flow_rss_);
  group_flows_.assign(groups, 0);
  for (uint32_t g : group_of_flow) ++group_flows_[g];
  std::vector<wire::GeneratorShard*> shards = generator.split(group_of_flow, groups);
  for (uint32_t g = 0; g < groups; ++g)
    groups_[g]->set_wire(ShardWire(generator, *shards[g], options.speed_gbps, flow_rss_));
}

void Port::start(uint64_t now_ns) {
  tx_line_free_ps_.store(now_ns * 1000, std::memory_order_relaxed);
  for (auto& g : groups_) g->start(now_ns);
}

void Port::stop_source() {
  for (auto& g : groups_) g->stop_source();
}

bool Port::rx_drained() const {
  for (const auto& g : groups_)
    if (!g->rx_drained()) return false;
  return true;
}

bool Port::tx_drained() const {
  for (const auto& g : groups_)
    if (!g->tx_drained()) return false;
  return true;
}

bool Port::take_rx_buffer(int64_t& credit, uint32_t need) {
  const int64_t want = std::max<int64_t>(kBufferPiece, int64_t(need) - credit);
  const int64_t before = rx_buffer_free_.fetch_sub(want, std::memory_order_relaxed);
  const int64_t got = std::clamp<int64_t>(before, 0, want);
  if (got != want) rx_buffer_free_.fetch_add(want - got, std::memory_order_relaxed);
  credit += got;
  return credit >= int64_t(need);
}

void Port::free_rx_buffer(int64_t bytes) {
  if (bytes) rx_buffer_free_.fetch_add(bytes, std::memory_order_relaxed);
}

uint64_t Port::reserve_line(uint64_t wire_ps, uint64_t earliest_ps) {
  uint64_t free_at = tx_line_free_ps_.load(std::memory_order_relaxed);
  uint64_t start;
  do {
    start = std::max(free_at, earliest_ps);
  } while (!tx_line_free_ps_.compare_exchange_weak(free_at, start + wire_ps, std::memory_order_relaxed));
  return start;
}

void Port::add_up(PortCounterSnapshot& counters, DmaCounterValues& dma) const {
  for (const auto& g : groups_) {
    add_port_counters(counters, g->counters());
    add_counters(dma, g->dma_counters());
  }
  if (agent_counters_) agent_counters_(counters, dma);
}

PortCounterSnapshot Port::counters() const {
  PortCounterSnapshot counters;
  DmaCounterValues dma;
  add_up(counters, dma);
  return counters;
}

DmaCounterValues Port::dma_counters() const {
  PortCounterSnapshot counters;
  DmaCounterValues dma;
  add_up(counters, dma);
  return dma;
}

}  // namespace gnf::nic
