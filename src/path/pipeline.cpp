#include "path/pipeline.h"

#include <pthread.h>
#include <sched.h>
#include <chrono>
#include <cstdio>
#include <time.h>

#include <fmt/format.h>

#include "util/clock.h"
#include "util/error.h"
#include "mem/cuda_alloc.h"
#include "wire/pcap_source.h"

namespace gnf::path {

namespace {

// Poll-mode threads spin; after this many empty rounds they yield the core once, so that a small
// machine (CI has 2 cores) still makes progress with more threads than cores.
constexpr int kIdleRoundsBeforeYield = 64;

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

void name_thread(const std::string& name) { pthread_setname_np(pthread_self(), name.substr(0, 15).c_str()); }

std::unique_ptr<wire::Source> make_source(const ctl::SourceSpec& spec) {
  switch (spec.kind) {
    case ctl::SourceSpec::Kind::Pcap: return std::make_unique<wire::PcapSource>(spec.pcap);
    case ctl::SourceSpec::Kind::Generator: return std::make_unique<wire::Generator>(spec.generator);
    case ctl::SourceSpec::Kind::None: break;
  }
  return nullptr;
}

std::unique_ptr<wire::Link> open_link(const ctl::LinkSpec& spec) {
  try {
    return wire::open_link(spec.options, [&](const std::string& why) {
      std::fprintf(stderr, "gnf: warning: %s: %s\n", spec.where.c_str(), why.c_str());
    });
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}", spec.where, e.what()));
  }
}

}  // namespace

uint64_t Snapshot::offered() const {
  uint64_t n = 0;
  for (const auto& p : ports) n += p.source_frames;
  return n;
}

