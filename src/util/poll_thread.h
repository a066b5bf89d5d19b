// A poll-mode thread's loop, written once for the NIC model's threads and the CPU driver's: spin
// over the rounds, yield the core after a run of empty ones, and count the time the rounds that
// moved packets took.
#pragma once
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <string>

#include "util/clock.h"
#include "util/cores.h"

namespace gnf {

// Per thread, by role ("nic" or "driver"). Poll-mode threads use their whole core (cpu_s ~ wall
// time), so busy_s counts the work: of each round that moved packets, the time beyond what an
// empty round costs (the looking, which a loaded thread does in any case). Counting whole rounds
// instead made a thread that moves a frame or two every round look 100 % busy at a fraction of
// its capacity (the NIC model's threads at 98 % with 20 Mpps, at 40 Mpps with no loss).
struct ThreadCpu {
  std::string role;
  double cpu_s;
  double busy_s;
  int core = -1;  // the core it was pinned to (util/cores.h), or -1
};

inline void name_thread(const std::string& name) { pthread_setname_np(pthread_self(), name.substr(0, 15).c_str()); }

// On `core` (-1: wherever the scheduler puts it), runs `round(now_ns)` (true when it moved a
// packet) until `running` clears, and says what the calling thread's CPU time was by then.
template <typename Round>
ThreadCpu poll_until_stopped(const std::atomic<bool>& running, const char* role, int core, Round&& round) {
  const bool pinned = pin_this_thread(core);
  // After this many empty rounds the thread yields the core once, so that a small machine (CI has
  // 2 cores) still makes progress with more threads than cores.
  constexpr int kIdleRoundsBeforeYield = 64;
  // Every 16th empty round is timed; the cost of an empty round is their running mean (1/16 new),
  // leaving out a round the machine interrupted (over 4x the mean).
  constexpr int kTimeEveryEmptyRound = 16;
  int idle = 0, empty = 0;
  uint64_t busy_ns = 0, empty_round_ns = 0;
  while (running.load(std::memory_order_relaxed)) {
    const uint64_t now = now_ns();
    if (round(now)) {
      idle = 0;
      const uint64_t took = now_ns() - now;
      busy_ns += took > empty_round_ns ? took - empty_round_ns : 0;
      continue;
    }
    if (++empty % kTimeEveryEmptyRound == 0) {
      const int64_t took = int64_t(now_ns() - now), mean = int64_t(empty_round_ns);
      if (mean == 0) empty_round_ns = uint64_t(took);
      else if (took < 4 * mean) empty_round_ns = uint64_t(mean + (took - mean) / 16);
    }
    if (++idle >= kIdleRoundsBeforeYield) {
      idle = 0;
      sched_yield();
    }
  }
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ThreadCpu{role, double(ts.tv_sec) + double(ts.tv_nsec) / 1e9, double(busy_ns) / 1e9, pinned ? core : -1};
}

}  // namespace gnf
