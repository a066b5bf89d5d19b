#include "util/cores.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

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

std::vector<int> cores_in(const cpu_set_t& set) {
  std::vector<int> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cores.push_back(c);
  return cores;
}

// The cores thread `tid` may run on (0: the calling thread); empty if the kernel does not say.
std::vector<int> cores_of(pid_t tid) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(tid, sizeof(allowed), &allowed) != 0) return {};
  return cores_in(allowed);
}

cpu_set_t set_of(const std::vector<int>& cores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  return set;
}

std::vector<int> without(const std::vector<int>& cores, const std::vector<int>& taken) {
  std::vector<int> rest;
  for (int c : cores)
    if (std::find(taken.begin(), taken.end(), c) == taken.end()) rest.push_back(c);
  return rest;
}

// The highest-numbered `threads` of `cores`: the low cores are where the rest of the process and
// the kernel's housekeeping tend to run.
std::vector<int> highest(const std::vector<int>& cores, uint32_t threads) {
  return std::vector<int>(cores.rbegin(), cores.rbegin() + threads);
}

// poll_thread_cores among `allowed`.
std::vector<int> poll_cores_among(uint32_t threads, const std::vector<int>& allowed) {
  if (threads == 0) return {};
  // On a machine of 2 or 3 cores, shared with whatever else runs (CI's builds), a pinned spinner
  // could not move off a core another process wants: the scheduler does better there.
  if (allowed.size() < kMinCoresToPin || allowed.size() < size_t(threads) + 1) return {};
  return highest(allowed, threads);
}
}  // namespace

std::vector<int> calling_thread_cores() { return cores_of(0); }

std::vector<int> poll_thread_cores(uint32_t threads) { return poll_cores_among(threads, calling_thread_cores()); }

CpuList parse_cpu_list(const std::string& text) {
  CpuList list;
  auto fail = [&](std::string problem) {
    list.cpus.clear();
    list.problem = std::move(problem);
    return list;
  };
  if (text.empty()) return fail("expected a CPU list like \"2-7,10\"");
  const char* p = text.data();
  const char* const end = p + text.size();
  auto number = [&](int& value) {
    const auto [next, error] = std::from_chars(p, end, value);
    if (error != std::errc() || value < 0) return false;
    p = next;
    return true;
  };
  for (;;) {
    int first = 0, last = 0;
    if (!number(first)) return fail(fmt::format("expected a CPU list like \"2-7,10\", not \"{}\"", text));
    last = first;
    if (p != end && *p == '-' && (++p, !number(last)))
      return fail(fmt::format("expected a CPU list like \"2-7,10\", not \"{}\"", text));
    if (last < first) return fail(fmt::format("{}-{} runs backwards", first, last));
    if (last >= CPU_SETSIZE) return fail(fmt::format("CPU {}: CPUs are numbered below {}", last, CPU_SETSIZE));
    for (int c = first; c <= last; ++c) {
      if (std::find(list.cpus.begin(), list.cpus.end(), c) != list.cpus.end())
        return fail(fmt::format("CPU {} is listed twice", c));
      list.cpus.push_back(c);
    }
    if (p == end) return list;
    if (*p != ',') return fail(fmt::format("expected a CPU list like \"2-7,10\", not \"{}\"", text));
    ++p;
  }
}

std::string cpu_list_text(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  std::string text;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return text;
}

Placement plan_placement(uint32_t poll_threads, const std::vector<int>& cpus, const std::vector<int>& control_cpus,
                         const std::vector<int>& allowed) {
  Placement plan;
  if (!cpus.empty()) {
    plan.poll.assign(cpus.begin(), cpus.begin() + std::min<size_t>(poll_threads, cpus.size()));
    plan.kept_off = cpus;
  } else if (control_cpus.empty()) {
    plan.poll = poll_cores_among(poll_threads, allowed);
    plan.kept_off = plan.poll;
  } else {
    const std::vector<int> others = without(allowed, control_cpus);
    if (allowed.size() >= kMinCoresToPin && others.size() >= poll_threads) plan.poll = highest(others, poll_threads);
  }
  if (!control_cpus.empty()) plan.kept_off = without(allowed, control_cpus);
  return plan;
}

bool pin_this_thread(int core) {
  if (core < 0 || core >= CPU_SETSIZE) return false;
  return confine_this_thread({core});
}

bool confine_this_thread(const std::vector<int>& cores) {
  if (cores.empty()) return false;
  const cpu_set_t set = set_of(cores);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

std::vector<ThreadPlace> process_threads() {
  std::vector<ThreadPlace> threads;
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return threads;
  while (const dirent* task = readdir(tasks)) {
    const int tid = std::atoi(task->d_name);
    if (tid <= 0) continue;
    std::string name;
    std::getline(std::ifstream(fmt::format("/proc/self/task/{}/comm", tid)), name);
    std::vector<int> cores = cores_of(tid);
    if (!name.empty() && !cores.empty()) threads.push_back({tid, name, cores});
  }
  closedir(tasks);
  std::sort(threads.begin(), threads.end(), [](const ThreadPlace& a, const ThreadPlace& b) { return a.tid < b.tid; });
  return threads;
}

ThreadsKeptOff::ThreadsKeptOff(const std::vector<int>& cores) {
  if (cores.empty()) return;
  before_ = calling_thread_cores();
  const std::vector<int> rest = without(before_, cores);
  if (rest.empty()) return;
  set_every_thread(set_of(rest));
  applied_ = true;
}

ThreadsKeptOff::~ThreadsKeptOff() {
  if (applied_) set_every_thread(set_of(before_));
}

}  // namespace gnf
