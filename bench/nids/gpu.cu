#include "gpu.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "mem/block.h"
#include "util/cuda_check.h"

namespace gnf::nids_bench {

namespace {

constexpr uint32_t kThreadsPerBlock = 256;
constexpr uint32_t kLanes = 32;

struct Count {
  unsigned long long n;
  __host__ __device__ void operator()(uint32_t, uint32_t) { ++n; }
};

// Every lane of every warp reaches it (the kernels' loops never return early): one atomic a warp.
__device__ void add_warp_total(unsigned long long n, unsigned long long* total) {
  for (uint32_t d = kLanes / 2; d > 0; d /= 2) n += __shfl_down_sync(0xffffffffu, n, d);
  if (threadIdx.x % kLanes == 0) atomicAdd(total, n);
}

__global__ void scan_thread_per_packet(nf::NidsDfaView dfa, const uint8_t* bytes, const uint32_t* offsets,
                                       uint32_t packets, unsigned long long* total) {
  unsigned long long n = 0;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < packets; i += gridDim.x * blockDim.x) {
    Count count{0};
    nf::nids_scan(dfa, bytes + offsets[i], offsets[i + 1] - offsets[i], count);
    n += count.n;
  }
  add_warp_total(n, total);
}

// Lane k scans the packet's piece k of 32 (nids_scan_piece), as the nids NF's tiles do.
__global__ void scan_warp_per_packet(nf::NidsDfaView dfa, const uint8_t* bytes, const uint32_t* offsets,
                                     uint32_t packets, unsigned long long* total) {
  const uint32_t lane = threadIdx.x % kLanes;
  const uint32_t warps = gridDim.x * blockDim.x / kLanes;
  unsigned long long n = 0;
  for (uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / kLanes; i < packets; i += warps) {
    Count count{0};
    nf::nids_scan_piece(dfa, bytes + offsets[i], offsets[i + 1] - offsets[i], lane, kLanes, count);
    n += count.n;
  }
  add_warp_total(n, total);
}

}  // namespace

struct ScanOnGpu::Impl {
  Impl(const nf::NidsAutomaton& automaton, const Corpus& corpus)
      : packets(corpus.packets()),
        arena(mem::Domain::Device, automaton.arena_bytes()),
        bytes(mem::Domain::Device, corpus.bytes.size()),
        offsets(mem::Domain::Device, corpus.offsets.size() * sizeof(uint32_t)),
        total(mem::Domain::Device, sizeof(unsigned long long)) {
    arena.copy_in(arena.data(), automaton.arena(), automaton.arena_bytes());
    bytes.copy_in(bytes.data(), corpus.bytes.data(), corpus.bytes.size());
    offsets.copy_in(offsets.data(), corpus.offsets.data(), offsets.size());
    dfa = automaton.view_at(arena.data());
    GNF_CUDA_CHECK(cudaEventCreate(&start));
    GNF_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Impl() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }

  GpuScan timed(Shape shape) {
    auto* t = reinterpret_cast<unsigned long long*>(total.data());
    const auto* o = reinterpret_cast<const uint32_t*>(offsets.data());
    const uint64_t threads = uint64_t(packets) * (shape == Shape::WarpPerPacket ? kLanes : 1);
    const uint32_t blocks = uint32_t(std::max<uint64_t>(1, (threads + kThreadsPerBlock - 1) / kThreadsPerBlock));
    GNF_CUDA_CHECK(cudaMemset(t, 0, sizeof(unsigned long long)));
    GNF_CUDA_CHECK(cudaEventRecord(start));
    if (shape == Shape::WarpPerPacket)
      scan_warp_per_packet<<<blocks, kThreadsPerBlock>>>(dfa, bytes.data(), o, packets, t);
    else
      scan_thread_per_packet<<<blocks, kThreadsPerBlock>>>(dfa, bytes.data(), o, packets, t);
    GNF_CUDA_CHECK_LAUNCH();
    GNF_CUDA_CHECK(cudaEventRecord(stop));
    GNF_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    GNF_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    GpuScan result{ms / 1e3, 0};
    total.copy_out(&result.matches, total.data(), sizeof(result.matches));
    return result;
  }

  uint32_t packets;
  mem::Block arena, bytes, offsets, total;
  nf::NidsDfaView dfa{};
  cudaEvent_t start = nullptr, stop = nullptr;
};

ScanOnGpu::ScanOnGpu(const nf::NidsAutomaton& automaton, const Corpus& corpus)
    : impl_(std::make_unique<Impl>(automaton, corpus)) {}
ScanOnGpu::~ScanOnGpu() = default;

GpuScan ScanOnGpu::scan(Shape shape, int launches) {
  const uint64_t matches = impl_->timed(shape).matches;
  std::vector<GpuScan> runs;
  for (int i = 0; i < launches; ++i) {
    runs.push_back(impl_->timed(shape));
    if (runs.back().matches != matches) throw std::runtime_error("two launches over one corpus counted differently");
  }
  std::nth_element(runs.begin(), runs.begin() + launches / 2, runs.end(),
                   [](const GpuScan& a, const GpuScan& b) { return a.seconds < b.seconds; });
  return runs[launches / 2];
}

}  // namespace gnf::nids_bench
