#include "driver/cpu_driver.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/clock.h"

namespace gnf::driver {

CpuDriver::CpuDriver(const std::vector<nic::Port*>& ports, uint16_t queues, const DriverOptions& options,
                     const nf::NfChainView& chain, bool nf_on_gpu) {
  for (uint16_t q = 0; q < queues; ++q) planes_.push_back(std::make_unique<Plane>(q, ports, options, chain, nf_on_gpu));
}

CpuDriver::~CpuDriver() {
  stop();
  stop_gpu();
}

void CpuDriver::start(uint32_t threads) {
  if (!threads_.empty()) return;
  threads = std::clamp<uint32_t>(threads, 1, max_threads());
  std::vector<std::vector<Plane*>> groups(threads);
  for (size_t i = 0; i < planes_.size(); ++i) groups[i % threads].push_back(planes_[i].get());
  running_.store(true);
  thread_cpu_.assign(groups.size(), ThreadCpu{"driver", 0, 0});
  for (size_t i = 0; i < groups.size(); ++i) threads_.emplace_back(&CpuDriver::poll_loop, this, groups[i], i);
}

void CpuDriver::poll_loop(std::vector<Plane*> planes, size_t index) {
  thread_cpu_[index] = poll_until_stopped(
      running_, threads().thread("driver", fmt::format("gnf-drv{}", index), index),
      [&](uint64_t now) {
        bool moved = false;
        for (Plane* plane : planes) moved |= plane->poll(now);
        return moved;
      },
      [&] { return std::all_of(planes.begin(), planes.end(), [](const Plane* plane) { return plane->quiet(); }); });
  for (Plane* plane : planes) plane->flush(now_ns());
}

void CpuDriver::stop() {
  running_.store(false);
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  stop_gpu();
}

void CpuDriver::stop_gpu() {
  for (auto& plane : planes_) plane->stop_gpu();
}

DriverTotals CpuDriver::counters() const {
  DriverTotals totals;
  for (const auto& plane : planes_) {
    const PlaneCounters& c = plane->counters();
    add_counters(totals, c);
    for (size_t e = 0; e < nf::kMaxChainLength; ++e) {
      for (size_t k = 0; k < nf::NfCounters::kMax; ++k) totals.nf[e][k] += c.nf[e][k].get();
      totals.nf_runtime[e].calls += c.nf_calls[e].get();
      totals.nf_runtime[e].packets += c.nf_packets[e].get();
    }
    totals.runtime_counted |= plane->runs_chain();
  }
  return totals;
}

std::vector<HostFrame> CpuDriver::take_host_frames() {
  std::vector<HostFrame> out;
  for (auto& plane : planes_)
    for (auto& f : plane->take_host_frames()) out.push_back(std::move(f));
  return out;
}

std::vector<SlotAudit> CpuDriver::audit() const {
  std::vector<SlotAudit> out;
  for (const auto& plane : planes_) out.push_back(plane->audit());
  return out;
}

}  // namespace gnf::driver
