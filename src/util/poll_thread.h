// A poll-mode thread's loop, written once for the NIC model's threads and the CPU driver's: spin
// over the rounds, yield the core after a run of empty ones, back off when idle if the policy says
// so (util/idle_backoff.h), and count the time the rounds that moved packets took.
#pragma once
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

#include "util/clock.h"
#include "util/cores.h"
#include "util/idle_backoff.h"

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
  std::string name = {};
  double slept_s = 0;           // backing off (util/idle_backoff.h): the wall time it slept
  std::vector<int> cores = {};  // the cores it could run on
  int tid = 0;
};

inline void name_thread(const std::string& name) { pthread_setname_np(pthread_self(), name.substr(0, 15).c_str()); }

// What a poll-mode thread is called, where it runs and how it waits.
struct PollThread {
  const char* role;
  std::string name;
  int core = -1;              // -1: unpinned, wherever the scheduler puts it ...
  std::vector<int> anywhere;  // ... among these (empty: where the thread that started it may run)
  IdlePolicy idle;
};

// Where a set of poll-mode threads runs (util/cores.h's plan) and how they wait.
struct PollThreads {
  std::vector<int> cores;     // thread i on cores[i]; unpinned where there is none ...
  std::vector<int> anywhere;  // ... among these: the process's, which the other threads may be kept off
  IdlePolicy idle;

  PollThread thread(const char* role, std::string name, size_t index) const {
    return PollThread{role, std::move(name), index < cores.size() ? cores[index] : -1, anywhere, idle};
  }
};

// The CPU's spin-wait hint: the core slows the loop down and gives its pipeline to its sibling
// hyperthread.
inline void pause_cpu() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Runs `round(now_ns)` (true when it moved a packet) until `running` clears, and says what the
// calling thread's CPU time was by then. `quiet()` says whether nothing waits on the thread but
// new arrivals: only then may it back off.
template <typename Round, typename Quiet>
ThreadCpu poll_until_stopped(const std::atomic<bool>& running, const PollThread& thread, Round&& round,
                             Quiet&& quiet) {
  name_thread(thread.name);
  const bool pinned = pin_this_thread(thread.core);
  if (!pinned) confine_this_thread(thread.anywhere);
  // A sleep overruns by up to the thread's timer slack, 50 us by default: backing off, the short
  // sleeps are meant as written.
  constexpr unsigned long kTimerSlackNs = 1000;
  if (thread.idle.backoff) prctl(PR_SET_TIMERSLACK, kTimerSlackNs, 0, 0, 0);
  IdleBackoff backoff(thread.idle);
  // After this many empty rounds the thread yields the core once, so that a small machine (CI has
  // 2 cores) still makes progress with more threads than cores.
  constexpr int kIdleRoundsBeforeYield = 64;
  // Every 16th empty round is timed; the cost of an empty round is their running mean (1/16 new),
  // leaving out a round the machine interrupted (over 4x the mean).
  constexpr int kTimeEveryEmptyRound = 16;
  int idle = 0, empty = 0;
  uint64_t busy_ns = 0, empty_round_ns = 0, slept_ns = 0;
  while (running.load(std::memory_order_relaxed)) {
    const uint64_t now = now_ns();
    if (round(now)) {
      idle = 0;
      backoff.reset();
      const uint64_t took = now_ns() - now;
      busy_ns += took > empty_round_ns ? took - empty_round_ns : 0;
      continue;
    }
    if (++empty % kTimeEveryEmptyRound == 0) {
      const int64_t took = int64_t(now_ns() - now), mean = int64_t(empty_round_ns);
      if (mean == 0) empty_round_ns = uint64_t(took);
      else if (took < 4 * mean) empty_round_ns = uint64_t(mean + (took - mean) / 16);
    }
    IdleBackoff::Step step = backoff.after_empty_round(now);
    if (step != IdleBackoff::Step::Spin && !quiet()) {
      backoff.reset();
      step = IdleBackoff::Step::Spin;
    }
    if (step == IdleBackoff::Step::Pause) pause_cpu();
    if (step == IdleBackoff::Step::Yield) sched_yield();
    if (step == IdleBackoff::Step::Sleep) {
      const uint64_t ns = backoff.sleep_ns();
      const timespec sleep{time_t(ns / 1'000'000'000), long(ns % 1'000'000'000)};
      const uint64_t before = now_ns();
      nanosleep(&sleep, nullptr);
      slept_ns += now_ns() - before;
    }
    if (step == IdleBackoff::Step::Spin && ++idle >= kIdleRoundsBeforeYield) {
      idle = 0;
      sched_yield();
    }
  }
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ThreadCpu{thread.role, double(ts.tv_sec) + double(ts.tv_nsec) / 1e9, double(busy_ns) / 1e9,
                   pinned ? thread.core : -1, thread.name, double(slept_ns) / 1e9, calling_thread_cores(),
                   int(gettid())};
}

}  // namespace gnf
