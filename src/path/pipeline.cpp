#include "path/pipeline.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "mem/cuda_alloc.h"
#include "util/clock.h"
#include "util/cores.h"
#include "util/error.h"
#include "util/log.h"

namespace gnf::path {

Pipeline::Pipeline(const PathSpec& spec, AttachHost attach) : spec_(spec), row_(path_row(spec.path, spec.file)) {
  const bool calibrate = row_.make_driver == nullptr;
  for (PortSpec& port : spec_.ports) port.nic.loopback = calibrate;
  if (row_.needs_gpu && !mem::cuda_device_available())
    throw UserError(fmt::format("{}: path '{}' needs a CUDA GPU, and none is usable here", spec_.file,
                                path_name(spec_.path)));

  chain_ = std::make_unique<nf::NfChain>(spec_.nfs, nf_context(spec_));
  const uint16_t queues = spec_.ports.front().nic.rx_queues;
  const bool router = chain_->router_element().has_value() && !calibrate;
  // The host's own tx queue is the one after the driver's (driver/host_tx.h).
  if (router)
    for (PortSpec& port : spec_.ports) port.nic.tx_queues = std::max<uint16_t>(port.nic.tx_queues, uint16_t(queues + 1));

  ports_ = std::make_unique<Ports>(spec_.ports, row_, spec_.nic_threads);
  if (calibrate) return;  // the ports loop back: no driver
  if (router) attach_host(attach, queues);
  const std::vector<nic::Port*> ports = ports_->all();
  // The agent first: a memory allocation (cudaMalloc, cudaHostAlloc) orders every kernel launched
  // after it behind every kernel running before it (CUDA's implicit synchronisation), and the
  // GPU driver may start one that never ends by itself (the GPU clock's, for one-way timing).
  if (row_.dma == nic::DmaSide::GpuAgent) agent_ = std::make_unique<nic::GpuAgent>(ports);
  driver_ = row_.make_driver(ports, queues, spec_.driver, *chain_);
  if (spec_.driver.one_way == driver::OneWay::Rx) gpu_sink_ = std::make_unique<wire::MeasuringSink>();
}

Pipeline::~Pipeline() {
  stop();
  // Before anything frees GPU or pinned memory (which waits for the whole device), no kernel may
  // still spin: not the planes' runners, not the GPU agent, not the GPU clock's.
  if (agent_) agent_->stop();
  if (driver_) driver_->stop_gpu();
}

void Pipeline::attach_host(const AttachHost& attach, uint16_t host_queue) {
  HostAccess access{*chain_, {}, nullptr};
  for (size_t p = 0; p < ports_->size(); ++p) {
    host_tx_.push_back(std::make_unique<driver::HostTxQueue>((*ports_)[p], host_queue, row_.host_tx_memory));
    access.ports.push_back((*ports_)[p].options());
  }
  access.transmit = [this](uint16_t port, const std::vector<uint8_t>& frame) {
    if (!host_tx_[port]->send(frame.data(), uint32_t(frame.size()), now_ns())) return false;
    host_tx_frames_.fetch_add(1, std::memory_order_relaxed);
    return true;
  };
  if (attach) host_ = attach(access);
}

void Pipeline::start() { start(0, 0); }

void Pipeline::start(uint64_t warmup_ns, uint64_t window_ns) {
  if (started_) return;
  started_ = true;
  const uint64_t now = now_ns();
  start_ns_ = now;
  if (window_ns) {
    // Before any thread runs: the sinks and generators are theirs from then on.
    const wire::MeasuredWindow window{now + warmup_ns, window_ns};
    ports_->set_window(window);
    if (gpu_sink_) gpu_sink_->set_window(window);
  }
  ports_->start(now);
  const uint32_t nic_count = nic_threads_.deal(*ports_, spec_.nic_threads);

  const uint32_t cores = std::max(1u, std::thread::hardware_concurrency());
  // The driver's threads, unless told, take the cores left: of the operator's list, else the machine's.
  const uint32_t listed = spec_.cpus.empty() ? cores : uint32_t(spec_.cpus.size());
  // A GPU driver has no threads: the GPU is the driver.
  uint32_t driver_count = spec_.driver_threads;
  if (driver_count == 0) driver_count = std::max(1u, listed > nic_count ? listed - nic_count : 1u);
  driver_threads_ = driver_ ? std::min(driver_count, driver_->max_threads()) : 0;
  if (nic_count + driver_threads_ >= cores + 1)
    spdlog::warn("{} poll-mode threads ({} NIC model, {} driver) on {} cores: they will compete for cores and rates "
                 "will suffer",
                 nic_count + driver_threads_, nic_count, driver_threads_, cores);
  const std::vector<int> process_cores = calling_thread_cores();
  const Placement plan = plan_placement(spec_.pin_threads ? nic_count + driver_threads_ : 0, spec_.cpus,
                                        spec_.control_cpus, process_cores);
  if (!plan.kept_off.empty()) off_poll_cores_ = std::make_unique<ThreadsKeptOff>(plan.kept_off);
  // The driver's threads take the first cores, the NIC model's the rest; unpinned, any of the
  // process's (not only the other threads').
  const auto driver_end = plan.poll.begin() + std::min<size_t>(driver_threads_, plan.poll.size());
  const IdlePolicy idle = idle_policy(spec_);
  if (driver_) {
    driver_->set_threads(PollThreads{std::vector<int>(plan.poll.begin(), driver_end), process_cores, idle});
    driver_->start(driver_threads_);
  }
  if (agent_) agent_->start();
  if (driver_) driver_->start_clock();
  if (host_) host_->start();
  if (row_.exception_thread || host_) {
    exception_thread_running_.store(true);
    exception_thread_ = std::thread(&Pipeline::exception_loop, this);
  }
  nic_threads_.start(PollThreads{std::vector<int>(driver_end, plan.poll.end()), process_cores, idle});
}

void Pipeline::exception_loop() {
  name_thread("gnf-slowpath");
  // Not a poll-mode thread: exceptions are rare, so it sleeps between looks.
  for (bool last = false; !last;) {
    last = !exception_thread_running_.load(std::memory_order_acquire);  // one more look after the driver stopped
    std::vector<driver::HostFrame> frames = driver_->take_host_frames();
    const size_t count = frames.size();
    if (host_) {
      std::lock_guard lock(host_handler_mutex_);
      host_->handle(std::move(frames), now_ns());
      host_frames_ += count;  // after: drained() waits for the answers to be sent
    } else if (count) {
      host_frames_ += count;
      std::lock_guard lock(host_mutex_);
      for (auto& f : frames) host_queue_.push_back(std::move(f));
      while (host_queue_.size() > kHostQueueDepth) host_queue_.pop_front();
    }
    if (gpu_sink_)
      for (const driver::GpuArrival& a : driver_->take_arrivals()) gpu_sink_->deliver_stamp(a.stamp, a.len, a.seen_ns);
    if (!last) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

std::vector<driver::HostFrame> Pipeline::take_host_frames() {
  std::vector<driver::HostFrame> out;
  if (driver_ && !exception_thread_.joinable()) {
    out = driver_->take_host_frames();
    host_frames_ += out.size();
  }
  std::lock_guard lock(host_mutex_);
  for (auto& f : host_queue_) out.push_back(std::move(f));
  host_queue_.clear();
  return out;
}

void Pipeline::pause_driver() {
  if (!driver_) throw UserError("pausing the driver is supported on the bypass path only");
  driver_->pause();
}

void Pipeline::resume_driver() {
  if (!driver_) throw UserError("resuming the driver is supported on the bypass path only");
  driver_->resume();
}

std::vector<Pipeline::ThreadCpu> Pipeline::thread_cpu() const {
  std::vector<ThreadCpu> out = nic_threads_.thread_cpu();
  if (driver_) {
    const std::vector<ThreadCpu> driver = driver_->thread_cpu();
    out.insert(out.end(), driver.begin(), driver.end());
  }
  return out;
}

bool Pipeline::threads_pinned() const {
  const std::vector<ThreadCpu> threads = thread_cpu();
  return !threads.empty() && std::all_of(threads.begin(), threads.end(), [](const ThreadCpu& t) { return t.core >= 0; });
}

void Pipeline::stop_sources() {
  ports_->stop_sources();
  if (!host_) return;
  std::lock_guard lock(host_handler_mutex_);  // not while it handles: nothing of its own is sent after this
  host_->stop_sources();
}

bool Pipeline::drained() const {
  for (size_t p = 0; p < ports_->size(); ++p)
    if (!(*ports_)[p].rx_drained()) return false;
  // A looped-back port sends each frame as it leaves the rx buffer.
  if (!driver_) return true;
  const Snapshot s = snapshot();
  if (!s.rings_and_driver_empty()) return false;
  if (host_ && host_frames_.load() != s.driver.to_host) return false;
  for (const auto& queue : host_tx_)
    if (!queue->drained()) return false;
  for (size_t p = 0; p < ports_->size(); ++p)
    if (!(*ports_)[p].tx_drained()) return false;
  return true;
}

void Pipeline::stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  // While every thread still runs: the poll-mode threads say where they ran as they end.
  other_threads_ = process_threads();
  nic_threads_.request_stop();
  if (driver_) driver_->stop();
  if (host_) host_->stop();
  exception_thread_running_.store(false, std::memory_order_release);
  if (exception_thread_.joinable()) exception_thread_.join();
  nic_threads_.stop();
  for (const ThreadCpu& poll : thread_cpu())
    std::erase_if(other_threads_, [&](const ThreadPlace& t) { return t.tid == poll.tid; });
  off_poll_cores_.reset();
  if (agent_) agent_->stop();
  if (driver_) host_frames_ += driver_->take_host_frames().size();
  ports_->finish_sinks();
}

Snapshot Pipeline::snapshot() const {
  std::lock_guard snapshot_lock(snapshot_mutex_);
  Snapshot s;
  s.time_ns = now_ns();
  for (size_t i = 0; i < ports_->size(); ++i) s.ports.push_back(port_stats(*ports_, i));
  // A GPU driver's counters are read once per snapshot: a walk over every plane's block of pinned
  // memory.
  add_driver_stats(s, driver_ ? driver_->counters() : driver::DriverTotals{}, *chain_);
  s.driver.host_tx = host_tx_frames_.load(std::memory_order_relaxed);
  if (agent_) {
    const nic::GpuAgent::Loops loops = agent_->loops();
    s.gpu_agent_rx = loops.rx;
    s.gpu_agent_tx = loops.tx;
  }
  if (host_) {
    std::lock_guard lock(host_handler_mutex_);
    host_->add_counters(s);
  }
  return s;
}

std::vector<driver::SlotAudit> Pipeline::audit() const { return driver_ ? driver_->audit() : std::vector<driver::SlotAudit>{}; }

std::vector<wire::MeasureReport> Pipeline::measurements() const {
  std::vector<wire::MeasureReport> out = ports_->measurements();
  if (gpu_sink_) out.push_back(gpu_sink_->report());
  return out;
}

std::optional<driver::GpuClockStats> Pipeline::gpu_clock() const {
  return driver_ ? driver_->clock_stats() : std::nullopt;
}

}  // namespace gnf::path
