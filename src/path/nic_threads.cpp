#include "path/nic_threads.h"

#include <fmt/format.h>

namespace gnf::path {

uint32_t NicThreads::deal(const Ports& ports, uint32_t threads) {
  // Queue group g of a port whose queues are dealt over groups goes to thread g, both ways (a flow
  // comes in and goes out on the same queue number); ports of one group have their rx sides, then
  // their tx sides, dealt out round robin. A looped-back port's rx side drives its tx line too.
  work_.assign(threads, {});
  size_t next_thread = 0;
  auto deal_one = [&](nic::QueueGroup& group, bool rx) {
    if (!rx && group.tx_queues().empty()) return;
    work_[next_thread++ % work_.size()].push_back({&group, rx});
  };
  for (size_t p = 0; p < ports.size(); ++p)
    if (ports[p].group_count() == 1) deal_one(ports[p].group(0), true);
  for (size_t p = 0; p < ports.size(); ++p)
    if (ports[p].group_count() == 1 && !ports[p].options().loopback) deal_one(ports[p].group(0), false);
  for (size_t p = 0; p < ports.size(); ++p) {
    nic::Port& port = ports[p];
    if (port.group_count() == 1) continue;
    for (uint32_t g = 0; g < port.group_count(); ++g) {
      work_[g].push_back({&port.group(g), true});
      if (!port.options().loopback) work_[g].push_back({&port.group(g), false});
    }
  }
  std::erase_if(work_, [](const std::vector<Work>& w) { return w.empty(); });
  return count();
}

void NicThreads::start(const std::vector<int>& cores) {
  running_.store(true);
  thread_cpu_.assign(work_.size(), ThreadCpu{"nic", 0, 0});
  for (size_t i = 0; i < work_.size(); ++i) threads_.emplace_back(&NicThreads::loop, this, i, i < cores.size() ? cores[i] : -1);
}

void NicThreads::loop(size_t index, int core) {
  name_thread(fmt::format("gnf-nic{}", index));
  const std::vector<Work>& work = work_[index];
  thread_cpu_[index] = poll_until_stopped(running_, "nic", core, [&](uint64_t round_start) {
    bool moved = false;
    // A thread serves several groups: each gets the time it is polled, not the round's start,
    // and tx reads the clock again after the acquire that finds frames (queue_group.h), so that no
    // frame leaves the wire before it was queued (one-way trials saw frames arrive up to 34 us
    // before the GPU handed them over).
    uint64_t now = round_start;
    for (const Work& w : work) {
      moved |= w.rx ? w.group->poll_rx(now) : w.group->poll_tx(now, &now_ns);
      now = now_ns();
    }
    return moved;
  });
}

void NicThreads::stop() {
  request_stop();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

}  // namespace gnf::path
