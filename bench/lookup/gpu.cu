// gnf's lookups on the GPU (gpu.h). One thread per address: thread i looks up address i and either
// writes its answer to out[i] ("write"), or adds it into its block's sum, one word per block
// ("sum": the same lookups without a result stream, so the difference is what writing costs).
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "gpu.h"
#include "mem/block.h"
#include "mem/cuda_alloc.h"
#include "sync/device_mirror.h"
#include "util/cuda_check.h"

namespace gnf::lookup_bench {

namespace {

constexpr uint32_t kVerifyBlock = 256;

struct Lpm4Lookup {
  nf::Lpm4View view;
  const uint32_t* addrs;
  __device__ uint32_t operator()(uint32_t i) const {
    uint32_t hop = kNoRoute;
    nf::lpm4_lookup(view, addrs[i], hop);
    return hop;
  }
};

struct Lpm6Lookup {
  nf::Lpm6View view;
  const uint8_t* addrs;  // 16 bytes each, network order, as in the IPv6 header
  __device__ uint32_t operator()(uint32_t i) const {
    uint32_t hop = kNoRoute;
    nf::lpm6_lookup(view, addrs + size_t(i) * 16, hop);
    return hop;
  }
};

// Every thread of the block takes part (no early return), those past `count` with kNoRoute, so the
// warp-wide sum sees full warps.
template <bool kWrite, typename Lookup>
__global__ void lookup_kernel(Lookup lookup, uint32_t count, uint32_t* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t hop = i < count ? lookup(i) : kNoRoute;
  if constexpr (kWrite) {
    if (i < count) out[i] = hop;
  } else {
    __shared__ uint32_t block_total;
    if (threadIdx.x == 0) block_total = 0;
    __syncthreads();
    const uint32_t warp_total = __reduce_add_sync(0xffffffffu, hop);
    if (threadIdx.x % 32 == 0) atomicAdd(&block_total, warp_total);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = block_total;
  }
}

uint32_t grid_for(uint64_t count, uint32_t block) { return uint32_t((count + block - 1) / block); }

// The address set in GPU memory and the kernels' output, for one set.
struct SetOnGpu {
  uint32_t count;
  mem::Block addrs, out;

