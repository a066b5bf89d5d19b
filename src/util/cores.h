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

}  // namespace gnf
