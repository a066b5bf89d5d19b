#include "path/nic_threads.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace gnf::path {

uint32_t NicThreads::deal(const Ports& ports, uint32_t threads) {
  // Ports of one group have their rx sides, then their tx sides, dealt out round robin (a
  // looped-back port's rx side drives its tx line too). Queue group g of every port whose queues
  // are split over groups goes to one thread, both ways (a flow comes in and goes out on the same
  // queue number); those threads are chosen largest share first, each to the least loaded thread,
  // a share being the generators' flows in group g (else one per group).
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

  std::vector<uint64_t> share;
  for (size_t p = 0; p < ports.size(); ++p) {
    if (ports[p].group_count() == 1) continue;
    share.resize(std::max<size_t>(share.size(), ports[p].group_count()), 0);
    for (uint32_t g = 0; g < ports[p].group_count(); ++g) share[g] += ports[p].group_flows(g);
  }
  if (std::all_of(share.begin(), share.end(), [](uint64_t s) { return s == 0; })) std::fill(share.begin(), share.end(), 1);
  std::vector<uint32_t> order(share.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return share[a] > share[b]; });
  std::vector<uint64_t> load(threads, 0);
  std::vector<size_t> thread_of(share.size());
  for (uint32_t g : order) {
    thread_of[g] = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    load[thread_of[g]] += share[g];
  }
  for (size_t p = 0; p < ports.size(); ++p) {
    nic::Port& port = ports[p];
    if (port.group_count() == 1) continue;
    for (uint32_t g = 0; g < port.group_count(); ++g) {
      work_[thread_of[g]].push_back({&port.group(g), true});
      if (!port.options().loopback) work_[thread_of[g]].push_back({&port.group(g), false});
    }
  }
  std::erase_if(work_, [](const std::vector<Work>& w) { return w.empty(); });
  return count();
}

void NicThreads::start(const PollThreads& threads) {
  running_.store(true);
  thread_cpu_.assign(work_.size(), ThreadCpu{"nic", 0, 0});
  for (size_t i = 0; i < work_.size(); ++i)
    threads_.emplace_back(&NicThreads::loop, this, i, threads.thread("nic", fmt::format("gnf-nic{}", i), i));
}

void NicThreads::loop(size_t index, PollThread thread) {
  const std::vector<Work>& work = work_[index];
  // The rx side keeps its wire's clock; the tx side's frames leave when it polls.
  auto quiet = [&] {
    return std::all_of(work.begin(), work.end(),
                       [](const Work& w) { return w.rx ? w.group->rx_quiet() : w.group->tx_drained(); });
  };
  thread_cpu_[index] = poll_until_stopped(running_, thread, [&](uint64_t round_start) {
    bool moved = false;
    // A thread serves several groups: each gets the time it is polled, not the round's start,
    // and tx reads the clock again after the acquire that finds frames (queue_group.h), so that no
    // frame leaves the wire before it was queued (one-way trials saw frames arrive up to 34 us
    // before the GPU handed them over).
    // A poll that moved nothing took a few tens of nanoseconds: the next one keeps its time
    // rather than read the clock again (on a VM a clock read costs about as much as an empty poll).
    uint64_t now = round_start;
    for (const Work& w : work) {
      const bool this_moved = w.rx ? w.group->poll_rx(now) : w.group->poll_tx(now, &now_ns);
      if (this_moved) now = now_ns();
      moved |= this_moved;
    }
    return moved;
  }, quiet);
}

void NicThreads::stop() {
  request_stop();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

}  // namespace gnf::path
