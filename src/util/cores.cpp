#include "util/cores.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>

namespace gnf {

namespace {
constexpr size_t kMinCoresToPin = 4;

// Sets the cores every thread of this process may run on (a thread that exits meanwhile is skipped).
void set_every_thread(const cpu_set_t& set) {
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return;
  while (const dirent* task = readdir(tasks)) {
    const pid_t tid = pid_t(std::atoi(task->d_name));
    if (tid > 0) sched_setaffinity(tid, sizeof(set), &set);
  }
  closedir(tasks);
}

// The cores the calling thread may run on, lowest first; empty if the kernel does not say.
std::vector<int> calling_thread_cores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return {};
  std::vector<int> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cores.push_back(c);
  return cores;
}

cpu_set_t set_of(const std::vector<int>& cores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  return set;
}
}  // namespace

std::vector<int> poll_thread_cores(uint32_t threads) {
  if (threads == 0) return {};
  const std::vector<int> cores = calling_thread_cores();
  // On a machine of 2 or 3 cores, shared with whatever else runs (CI's builds), a pinned spinner
  // could not move off a core another process wants: the scheduler does better there.
  if (cores.size() < kMinCoresToPin || cores.size() < size_t(threads) + 1) return {};
  // The highest-numbered first: the low cores are where the rest of the process and the
  // kernel's housekeeping tend to run.
  return std::vector<int>(cores.rbegin(), cores.rbegin() + threads);
}

bool pin_this_thread(int core) {
  if (core < 0 || core >= CPU_SETSIZE) return false;
  const cpu_set_t set = set_of({core});
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

ThreadsKeptOff::ThreadsKeptOff(const std::vector<int>& cores) {
  if (cores.empty()) return;
  before_ = calling_thread_cores();
  std::vector<int> rest;
  for (int c : before_)
    if (std::find(cores.begin(), cores.end(), c) == cores.end()) rest.push_back(c);
  if (rest.empty()) return;
  set_every_thread(set_of(rest));
  applied_ = true;
}

ThreadsKeptOff::~ThreadsKeptOff() {
  if (applied_) set_every_thread(set_of(before_));
}

}  // namespace gnf
