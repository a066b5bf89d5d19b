// gnf-pcie-probe: what one GPU thread's memory operations across PCIe cost,
// alone and with many blocks doing the same at once (bench/pcie/README.md). The
// persistent loops of the bypass path (the driver, the GPU agent) are made of
// these: a poll of pinned host memory, stores into it, and the fences that
// order them. Prints one JSON object per (operation, blocks).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda/atomic>
#include <immintrin.h>
#include <string>
#include <thread>
#include <vector>

#include "util/clock.h"
#include "util/cuda_check.h"
#include "util/gpu_timer.cuh"

namespace {

constexpr uint32_t kLineWords = 32;  // a 128-byte line per block, so blocks never share one

enum Op : int {
  kReadSys,           // ld.relaxed.sys of pinned memory: one round trip
  kReadAcquireSys,    // ld.acquire.sys of pinned memory
  kWriteSys,          // st.relaxed.sys into pinned memory (posted)
  kWriteFenceSys,     // the store, then fence.sc.sys (__threadfence_system)
  kWriteFenceGpu,     // the store into pinned memory, then fence.sc.gpu
                      // (__threadfence)
  kWriteThenRead,     // the store, then a read of another pinned line
  kFenceSysAlone,     // fence.sc.sys with no store before it
  kGpuWriteFenceGpu,  // st into GPU memory, then fence.sc.gpu
  kGlobalTimer,       // a read of %globaltimer (the loops' phase timing reads it)
  kWarpReadFour,      // lanes 0-3 each load a pinned word of a line of its own, in one instruction (a GPU
                      // agent's poll)
  kReadSharedWord,    // every block reads one and the same pinned word (a stop flag all blocks poll)
  kReadSharedLine,    // block b reads word b % 32 of one shared 128-byte line
  // Half the blocks (the odd ones) disturb, the even ones read as read_sys does: whether what one
  // SM does slows another's reads across PCIe.
  kReadBesideFenceSys,    // the odd blocks store and fence.sc.sys
  kReadBesideWrites,      // the odd blocks' 32 lanes store 16 bytes each into pinned memory
  kReadBesideAcquireGpu,  // the odd blocks load GPU memory and fence acquire at device scope
  kReadLineOthersWrite,   // the odd blocks store into the line their even neighbour reads
  kReadLineOthersRing,    // the same, each store after a fence.sc.sys (a doorbell)
  kOpCount
};
constexpr int kFirstMixed = kReadBesideFenceSys;
const char* const kOpNames[kOpCount] = {"read_sys",
                                        "read_acquire_sys",
                                        "write_sys",
                                        "write_fence_sys",
                                        "write_fence_gpu",
                                        "write_then_read",
                                        "fence_sys_alone",
                                        "gpu_write_fence_gpu",
                                        "global_timer",
                                        "warp_read_four",
                                        "read_shared_word",
                                        "read_shared_line",
                                        "read_beside_fence_sys",
                                        "read_beside_writes",
                                        "read_beside_acquire_gpu",
                                        "read_line_others_write",
                                        "read_line_others_ring"};

// One thread's operation `op`, `iterations` times back to back.
__device__ uint32_t run_op(int op, uint32_t iterations, uint32_t* mine, uint32_t* other, uint32_t* gpu_word) {
  cuda::atomic_ref<uint32_t, cuda::thread_scope_system> word(*mine), read_word(*other);
  cuda::atomic_ref<uint32_t, cuda::thread_scope_device> gword(*gpu_word);
  uint32_t acc = 0;
  for (uint32_t i = 0; i < iterations; ++i) {
    switch (op) {
      case kReadSys:
        acc += word.load(cuda::memory_order_relaxed) + i;
        break;
      case kReadAcquireSys:
        acc += word.load(cuda::memory_order_acquire) + i;
        break;
      case kWriteSys:
        word.store(i, cuda::memory_order_relaxed);
        break;
      case kWriteFenceSys:
        word.store(i, cuda::memory_order_relaxed);
        __threadfence_system();
        break;
      case kWriteFenceGpu:
        word.store(i, cuda::memory_order_relaxed);
        __threadfence();
        break;
      case kWriteThenRead:
        word.store(i, cuda::memory_order_relaxed);
        acc += read_word.load(cuda::memory_order_relaxed);
        break;
      case kFenceSysAlone:
        __threadfence_system();
        break;
      case kGpuWriteFenceGpu:
        gword.store(i, cuda::memory_order_relaxed);
        __threadfence();
        break;
      case kGlobalTimer:
        acc += uint32_t(gnf::global_timer_ns());
        break;
      case kReadBesideAcquireGpu:  // the disturber's part: the acquire a GPU poll makes once it found something
        acc += gword.load(cuda::memory_order_relaxed) + i;
        cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
        break;
    }
    // Each read's value feeds the loop, so reads are one after another, not overlapped.
    if (acc == 0xFFFFFFFFu) i = acc;
  }
  return acc;
}

// The mixed ops: the odd blocks disturb until every even block has done its reads.
__device__ void disturb(int op, uint32_t* mine, uint32_t* gpu_word, uint4* wide, const uint32_t* readers_done,
                        uint32_t readers, uint32_t* sink) {
  cuda::atomic_ref<const uint32_t, cuda::thread_scope_device> done(*readers_done);
  uint32_t acc = 0;
  while (done.load(cuda::memory_order_relaxed) < readers) {
    if (op == kReadBesideWrites) {  // every lane, 512 bytes an iteration, no fence
      uint4* line = wide + size_t(blockIdx.x) * 32 + threadIdx.x;
      for (uint32_t i = 0; i < 64; ++i) *line = make_uint4(i, i, i, i);
    } else if (threadIdx.x == 0) {
      const int own = op == kReadBesideFenceSys     ? kWriteFenceSys
                      : op == kReadBesideAcquireGpu ? kReadBesideAcquireGpu
                      : op == kReadLineOthersWrite  ? kWriteSys
                                                    : kWriteFenceSys;
      // The line-sharing ops store into the even neighbour's line (mine is one block's 2 lines).
      uint32_t* target = op >= kReadLineOthersWrite ? mine - 2 * kLineWords : mine;
      acc += run_op(own, 64, target, target, gpu_word);
    }
  }
  sink[blockIdx.x] = acc;
}

__global__ void probe(int op, uint32_t iterations, uint32_t* pinned, uint32_t* device, unsigned long long* ns_out,
                      uint32_t* sink, uint4* wide, uint32_t* readers_done) {
  uint32_t* mine = pinned + size_t(blockIdx.x) * 2 * kLineWords;
  uint32_t* gpu_word = device + size_t(blockIdx.x) * kLineWords;
  const bool mixed = op >= kFirstMixed;
  if (mixed && blockIdx.x % 2 == 1) {
    disturb(op, mine, gpu_word, wide, readers_done, (gridDim.x + 1) / 2, sink);
    return;
  }
  if (op == kWarpReadFour) {
    if (threadIdx.x >= 4) return;
    // Lanes 0 and 1 this block's two lines, lanes 2 and 3 two lines of its part of `wide`.
    uint32_t* line = threadIdx.x < 2
                         ? mine + threadIdx.x * kLineWords
                         : reinterpret_cast<uint32_t*>(wide + size_t(blockIdx.x) * 32 + (threadIdx.x - 2) * 8);
    cuda::atomic_ref<uint32_t, cuda::thread_scope_system> word(*line);
    const uint64_t start = gnf::global_timer_ns();
    uint32_t acc = 0;
    for (uint32_t i = 0; i < iterations; ++i)
      acc = __shfl_sync(0xFu, word.load(cuda::memory_order_relaxed) + acc, 0) + i;
    if (threadIdx.x == 0) {
      ns_out[blockIdx.x] = gnf::global_timer_ns() - start;
      sink[blockIdx.x] = acc;
    }
    return;
  }
  if (threadIdx.x != 0) return;
  // The shared ops read the first block's second line, which nothing writes.
  const bool shared = op == kReadSharedWord || op == kReadSharedLine;
  if (shared) mine = pinned + kLineWords + (op == kReadSharedLine ? blockIdx.x % kLineWords : 0);
  const uint64_t start = gnf::global_timer_ns();
  const int run = mixed || shared ? kReadSys : op;
  sink[blockIdx.x] = run_op(run, iterations, mine, mine + kLineWords, gpu_word);
  ns_out[blockIdx.x] = gnf::global_timer_ns() - start;
  if (mixed) atomicAdd(readers_done, 1u);
}

// Ping-pong: one GPU thread spins on `ping` (pinned, relaxed loads) and answers each new value by
// storing it into `pong` (pinned), after a system fence if `fence`; it stops at `last`.
__global__ void pong_kernel(const uint32_t* ping, uint32_t* pong, uint32_t last, bool fence) {
  uint32_t seen = 0;
  while (seen != last) {
    const uint32_t v = cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*const_cast<uint32_t*>(ping))
                           .load(cuda::memory_order_relaxed);
    if (v == seen) continue;
    if (fence) __threadfence_system();
    cuda::atomic_ref<uint32_t, cuda::thread_scope_system>(*pong).store(v, cuda::memory_order_relaxed);
    seen = v;
  }
}

