#include "path/ports.h"


#include <fmt/format.h>

#include "driver/gpu_bypass.h"
#include "util/error.h"
#include "wire/pcap_source.h"
#include "util/log.h"

namespace gnf::path {

namespace {

std::unique_ptr<wire::Source> make_source(const SourceSpec& spec) {
  switch (spec.kind) {
    case SourceSpec::Kind::Pcap: return std::make_unique<wire::PcapSource>(spec.pcap);
    case SourceSpec::Kind::Generator: return std::make_unique<wire::Generator>(spec.generator);
    case SourceSpec::Kind::None: break;
  }
  return nullptr;
}

std::unique_ptr<wire::Link> open_link(const LinkSpec& spec) {
  try {
    return wire::open_link(spec.options, [&](const std::string& why) {
      spdlog::warn("{}: {}", spec.where, why);
    });
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}", spec.where, e.what()));
  }
}

// How many queue groups port `spec` gets if its wire can be split (else one): up to two per
// NIC-model thread, at most one per queue. RSS gives queues unequal shares of a few flows (64 flows
// on 16 queues: 3 to 6 each), and with more groups than threads the threads can be dealt equal
// shares (nic_threads.cpp).
uint32_t queue_groups(const PortSpec& spec, const wire::Source* source, uint32_t nic_threads) {
  const auto* generator =
      spec.source.kind == SourceSpec::Kind::Generator ? static_cast<const wire::Generator*>(source) : nullptr;
  if (!nic::Port::splittable(spec.nic, source, generator)) return 1;
  return std::max(1u, std::min<uint32_t>(nic_threads > 1 ? 2 * nic_threads : 1, spec.nic.rx_queues));
}

// Elementwise sum over generators of one of their per-flow or per-second counts.
std::vector<uint64_t> sum_over(const std::vector<wire::Generator*>& generators,
                               std::vector<uint64_t> (wire::Generator::*counts)() const) {
  std::vector<uint64_t> total;
  for (const wire::Generator* g : generators) {
    const std::vector<uint64_t> c = (g->*counts)();
    if (total.size() < c.size()) total.resize(c.size());
    for (size_t i = 0; i < c.size(); ++i) total[i] += c[i];
  }
  return total;
}

}  // namespace

// A register block in pinned host memory (driver/gpu_bypass.h), for the port's lifetime.
struct Ports::PinnedRegs {
  PinnedRegs() : regs(driver::alloc_pinned_port_regs()) {}
  ~PinnedRegs() { driver::free_pinned_port_regs(regs); }
  PinnedRegs(const PinnedRegs&) = delete;
  PinnedRegs& operator=(const PinnedRegs&) = delete;
  nic::PortRegs* regs;
};

Ports::Ports(const std::vector<PortSpec>& specs, const PathRow& row, uint32_t nic_threads) {
  for (const PortSpec& spec : specs) {
    wire::Sink* inner = nullptr;
    links_.push_back(nullptr);
    if (spec.link) {
      std::unique_ptr<wire::Link> link = open_link(*spec.link);
      links_.back() = link.get();
      inner = link.get();
      sources_.push_back(std::move(link));
    } else {
      sources_.push_back(make_source(spec.source));
    }
    wire::Generator* generator = nullptr;
    if (spec.source.kind == SourceSpec::Kind::Generator) {
      generator = static_cast<wire::Generator*>(sources_.back().get());
      generators_.push_back(generator);
    }
    if (!spec.sink.pcap_file.empty()) {
      pcap_sinks_.push_back(std::make_unique<wire::PcapSink>(spec.sink.pcap_file));
      inner = pcap_sinks_.back().get();
    }
    const uint32_t groups = inner ? 1 : queue_groups(spec, sources_.back().get(), nic_threads);
    nic::PortWiring wiring{sources_.back().get(), generator, {}, row.dma, row.fifo_memory};
    sinks_.emplace_back();
    for (uint32_t g = 0; g < groups; ++g) {
      sinks_.back().push_back(std::make_unique<wire::MeasuringSink>(inner));
      wiring.sinks.push_back(sinks_.back().back().get());
    }
    nic::PortRegs* regs = nullptr;
    if (row.pinned_regs) {
      pinned_regs_.push_back(std::make_unique<PinnedRegs>());
      regs = pinned_regs_.back()->regs;
    }
    ports_.push_back(std::make_unique<nic::Port>(spec.nic, std::move(wiring), regs));
  }
}

Ports::~Ports() = default;

std::vector<nic::Port*> Ports::all() const {
  std::vector<nic::Port*> out;
  for (const auto& p : ports_) out.push_back(p.get());
  return out;
}

wire::SourceCounters Ports::source_counters(size_t i) const {
  return sources_[i] ? sources_[i]->counters() : wire::SourceCounters{};
}

void Ports::set_window(const wire::MeasuredWindow& window) {
  for (auto& port_sinks : sinks_)
    for (auto& sink : port_sinks) sink->set_window(window);
  for (wire::Generator* g : generators_) g->set_window(window);
}

void Ports::start(uint64_t now_ns) {
  for (auto& port : ports_) port->start(now_ns);
}

void Ports::stop_sources() {
  for (auto& port : ports_) port->stop_source();
}

void Ports::finish_sinks() {
  // Every sink is finished, whichever fails: a failed capture must not cost the others theirs.
  std::string failed;
  for (auto& port_sinks : sinks_)
    for (auto& sink : port_sinks) {
      try {
        sink->finish();
      } catch (const UserError& e) {
        if (failed.empty()) failed = e.what();
      }
    }
  if (!failed.empty()) throw UserError(failed);
}

std::vector<wire::MeasureReport> Ports::measurements() const {
  std::vector<wire::MeasureReport> out;
  for (const auto& port_sinks : sinks_) {
    wire::MeasureReport report;
    for (const auto& sink : port_sinks) report.merge(sink->report());
    out.push_back(std::move(report));
  }
  return out;
}

std::vector<uint64_t> Ports::generated_per_flow() const { return sum_over(generators_, &wire::Generator::sent_per_flow); }

std::vector<uint64_t> Ports::generated_in_window_per_flow() const {
  return sum_over(generators_, &wire::Generator::sent_in_window_per_flow);
}

std::vector<uint64_t> Ports::generated_in_window_per_second() const {
  return sum_over(generators_, &wire::Generator::sent_in_window_per_second);
}

bool Ports::generators_finished() const {
  for (const wire::Generator* g : generators_)
    if (!g->finished()) return false;
  return true;
}

}  // namespace gnf::path