uint64_t Snapshot::accounted() const {
  uint64_t n = frames_ended(driver);
  n -= std::min(n, driver.host_tx);  // the slow path's own frames are in the ports' tx_packets
  for (const auto& p : ports) n += frames_ended(p);
  return n;
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

Pipeline::Pipeline(const ctl::Config& config) : config_(config) {
  ctl::validate(config_);
  const bool bypass = config_.path == ctl::PathKind::Bypass;
  const bool staged = config_.path == ctl::PathKind::Staged;
  const bool calibrate = config_.path == ctl::PathKind::Calibrate;
  for (ctl::PortSpec& spec : config_.ports) spec.nic.loopback = calibrate;
  if (config_.path == ctl::PathKind::P2p)
    throw UserError(fmt::format("{}: path 'p2p' is not built yet; use cpu, staged or bypass", config_.file));
  if ((bypass || staged) && !mem::cuda_device_available())
    throw UserError(fmt::format("{}: path '{}' needs a CUDA GPU, and none is usable here", config_.file,
                                ctl::path_name(config_.path)));

  chain_ = std::make_unique<nf::NfChain>(config_.nfs, ctl::nf_context(config_));
  const uint16_t driver_queues = config_.ports.front().nic.rx_queues;
  const bool router = chain_->router_element().has_value();
  // The host's own tx queue is the one after the driver's (driver/host_tx.h).
  if (router && !calibrate)
    for (ctl::PortSpec& spec : config_.ports)
      spec.nic.tx_queues = std::max<uint16_t>(spec.nic.tx_queues, uint16_t(driver_queues + 1));

  for (const ctl::PortSpec& spec : config_.ports) {
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
    if (spec.source.kind == ctl::SourceSpec::Kind::Generator) {
      generator = static_cast<wire::Generator*>(sources_.back().get());
      generators_.push_back(generator);
    }
    if (!spec.sink.pcap_file.empty()) {
      pcap_sinks_.push_back(std::make_unique<wire::PcapSink>(spec.sink.pcap_file));
      inner = pcap_sinks_.back().get();
    }
    const uint32_t groups = inner ? 1 : queue_groups(spec, sources_.back().get());
    nic::PortWiring wiring{sources_.back().get(), generator, {}, bypass ? nic::DmaSide::GpuAgent : nic::DmaSide::Host,
                           bypass ? mem::Domain::HostPinned : mem::Domain::Host};
    sinks_.emplace_back();
    for (uint32_t g = 0; g < groups; ++g) {
      sinks_.back().push_back(std::make_unique<wire::MeasuringSink>(inner));
      wiring.sinks.push_back(sinks_.back().back().get());
    }
    nic::PortRegs* regs = nullptr;
    if (bypass) {
      pinned_regs_.push_back(std::make_unique<PinnedRegs>());
      regs = pinned_regs_.back()->regs;
    }
    ports_.push_back(std::make_unique<nic::Port>(spec.nic, std::move(wiring), regs));
  }

  std::vector<nic::Port*> ports;
  for (auto& p : ports_) ports.push_back(p.get());
  const uint16_t queues = driver_queues;
  if (calibrate) return;  // the ports loop back: no driver
  if (router) make_slow_path(queues);
  if (bypass) {
    // The agent first: a memory allocation (cudaMalloc, cudaHostAlloc) orders every kernel launched
    // after it behind every kernel running before it (CUDA's implicit synchronisation), and the
    // GPU driver may start one that never ends by itself (the GPU clock's, for one-way timing).
    agent_ = std::make_unique<nic::GpuAgent>(ports);
    bypass_ = std::make_unique<driver::GpuBypass>(ports, queues, config_.driver, chain_->device_view());
    planes_count_ = queues;
    if (config_.driver.one_way == driver::OneWay::Rx) gpu_sink_ = std::make_unique<wire::MeasuringSink>();
  } else {
    for (uint16_t q = 0; q < queues; ++q)
      planes_.push_back(std::make_unique<driver::Plane>(q, ports, config_.driver,
                                                        staged ? chain_->device_view() : chain_->view(), staged));
  }
}

Pipeline::~Pipeline() {
  stop();
  // Before anything frees GPU or pinned memory (which waits for the whole device), no kernel may
  // still spin: not the planes' runners, not the GPU agent, not the GPU clock's.
  for (auto& plane : planes_) plane->stop_gpu();
  if (agent_) agent_->stop();
  if (bypass_) bypass_->stop_clock();
}

uint32_t Pipeline::queue_groups(const ctl::PortSpec& spec, const wire::Source* source) const {
  const auto* generator = spec.source.kind == ctl::SourceSpec::Kind::Generator
                              ? static_cast<const wire::Generator*>(source)
                              : nullptr;
  if (!nic::Port::splittable(spec.nic, source, generator)) return 1;
  return std::max(1u, std::min<uint32_t>(config_.nic_threads, spec.nic.rx_queues));
}

void Pipeline::start() { start(0, 0); }

void Pipeline::start(uint64_t warmup_ns, uint64_t window_ns) {
  if (started_) return;
  started_ = true;
  running_.store(true);
  uint64_t now = now_ns();
  start_ns_ = now;
  if (window_ns) {
    // Before any thread runs: the sinks and generators are theirs from then on.
    wire::MeasuredWindow window{now + warmup_ns, window_ns};
    for (auto& port_sinks : sinks_)
      for (auto& sink : port_sinks) sink->set_window(window);
    if (gpu_sink_) gpu_sink_->set_window(window);
    for (wire::Generator* g : generators_) g->set_window(window);
  }
  for (auto& port : ports_) port->start(now);

  // Work: queue group g of a port whose queues are dealt over groups goes to thread g, both ways
  // (a flow comes in and goes out on the same queue number); ports of one group have their rx
  // sides, then their tx sides, dealt out round robin. A looped-back port's rx side drives its tx
  // line too.
  std::vector<std::vector<NicWork>> nic_groups(config_.nic_threads);
  size_t next_thread = 0;
  auto deal = [&](nic::QueueGroup& group, bool rx) {
    if (!rx && group.tx_queues().empty()) return;
    nic_groups[next_thread++ % nic_groups.size()].push_back({&group, rx});
  };
  for (auto& port : ports_)
    if (port->group_count() == 1) deal(port->group(0), true);
  for (auto& port : ports_)
    if (port->group_count() == 1 && !port->options().loopback) deal(port->group(0), false);
  for (auto& port : ports_) {
    if (port->group_count() == 1) continue;
    for (uint32_t g = 0; g < port->group_count(); ++g) {
      nic_groups[g].push_back({&port->group(g), true});
      if (!port->options().loopback) nic_groups[g].push_back({&port->group(g), false});
    }
  }
  std::erase_if(nic_groups, [](const std::vector<NicWork>& w) { return w.empty(); });
  const uint32_t nic_count = uint32_t(nic_groups.size());

  uint32_t cores = std::max(1u, std::thread::hardware_concurrency());
  // The bypass path has no driver threads: the GPU is the driver.
  uint32_t driver_count = config_.driver_threads;
  if (driver_count == 0) driver_count = std::max(1u, cores > nic_count ? cores - nic_count : 1u);
  driver_count = std::min<uint32_t>(driver_count, uint32_t(planes_.size()));
  if (bypass_) bypass_->start();
  if (agent_) agent_->start();
  if (bypass_) bypass_->start_clock();
  if (netlink_) netlink_->start();
  if (bypass_ || slow_path_) {
    slow_path_running_.store(true);
    slow_path_thread_ = std::thread(&Pipeline::slow_path_loop, this);
  }
  std::vector<std::vector<driver::Plane*>> plane_groups(driver_count);  // empty on the GPU paths
  for (size_t i = 0; i < planes_.size(); ++i) plane_groups[i % driver_count].push_back(planes_[i].get());

  if (nic_count + driver_count >= cores + 1)
    std::fprintf(stderr,
                 "gnf: warning: %u poll-mode threads (%u NIC model, %u driver) on %u cores: they will compete for "
                 "cores and rates will suffer\n",
                 nic_count + driver_count, nic_count, driver_count, cores);
  nic_cpu_.assign(nic_groups.size(), ThreadCpu{"nic", 0, 0});
  driver_cpu_.assign(plane_groups.size(), ThreadCpu{"driver", 0, 0});
  for (size_t i = 0; i < nic_groups.size(); ++i) nic_threads_.emplace_back(&Pipeline::nic_loop, this, nic_groups[i], i);
  for (size_t i = 0; i < plane_groups.size(); ++i)
    driver_threads_.emplace_back(&Pipeline::driver_loop, this, plane_groups[i], i);
}

void Pipeline::slow_path_loop() {
  name_thread("gnf-slowpath");
  // The slow path is not a poll-mode thread: exceptions are rare, so it sleeps between looks.
  for (bool last = false; !last;) {
    last = !slow_path_running_.load(std::memory_order_acquire);  // one more look after the GPU stopped
    std::vector<driver::HostFrame> frames;
    if (bypass_) {
      frames = bypass_->take_exceptions();
    } else {
      for (auto& plane : planes_)
        for (auto& f : plane->take_host_frames()) frames.push_back(std::move(f));
    }
    if (slow_path_) {
      std::lock_guard lock(slow_path_mutex_);
      const uint64_t now = now_ns();
      for (auto& f : frames) slow_path_->handle(f.port, std::move(f.bytes), now);
      slow_path_->tick(now);
      host_frames_ += frames.size();  // after: drained() waits for the answers to be sent
    } else if (!frames.empty()) {
      host_frames_ += frames.size();
      std::lock_guard lock(host_mutex_);
      for (auto& f : frames) host_queue_.push_back(std::move(f));
      while (host_queue_.size() > kHostQueueDepth) host_queue_.pop_front();
    }
    if (gpu_sink_)
      for (const driver::GpuArrival& a : bypass_->take_arrivals()) gpu_sink_->deliver_stamp(a.stamp, a.len, a.seen_ns);
    if (!last) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void Pipeline::make_slow_path(uint16_t host_queue) {
  const uint32_t element = *chain_->router_element();
  const mem::Domain domain = config_.path == ctl::PathKind::Cpu ? mem::Domain::Host : mem::Domain::HostPinned;
  std::vector<ctl::Mac> macs;
  for (auto& port : ports_) {
    host_tx_.push_back(std::make_unique<driver::HostTxQueue>(*port, host_queue, domain));
    macs.push_back(port->options().mac);
  }
  auto transmit = [this](uint16_t port, const std::vector<uint8_t>& frame) {
    if (!host_tx_[port]->send(frame.data(), uint32_t(frame.size()), now_ns())) return false;
    host_tx_frames_.fetch_add(1, std::memory_order_relaxed);
    return true;
  };
  nf::NfChainView view = chain_->view();
  slow_path_ = std::make_unique<ctl::SlowPath>(*chain_->router(element), view.elements[element].l3fwd,
                                               view.readers ? view.readers + nf::kSlowPathReader : nullptr,
                                               std::move(macs), transmit);
  if (config_.netlink_netns)
    netlink_ = std::make_unique<ctl::NetlinkSync>(*chain_->router(element), *config_.netlink_netns,
                                                  ctl::port_numbers(config_));
}

std::vector<driver::HostFrame> Pipeline::take_host_frames() {
  std::vector<driver::HostFrame> out;
  for (auto& plane : planes_) {
    std::vector<driver::HostFrame> frames = plane->take_host_frames();
    host_frames_ += frames.size();
    for (auto& f : frames) out.push_back(std::move(f));
  }
  std::lock_guard lock(host_mutex_);
  for (auto& f : host_queue_) out.push_back(std::move(f));
  host_queue_.clear();
  return out;
}

void Pipeline::pause_driver() {
  if (!bypass_) throw UserError("pausing the driver is supported on the bypass path only");
  bypass_->stop();
}

void Pipeline::resume_driver() {
  if (!bypass_) throw UserError("resuming the driver is supported on the bypass path only");
  bypass_->start();
}

void Pipeline::nic_loop(std::vector<NicWork> work, size_t index) {
  name_thread(fmt::format("gnf-nic{}", index));
  int idle = 0;
  uint64_t busy_ns = 0;
  while (running_.load(std::memory_order_relaxed)) {
    uint64_t now = now_ns();
    bool moved = false;
    for (const NicWork& w : work) moved |= w.rx ? w.group->poll_rx(now) : w.group->poll_tx(now);
    if (moved) {
      idle = 0;
      busy_ns += now_ns() - now;
    } else if (++idle >= kIdleRoundsBeforeYield) {
      idle = 0;
      sched_yield();
    }
  }
  nic_cpu_[index].cpu_s = thread_cpu_seconds();
  nic_cpu_[index].busy_s = double(busy_ns) / 1e9;
}

void Pipeline::driver_loop(std::vector<driver::Plane*> planes, size_t index) {
  name_thread(fmt::format("gnf-drv{}", index));
  int idle = 0;
  uint64_t busy_ns = 0;
  while (running_.load(std::memory_order_relaxed)) {
    uint64_t now = now_ns();
    bool moved = false;
    for (driver::Plane* plane : planes) moved |= plane->poll(now);
    if (moved) {
      idle = 0;
      busy_ns += now_ns() - now;
    } else if (++idle >= kIdleRoundsBeforeYield) {
      idle = 0;
      sched_yield();
    }
  }
  for (driver::Plane* plane : planes) plane->flush(now_ns());
  driver_cpu_[index].cpu_s = thread_cpu_seconds();
  driver_cpu_[index].busy_s = double(busy_ns) / 1e9;
}

std::vector<Pipeline::ThreadCpu> Pipeline::thread_cpu() const {
  std::vector<ThreadCpu> out = nic_cpu_;
  out.insert(out.end(), driver_cpu_.begin(), driver_cpu_.end());
  return out;
}

void Pipeline::stop_sources() {
  for (auto& port : ports_) port->stop_source();
}

bool Pipeline::drained() const {
  for (const auto& port : ports_)
    if (!port->rx_drained()) return false;
  // A looped-back port sends each frame as it leaves the rx buffer.
  if (config_.path == ctl::PathKind::Calibrate) return true;
  const Snapshot s = snapshot();
  if (!s.rings_and_driver_empty()) return false;
  if (slow_path_ && host_frames_.load() != s.driver.to_host) return false;
  for (const auto& queue : host_tx_)
    if (!queue->drained()) return false;
  for (const auto& port : ports_)
    if (!port->tx_drained()) return false;
  return true;
}

void Pipeline::stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  running_.store(false);
  for (auto& t : driver_threads_) t.join();
  for (auto& plane : planes_) plane->stop_gpu();
  if (bypass_) bypass_->stop();
  if (netlink_) netlink_->stop();
  slow_path_running_.store(false, std::memory_order_release);
  if (slow_path_thread_.joinable()) slow_path_thread_.join();
  for (auto& t : nic_threads_) t.join();
  if (agent_) agent_->stop();
  for (auto& plane : planes_) host_frames_ += plane->take_host_frames().size();
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

Snapshot Pipeline::snapshot() const {
  Snapshot s;
  s.time_ns = now_ns();
  for (size_t i = 0; i < ports_.size(); ++i) {
    const nic::PortCounterSnapshot c = ports_[i]->counters();
    PortStats p;
    p.name = ports_[i]->options().name;
    if (sources_[i]) {
      wire::SourceCounters sc = sources_[i]->counters();
      p.source_frames = sc.frames;
      p.source_malformed = sc.malformed;
    }
    if (links_[i]) p.link = links_[i]->link_counters();
    static_cast<nic::PortCounterValues&>(p) = c;
    p.dma = ports_[i]->dma_counters();
    p.queue_groups = ports_[i]->group_count();
    for (uint16_t q = 0; q < ports_[i]->options().rx_queues; ++q) {
      p.rx_queue_packets.push_back(c.rx_queue_packets[q]);
      p.rx_queue_drops.push_back(c.rx_queue_drops[q]);
    }
    s.ports.push_back(p);
  }
  // The GPU driver's counters (zero on other paths), read once per snapshot: a walk over every
  // plane's block of pinned memory. The CPU planes' counters add to them.
  const driver::GpuPlaneCounters gpu = bypass_ ? bypass_->totals() : driver::GpuPlaneCounters{};
  add_counters(s.driver, gpu);
  for (const auto& plane : planes_) add_counters(s.driver, plane->counters());
  for (uint32_t e = 0; e < chain_->size(); ++e) {
    NfStats nf{chain_->name(e), {}};
    std::vector<std::string> names = chain_->counter_names(e);
    for (size_t k = 0; k < names.size(); ++k) {
      uint64_t total = gpu.nf[e][k];
      for (const auto& plane : planes_) total += plane->counters().nf[e][k].get();
      nf.counters.emplace_back(names[k], total);
    }
    s.nfs.push_back(nf);
  }
  s.driver.host_tx = host_tx_frames_.load(std::memory_order_relaxed);
  if (bypass_ && planes_count_) s.gpu_driver_polls = gpu.polls / planes_count_;
  if (agent_) s.gpu_agent = agent_->loops();
  if (netlink_) {
    const ctl::NetlinkSync::Counters& n = netlink_->counters();
    s.netlink = {{"routes_added", n.routes_added},  {"routes_removed", n.routes_removed}, {"addresses", n.addresses},
                 {"neighbours", n.neighbours},      {"ignored", n.ignored},               {"errors", n.errors}};
  }
  if (slow_path_) {
    std::lock_guard lock(slow_path_mutex_);
    const auto counters = slow_path_->counters();
    for (int c = 0; c < ctl::SlowPath::kCounterCount; ++c)
      s.slow_path.emplace_back(ctl::SlowPath::kCounterNames[c], counters[c]);
  }
  return s;
}

std::vector<driver::SlotAudit> Pipeline::audit() const {
  if (bypass_) return bypass_->audit();
  std::vector<driver::SlotAudit> out;
  for (const auto& plane : planes_) out.push_back(plane->audit());
  return out;
}

std::vector<wire::MeasureReport> Pipeline::measurements() const {
  std::vector<wire::MeasureReport> out;
  for (const auto& port_sinks : sinks_) {
    wire::MeasureReport report;
    for (const auto& sink : port_sinks) report.merge(sink->report());
    out.push_back(std::move(report));
  }
  if (gpu_sink_) out.push_back(gpu_sink_->report());
  return out;
}

std::optional<driver::GpuClockStats> Pipeline::gpu_clock() const {
  return bypass_ ? bypass_->clock_stats() : std::nullopt;
}

namespace {

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

std::vector<uint64_t> Pipeline::generated_per_flow() const { return sum_over(generators_, &wire::Generator::sent_per_flow); }

std::vector<uint64_t> Pipeline::generated_in_window_per_flow() const {
  return sum_over(generators_, &wire::Generator::sent_in_window_per_flow);
}

std::vector<uint64_t> Pipeline::generated_in_window_per_second() const {
  return sum_over(generators_, &wire::Generator::sent_in_window_per_second);
}

bool Pipeline::generators_finished() const {
  for (const wire::Generator* g : generators_)
    if (!g->finished()) return false;
  return true;
}

}  // namespace gnf::path