  SetOnGpu(const void* host, uint64_t n, size_t address_bytes, uint32_t smallest_block)
      : count(uint32_t(n)),
        addrs(mem::Domain::Device, n * address_bytes),
        out(mem::Domain::Device, std::max<uint64_t>(n, grid_for(n, smallest_block)) * 4) {
    GNF_CUDA_CHECK(cudaMemcpy(addrs.data(), host, n * address_bytes, cudaMemcpyHostToDevice));
  }
  uint32_t* results() const { return reinterpret_cast<uint32_t*>(out.data()); }
};

template <bool kWrite, typename Lookup>
void launch(const Lookup& lookup, const SetOnGpu& set, uint32_t block, cudaStream_t stream) {
  lookup_kernel<kWrite><<<grid_for(set.count, block), block, 0, stream>>>(lookup, set.count, set.results());
  GNF_CUDA_CHECK_LAUNCH();
}

// Both kernels' answers against the CPU's: every written answer, and the sum of all block sums
// (mod 2^32) against the sum of the expected answers.
template <typename Lookup>
void verify(const char* family, const std::string& set_name, const Lookup& lookup, const SetOnGpu& set,
            const std::vector<uint32_t>& expected, cudaStream_t stream, Report& report) {
  std::vector<uint32_t> got(set.count);
  launch<true>(lookup, set, kVerifyBlock, stream);
  GNF_CUDA_CHECK(cudaMemcpyAsync(got.data(), set.results(), got.size() * 4, cudaMemcpyDeviceToHost, stream));
  GNF_CUDA_CHECK(cudaStreamSynchronize(stream));
  uint64_t mismatches = 0;
  uint32_t want_sum = 0;
  for (uint32_t i = 0; i < set.count; ++i) {
    want_sum += expected[i];
    if (got[i] != expected[i] && ++mismatches <= 10) {
      fprintf(stderr, "MISMATCH %s %s address #%u: CPU %u, GPU kernel %u\n", family, set_name.c_str(), i, expected[i],
              got[i]);
    }
  }
  std::vector<uint32_t> sums(grid_for(set.count, kVerifyBlock));
  launch<false>(lookup, set, kVerifyBlock, stream);
  GNF_CUDA_CHECK(cudaMemcpyAsync(sums.data(), set.results(), sums.size() * 4, cudaMemcpyDeviceToHost, stream));
  GNF_CUDA_CHECK(cudaStreamSynchronize(stream));
  uint32_t got_sum = 0;
  for (uint32_t s : sums) got_sum += s;
  const bool sums_agree = got_sum == want_sum;
  report.verification.push_back(
      {{"family", family},
       {"address_set", set_name},
       {"addresses", set.count},
       {"implementations", {"gpu kernel (write): every answer", "gpu kernel (sum): the total"}},
       {"against", "the CPU implementations' answers"},
       {"mismatches", mismatches + (sums_agree ? 0 : 1)},
       {"agree", mismatches == 0 && sums_agree}});
  if (mismatches || !sums_agree) {
    throw Disagreement(fmt::format("{} {}: the GPU's answers differ from the CPU's ({} answers; sums {})", family,
                                   set_name, mismatches, sums_agree ? "agree" : "differ"));
  }
  fprintf(stderr, "%s %s: the GPU kernels agree with the CPU on %u addresses\n", family, set_name.c_str(), set.count);
}

// Times one kernel at one block size: a warm-up launch set, then o.repetitions launch sets of
// enough launches over the set to make o.gpu_lookups, each timed with CUDA events.
template <bool kWrite, typename Lookup>
Measurement time_kernel(const char* family, const char* implementation, const std::string& set_name,
                        const Lookup& lookup, const SetOnGpu& set, uint32_t block, const Options& o,
                        cudaStream_t stream) {
  const uint64_t launches = std::max<uint64_t>(1, (o.gpu_lookups + set.count - 1) / set.count);
  cudaEvent_t start, stop;
  GNF_CUDA_CHECK(cudaEventCreate(&start));
  GNF_CUDA_CHECK(cudaEventCreate(&stop));
  Measurement m;
  m.family = family;
  m.device = "gpu";
  m.implementation = implementation;
  m.library = "gnf";
  m.variant = kWrite ? "write" : "sum";
  m.batch = block;
  m.address_set = set_name;
  m.lookups = launches * set.count;
  m.detail = {{"block", block},
              {"grid", grid_for(set.count, block)},
              {"launches", launches},
              {"addresses_per_launch", set.count}};
  for (int r = -1; r < o.repetitions; ++r) {  // r = -1: the warm-up
    GNF_CUDA_CHECK(cudaEventRecord(start, stream));
    for (uint64_t l = 0; l < launches; ++l) launch<kWrite>(lookup, set, block, stream);
    GNF_CUDA_CHECK(cudaEventRecord(stop, stream));
    GNF_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    GNF_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (r >= 0) m.seconds.push_back(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  fprintf(stderr, "  %s %s %s: %.2f Glookups/s (best of %d)\n", family, set_name.c_str(), m.label().c_str(),
          m.lookups / m.best_s() / 1e9, o.repetitions);
  return m;
}

template <typename Lookup>
void run_set(const char* family, const char* implementation, const std::string& set_name, Lookup lookup,
             const SetOnGpu& set, const std::vector<uint32_t>& expected, const Options& o, cudaStream_t stream,
             Report& report) {
  verify(family, set_name, lookup, set, expected, stream, report);
  for (uint32_t block : o.block_sizes) {
    report.measurements.push_back(time_kernel<true>(family, implementation, set_name, lookup, set, block, o, stream));
  }
  for (uint32_t block : o.block_sizes) {
    report.measurements.push_back(time_kernel<false>(family, implementation, set_name, lookup, set, block, o, stream));
  }
}

uint32_t smallest(const std::vector<uint32_t>& blocks) { return *std::min_element(blocks.begin(), blocks.end()); }

// The tables' GPU copy, made as Router::device_tables() makes it: a mirror region per table.
struct TablesOnGpu {
  sync::DeviceMirror mirror;
  const uint32_t* tbl24;
  const uint32_t* tbl8;
  cudaStream_t stream = nullptr;

  TablesOnGpu(const uint32_t* host_tbl24, size_t tbl24_words, const uint32_t* host_tbl8, size_t tbl8_words) {
    tbl24 = mirror.device(mirror.add_region(host_tbl24, tbl24_words));
    tbl8 = mirror.device(mirror.add_region(host_tbl8, tbl8_words));
    GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  ~TablesOnGpu() { cudaStreamDestroy(stream); }
};

}  // namespace

std::string gpu_unusable_reason() { return mem::cuda_device_available() ? "" : "no usable CUDA device here"; }

nlohmann::json gpu_description() {
  cudaDeviceProp p{};
  GNF_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  return {{"name", p.name},
          {"compute_capability", fmt::format("{}.{}", p.major, p.minor)},
          {"multiprocessors", p.multiProcessorCount},
          {"memory_bytes", p.totalGlobalMem},
          {"l2_cache_bytes", p.l2CacheSize}};
}

struct Lpm4OnGpu::Impl {
  TablesOnGpu tables;
  nf::Lpm4View view;
};

Lpm4OnGpu::Lpm4OnGpu(const nf::Lpm4Table& table)
    : impl_(new Impl{{table.tbl24_words(), nf::kLpm4Tbl24Entries, table.tbl8_words(), table.tbl8_word_count()},
                     table.view()}) {
  impl_->view.tbl24 = impl_->tables.tbl24;
  impl_->view.tbl8 = impl_->tables.tbl8;
}
Lpm4OnGpu::~Lpm4OnGpu() = default;
size_t Lpm4OnGpu::device_bytes() const { return impl_->tables.mirror.device_bytes(); }

void Lpm4OnGpu::run(const std::string& set, const std::vector<uint32_t>& addrs, const std::vector<uint32_t>& expected,
                    const Options& o, Report& report) {
  const SetOnGpu on_gpu(addrs.data(), addrs.size(), 4, smallest(o.block_sizes));
  const Lpm4Lookup lookup{impl_->view, reinterpret_cast<const uint32_t*>(on_gpu.addrs.data())};
  run_set("ipv4", "lpm4_lookup", set, lookup, on_gpu, expected, o, impl_->tables.stream, report);
}

struct Lpm6OnGpu::Impl {
  TablesOnGpu tables;
  nf::Lpm6View view;
};

Lpm6OnGpu::Lpm6OnGpu(const nf::Lpm6Table& table)
    : impl_(new Impl{{table.tbl24_words(), nf::kLpm6Tbl24Entries, table.tbl8_words(), table.tbl8_word_count()},
                     table.view()}) {
  impl_->view.tbl24 = impl_->tables.tbl24;
  impl_->view.tbl8 = impl_->tables.tbl8;
}
Lpm6OnGpu::~Lpm6OnGpu() = default;
size_t Lpm6OnGpu::device_bytes() const { return impl_->tables.mirror.device_bytes(); }

void Lpm6OnGpu::run(const std::string& set, const std::vector<oracle::Ipv6Bytes>& addrs,
                    const std::vector<uint32_t>& expected, const Options& o, Report& report) {
  const SetOnGpu on_gpu(addrs.data(), addrs.size(), 16, smallest(o.block_sizes));
  const Lpm6Lookup lookup{impl_->view, on_gpu.addrs.data()};
  run_set("ipv6", "lpm6_lookup", set, lookup, on_gpu, expected, o, impl_->tables.stream, report);
}

}  // namespace gnf::lookup_bench
