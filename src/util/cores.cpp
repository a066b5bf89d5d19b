#include "util/cores.h"

#include <pthread.h>
#include <sched.h>

namespace gnf {

namespace {
constexpr size_t kMinCoresToPin = 4;
}  // namespace

std::vector<int> poll_thread_cores(uint32_t threads) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (threads == 0 || sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return {};
  std::vector<int> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cores.push_back(c);
  // On a machine of 2 or 3 cores, shared with whatever else runs (CI's builds), a pinned spinner
  // could not move off a core another process wants: the scheduler does better there.
  if (cores.size() < kMinCoresToPin || cores.size() < size_t(threads) + 1) return {};
  // The highest-numbered first: the low cores are where the rest of the process and the
  // kernel's housekeeping tend to run.
  return std::vector<int>(cores.rbegin(), cores.rbegin() + threads);
}

bool pin_this_thread(int core) {
  if (core < 0 || core >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

}  // namespace gnf
