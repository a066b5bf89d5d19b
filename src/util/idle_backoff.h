// How a poll-mode thread waits when nothing arrives (util/poll_thread.h).
//
// Spinning answers a frame within a round and burns its core whether frames come or not: an idle
// gnf used 1.1 cores on CI's 2-core VM. Backing off, as DPDK's l3fwd-power and VPP's adaptive
// mode do, trades a wake-up latency for that core: after kSpinNs of empty rounds the thread
// pauses (the CPU's spin-wait hint) after each round, after kPauseNs it yields its core after
// each, and after kYieldNs it sleeps, kFirstSleepNs and then twice as long each time, up to the
// policy's longest sleep, until a round finds work. A thread under load never gets past the spin:
// one frame per kSpinNs keeps it there.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>

namespace gnf {

// Config files and flags: "auto" spins while a generator feeds a port (a measurement: its
// latencies must not carry wake-ups) and backs off otherwise.
enum class IdleMode : uint8_t { Auto, Spin, Backoff };
inline constexpr std::pair<IdleMode, const char*> kIdleModeNames[] = {
    {IdleMode::Auto, "auto"},
    {IdleMode::Spin, "spin"},
    {IdleMode::Backoff, "backoff"},
};

// What one thread does, resolved from the mode.
struct IdlePolicy {
  bool backoff = false;
  uint64_t sleep_ns_max = 0;
};

class IdleBackoff {
 public:
  static constexpr uint64_t kSpinNs = 50'000;
  static constexpr uint64_t kPauseNs = 100'000;
  static constexpr uint64_t kYieldNs = 200'000;
  static constexpr uint64_t kFirstSleepNs = 8'000;

  enum class Step : uint8_t { Spin, Pause, Yield, Sleep };

  explicit IdleBackoff(IdlePolicy policy) : policy_(policy) {}

  // A round found work, or something waits on the thread: spin again.
  void reset() { idle_ = false; }
  // A round that started at `now_ns` found no work: how to wait before the next (Sleep: for
  // sleep_ns()).
  Step after_empty_round(uint64_t now_ns) {
    if (!policy_.backoff) return Step::Spin;
    if (!idle_) {
      idle_ = true;
      idle_since_ns_ = now_ns;
      sleep_ns_ = 0;
    }
    const uint64_t idle_ns = now_ns - idle_since_ns_;
    if (idle_ns < kSpinNs) return Step::Spin;
    if (idle_ns < kPauseNs) return Step::Pause;
    if (idle_ns < kYieldNs) return Step::Yield;
    sleep_ns_ = std::min(policy_.sleep_ns_max, sleep_ns_ ? 2 * sleep_ns_ : kFirstSleepNs);
    return Step::Sleep;
  }
  uint64_t sleep_ns() const { return sleep_ns_; }

 private:
  IdlePolicy policy_;
  bool idle_ = false;
  uint64_t idle_since_ns_ = 0;
  uint64_t sleep_ns_ = 0;
};

}  // namespace gnf
