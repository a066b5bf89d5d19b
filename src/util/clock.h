// One time base for the whole dataplane: CLOCK_MONOTONIC in nanoseconds.
#pragma once
#include <cstdint>
#include <ctime>

namespace gnf {

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

// Busy waits burn a core on purpose (poll-mode style) but yield when the wait is long,
// so that tests on a 2-core CI machine do not starve the threads they wait for.
void spin_until(uint64_t deadline_ns);

}  // namespace gnf
