// The clock of alert records: CLOCK_REALTIME in nanoseconds (EVE's and fast.log's time stamps), read
// directly on the host, and on the GPU as its global timer (%globaltimer) plus an offset measured
// once, when the chain goes onto the GPU (nids_rules.h).
//
// Why an offset. On the H100 the global timer does read about the Unix epoch's nanoseconds: gnf's
// GPU clock (driver/gpu_clock.h) found it ~1.7954e18 ns ahead of CLOCK_MONOTONIC (sessions 8 and 9,
// bench/results), which is the host's boot time in Unix time. But nothing documents that, nor that
// the timer follows the host's clock adjustments (NTP), so alerts do not rely on it: the offset
// maps whatever the timer counts onto the host's clock. It is not tracked afterwards: the two
// clocks drift apart by parts per million (the GPU clock's offset moved 1.7 ms between two runs an
// hour apart), which alerts, stamped to the microsecond, can bear for hours.
#pragma once
#include <chrono>
#include <cstdint>

namespace gnf::nf {

inline uint64_t nids_unix_now_ns() {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// CLOCK_REALTIME ns minus %globaltimer ns: a one-thread kernel reads the timer inside the host's
// [before, after] around its launch and completion; of 16 launches the shortest round trip counts,
// off by at most half of it (a launch and a synchronisation: ~10 us). Host code; no kernel of the
// device may be running that never ends (it synchronises its own stream, and frees pinned memory).
// Throws gnf::UserError in a build without CUDA, std::runtime_error on a CUDA failure.
int64_t nids_unix_minus_gpu_timer_ns();

}  // namespace gnf::nf