// A host thread posts 1..pings into a pinned word and spins until the GPU thread's answer comes
// back: the round trip of a word from a host thread to a polling GPU thread and back, which every
// frame of the bypass path makes twice (wire side -> GPU agent, GPU agent -> wire side) besides the
// loops' own rounds. Prints the round trip's min, p50 and p99.
void ping_pong(uint32_t pings, bool fence, bool flush) {
  uint32_t* words = nullptr;
  GNF_CUDA_CHECK(cudaHostAlloc(&words, 2 * kLineWords * sizeof(uint32_t), cudaHostAllocMapped));
  uint32_t* ping = words;
  uint32_t* pong = words + kLineWords;
  *ping = 0;
  *pong = 0;
  pong_kernel<<<1, 1>>>(ping, pong, pings, fence);
  GNF_CUDA_CHECK_LAUNCH();
  std::vector<uint64_t> rtt;
  for (uint32_t i = 1; i <= pings; ++i) {
    const uint64_t t0 = gnf::now_ns();
    __atomic_store_n(ping, i, __ATOMIC_RELEASE);
    if (flush) _mm_clflush(ping);
    while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != i) {
    }
    rtt.push_back(gnf::now_ns() - t0);
  }
  GNF_CUDA_CHECK(cudaDeviceSynchronize());
  std::sort(rtt.begin(), rtt.end());
  std::printf("{\"op\": \"ping_pong%s%s\", \"pings\": %u, \"min_ns\": %llu, \"p50_ns\": %llu, \"p99_ns\": %llu}\n",
              fence ? "_fence_sys" : "", flush ? "_clflush" : "", pings, (unsigned long long)rtt.front(),
              (unsigned long long)rtt[rtt.size() / 2], (unsigned long long)rtt[rtt.size() * 99 / 100]);
  std::fflush(stdout);
  GNF_CUDA_CHECK(cudaFreeHost(words));
}

}  // namespace

