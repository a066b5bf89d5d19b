// Cores for poll-mode threads, as DPDK gives each lcore a core of its own.
//
// The NIC model's threads and the CPU driver's spin. Left to the scheduler, two of them sometimes
// share a core for a time slice: on the H100 machine a cpu-path trial at 1 % load then saw frames
// taken off the wire 2 ms late (bench/results/2026-11-24-session13). Pinned, each keeps its core; what
// is left is the machine's own interruptions (bench/host/jitter.cpp measures them).
#pragma once
#include <cstdint>
#include <vector>

namespace gnf {

// `threads` distinct cores of those this process may run on, leaving the first of them to the
// rest of the process (the main thread, the slow path, the CUDA runtime's threads); empty when
// there are too few, or fewer than 4 in all, and then no thread is pinned.
std::vector<int> poll_thread_cores(uint32_t threads);

// Binds the calling thread to `core`: false for a negative core, or when the kernel refuses (the
// thread then runs where the scheduler puts it).
bool pin_this_thread(int core);

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
