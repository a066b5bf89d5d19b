// The measured window of a benchmark trial: the frames *sent* (scheduled first bit, as the stamp
// says) in [start_ns, start_ns + length_ns). Frames sent before it are the warm-up; they still
// pass through the NIC, the driver and the sinks, but count in no statistic of the window.
#pragma once
#include <cstdint>

namespace gnf::wire {

inline constexpr uint64_t kNsPerSecond = 1'000'000'000;

struct MeasuredWindow {
  uint64_t start_ns = 0;   // CLOCK_MONOTONIC ns
  uint64_t length_ns = 0;

  bool contains(uint64_t send_time_ns) const {
    return send_time_ns >= start_ns && send_time_ns - start_ns < length_ns;
  }
  // Per-second series bin by send second: t = 0 is the window's first second.
  uint64_t second_of(uint64_t send_time_ns) const { return (send_time_ns - start_ns) / kNsPerSecond; }
  uint64_t seconds() const { return (length_ns + kNsPerSecond - 1) / kNsPerSecond; }
};

}  // namespace gnf::wire
