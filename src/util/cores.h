// Cores for poll-mode threads, as DPDK gives each lcore a core of its own.
//
// The NIC model's threads and the CPU driver's spin. Left to the scheduler, two of them sometimes
// share a core for a time slice: on the H100 machine a cpu-path trial at 1 % load then saw frames
// taken off the wire 2 ms late (bench/results/2026-11-24-session13). Pinned, each keeps its core; what
// is left is the machine's own interruptions (bench/host/jitter.cpp measures them).
//
// An operator may say which cores ([threads] cpus, `--cpus`, as DPDK's -l and VPP's
// corelist-workers do) and where the other threads go (control_cpus); plan_placement turns that, or
// nothing, into a plan.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gnf {

// `threads` distinct cores of those this process may run on, leaving the first of them to the
// rest of the process (the main thread, the slow path, the CUDA runtime's threads); empty when
// there are too few, or fewer than 4 in all, and then no thread is pinned.
std::vector<int> poll_thread_cores(uint32_t threads);

// The cores the calling thread may run on (the main thread's: the process's), lowest first.
std::vector<int> calling_thread_cores();

// A CPU list as taskset -c, cpusets and DPDK's -l write it ("2-7,10"): the CPUs in the order
// written, or what is wrong with the text (a CPU named twice, a range backwards, a number beyond
// what Linux numbers).
struct CpuList {
  std::vector<int> cpus;
  std::string problem;  // empty when the text is a list
};
CpuList parse_cpu_list(const std::string& text);
// The list as Linux writes it: ascending, runs as ranges ("0-3,6"); "" for none.
std::string cpu_list_text(std::vector<int> cpus);

// Where a run's threads go.
struct Placement {
  std::vector<int> poll;      // per poll-mode thread, in order; empty: none is pinned
  std::vector<int> kept_off;  // the cores every other thread stays off (ThreadsKeptOff)
};
// For `poll_threads` threads on a process that may run on `allowed`: with `cpus` (the operator's
// list, at least poll_threads long) they take it in order and the other threads stay off the whole
// list; without, poll_thread_cores' choice among the cores outside `control_cpus`. With
// `control_cpus` the other threads run there, whatever else.
Placement plan_placement(uint32_t poll_threads, const std::vector<int>& cpus, const std::vector<int>& control_cpus,
                         const std::vector<int>& allowed);

// Binds the calling thread to `core`: false for a negative core, or when the kernel refuses (the
// thread then runs where the scheduler puts it).
bool pin_this_thread(int core);
// Lets the calling thread run on any of `cores` (none: leaves it as it is); false when the kernel
// refuses.
bool confine_this_thread(const std::vector<int>& cores);

// A thread of this process, and the cores it may run on.
struct ThreadPlace {
  int tid;
  std::string name;
  std::vector<int> cores;
};
// Every thread this process has now (a thread that exits meanwhile is left out).
std::vector<ThreadPlace> process_threads();

// Keeps every thread this process has now (the main thread, the CUDA runtime's, NVML's), and so
// every thread they start, off `cores` while it lives, as DPDK keeps its control threads off the
// lcores: left to the scheduler, such a thread woke up on a poll thread's core and stopped it for
// milliseconds (the NIC model then late on 0.1-0.4 % of its frames, bench/results/2026-11-24-session16).
// Threads that pin themselves afterwards (the poll threads) may still take those cores. When it
// ends, the process's threads may run where the calling thread could before. Does nothing if
// `cores` would leave no core.
class ThreadsKeptOff {
 public:
  explicit ThreadsKeptOff(const std::vector<int>& cores);
  ~ThreadsKeptOff();
  ThreadsKeptOff(const ThreadsKeptOff&) = delete;
  ThreadsKeptOff& operator=(const ThreadsKeptOff&) = delete;

 private:
  std::vector<int> before_;  // the cores the calling thread could run on
  bool applied_ = false;
};

}  // namespace gnf