// Host threads that spin reading (or writing) every block's lines, as the NIC model's threads poll
// the words the GPU writes (and store the words the GPU polls): each GPU access then meets a line
// held in a CPU core's cache.
class HostPollers {
 public:
  HostPollers(uint32_t count, bool write, uint32_t* lines, size_t words) {
    for (uint32_t t = 0; t < count; ++t)
      threads_.emplace_back([this, write, lines, words] {
        uint64_t sum = 0;
        while (running_.load(std::memory_order_relaxed))
          for (size_t w = 0; w < words; w += kLineWords) {
            if (write)
              __atomic_store_n(lines + w, uint32_t(sum++), __ATOMIC_RELEASE);
            else
              sum += __atomic_load_n(lines + w, __ATOMIC_ACQUIRE);
          }
        sink_.fetch_add(sum, std::memory_order_relaxed);
      });
  }
  ~HostPollers() {
    running_.store(false);
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> running_{true};
  std::atomic<uint64_t> sink_{0};
  std::vector<std::thread> threads_;
};

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "ping-pong") {
    const uint32_t pings = argc > 2 ? uint32_t(std::atoi(argv[2])) : 100000;
    ping_pong(pings, false, false);
    ping_pong(pings, true, false);
    ping_pong(pings, false, true);
    return 0;
  }
  const uint32_t iterations = argc > 1 ? uint32_t(std::atoi(argv[1])) : 20000;
  const uint32_t pollers = argc > 2 ? uint32_t(std::atoi(argv[2])) : 0;
  const bool pollers_write = argc > 3 && std::string(argv[3]) == "write";
  const std::vector<uint32_t> block_counts = {1, 4, 16, 32, 64};
  const uint32_t max_blocks = 64;
  uint32_t* pinned = nullptr;
  uint32_t* device = nullptr;
  unsigned long long* ns = nullptr;
  uint32_t* sink = nullptr;
  GNF_CUDA_CHECK(cudaHostAlloc(&pinned, max_blocks * 2 * kLineWords * sizeof(uint32_t), cudaHostAllocMapped));
  GNF_CUDA_CHECK(cudaMalloc(&device, max_blocks * kLineWords * sizeof(uint32_t)));
  GNF_CUDA_CHECK(cudaMallocManaged(&ns, max_blocks * sizeof(unsigned long long)));
  GNF_CUDA_CHECK(cudaMalloc(&sink, max_blocks * sizeof(uint32_t)));
  uint4* wide = nullptr;  // the disturbers' stores: 512 bytes a block, pinned
  uint32_t* readers_done = nullptr;
  GNF_CUDA_CHECK(cudaHostAlloc(&wide, max_blocks * 32 * sizeof(uint4), cudaHostAllocMapped));
  GNF_CUDA_CHECK(cudaMalloc(&readers_done, sizeof(uint32_t)));
  {
    HostPollers host(pollers, pollers_write, pinned,
                     max_blocks * 2 * kLineWords);  // stopped before the memory is freed
    for (int op = 0; op < kOpCount; ++op) {
      for (uint32_t blocks : block_counts) {
        GNF_CUDA_CHECK(cudaMemset(readers_done, 0, sizeof(uint32_t)));
        probe<<<blocks, 32>>>(op, iterations, pinned, device, ns, sink, wide, readers_done);
        GNF_CUDA_CHECK_LAUNCH();
        GNF_CUDA_CHECK(cudaDeviceSynchronize());
        // A mixed op times its readers (the even blocks) only.
        const uint32_t step = op >= kFirstMixed ? 2 : 1;
        double sum = 0, worst = 0;
        uint32_t timed = 0;
        for (uint32_t b = 0; b < blocks; b += step, ++timed) {
          sum += double(ns[b]);
          worst = std::max(worst, double(ns[b]));
        }
        const double per_op_ns = sum / timed / iterations;
        std::printf(
            "{\"op\": \"%s\", \"blocks\": %u, \"host_pollers\": %u, \"host_pollers_write\": %s, "
            "\"ns_per_op\": %.1f, \"total_mops\": %.2f}\n",
            kOpNames[op], blocks, pollers, pollers_write ? "true" : "false", per_op_ns,
            double(timed) * iterations / worst * 1e3);
        std::fflush(stdout);
      }
    }
  }
  GNF_CUDA_CHECK(cudaFreeHost(pinned));
  GNF_CUDA_CHECK(cudaFree(device));
  GNF_CUDA_CHECK(cudaFree(ns));
  GNF_CUDA_CHECK(cudaFree(sink));
  GNF_CUDA_CHECK(cudaFreeHost(wide));
  GNF_CUDA_CHECK(cudaFree(readers_done));
  return 0;
}
