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

namespace gnf {

// Per thread, by role ("nic" or "driver"). Poll-mode threads use their whole core (cpu_s ~ wall
// time), so busy_s counts only the rounds that moved packets: the time the work took, from which
// packets per busy core-second follow.
struct ThreadCpu {
  std::string role;
  double cpu_s;
  double busy_s;
};

inline void name_thread(const std::string& name) { pthread_setname_np(pthread_self(), name.substr(0, 15).c_str()); }

// Runs `round(now_ns)` (true when it moved a packet) until `running` clears, and says what the
// calling thread's CPU time was by then.
template <typename Round>
ThreadCpu poll_until_stopped(const std::atomic<bool>& running, const char* role, Round&& round) {
  // After this many empty rounds the thread yields the core once, so that a small machine (CI has
  // 2 cores) still makes progress with more threads than cores.
  constexpr int kIdleRoundsBeforeYield = 64;
  int idle = 0;
  uint64_t busy_ns = 0;
  while (running.load(std::memory_order_relaxed)) {
    const uint64_t now = now_ns();
    if (round(now)) {
      idle = 0;
      busy_ns += now_ns() - now;
    } else if (++idle >= kIdleRoundsBeforeYield) {
      idle = 0;
      sched_yield();
    }
  }
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ThreadCpu{role, double(ts.tv_sec) + double(ts.tv_nsec) / 1e9, double(busy_ns) / 1e9};
}

}  // namespace gnf
