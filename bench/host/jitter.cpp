// gnf-jitter-probe: how often a spinning host thread loses the CPU, and for how long.
//
// The NIC model's threads spin on the clock; a frame is "late" (bench/SCHEMA.md, nic_model) when
// the model takes it off the wire more than 10 us after it arrived. If the machine itself takes
// the CPU away from a spinning thread for longer than that (hypervisor, interrupts, the scheduler
// putting two threads on one CPU), the model is late through no fault of its own. This probe
// measures exactly that: T threads spin reading the clock for D seconds and count the gaps between
// consecutive reads, by size. Prints one JSON object per thread count.
//
//   gnf-jitter-probe [seconds=2] [pin=0|1] [thread counts...=1 2 4 8 12 14]
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>
#include <vector>

namespace {

constexpr uint64_t kBounds[] = {1'000, 2'000, 5'000, 10'000, 50'000, 100'000, 1'000'000};
constexpr size_t kBuckets = sizeof(kBounds) / sizeof(kBounds[0]);

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

struct Gaps {
  uint64_t over[kBuckets] = {};  // gaps longer than kBounds[i]
  uint64_t lost_ns = 0;          // time inside gaps over 10 us
  uint64_t max_ns = 0;
  uint64_t reads = 0;
};

Gaps spin(uint64_t seconds, int cpu) {
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }
  Gaps g;
  const uint64_t start = now_ns(), end = start + seconds * 1'000'000'000;
  uint64_t last = start;
  for (uint64_t t = now_ns(); t < end; t = now_ns()) {
    const uint64_t gap = t - last;
    last = t;
    ++g.reads;
    if (gap > g.max_ns) g.max_ns = gap;
    for (size_t i = 0; i < kBuckets && gap > kBounds[i]; ++i) ++g.over[i];
    if (gap > 10'000) g.lost_ns += gap;
  }
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t seconds = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2;
  const bool pin = argc > 2 && std::atoi(argv[2]) != 0;
  std::vector<int> counts;
  for (int i = 3; i < argc; ++i) counts.push_back(std::atoi(argv[i]));
  if (counts.empty()) counts = {1, 2, 4, 8, 12, 14};
  const int cpus = int(std::thread::hardware_concurrency());
  for (int threads : counts) {
    std::vector<Gaps> gaps(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { gaps[t] = spin(seconds, pin ? (cpus - 1 - t % cpus) : -1); });
    for (std::thread& t : pool) t.join();
    Gaps sum;
    for (const Gaps& g : gaps) {
      for (size_t i = 0; i < kBuckets; ++i) sum.over[i] += g.over[i];
      sum.lost_ns += g.lost_ns;
      sum.max_ns = g.max_ns > sum.max_ns ? g.max_ns : sum.max_ns;
      sum.reads += g.reads;
    }
    std::printf("{\"threads\": %d, \"pinned\": %s, \"seconds\": %llu, \"cpus\": %d, \"reads\": %llu, \"max_gap_ns\": %llu, "
                "\"lost_share_over_10us\": %.6f, \"gaps_per_thread_s_over\": {",
                threads, pin ? "true" : "false", (unsigned long long)seconds, cpus, (unsigned long long)sum.reads,
                (unsigned long long)sum.max_ns, double(sum.lost_ns) / (double(seconds) * 1e9 * threads));
    for (size_t i = 0; i < kBuckets; ++i)
      std::printf("%s\"%llu\": %.1f", i ? ", " : "", (unsigned long long)kBounds[i],
                  double(sum.over[i]) / double(seconds) / threads);
    std::printf("}}\n");
    std::fflush(stdout);
  }
  return 0;
}
