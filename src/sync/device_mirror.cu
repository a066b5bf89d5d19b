// DeviceMirror: GPU copies of host tables, updated by replaying the builder's stores in a kernel.
//
// Why a kernel and not cudaMemcpy of the changed words: the CUDA memory model says nothing about the
// order in which a copy engine's writes become visible to a kernel that is running meanwhile, and a
// reader must never see a pointer to a table group before the group's entries. Stores made by a
// kernel are covered by the PTX memory model: every thread ends a phase with fence.sc.gpu
// (__threadfence) and the block then meets at bar.sync, so each store of the next phase follows every
// store of this one in causality order. A reader that loads a later word, then fences (the acquire
// pattern: nf/l3fwd's loads are volatile, then fence.acq_rel.gpu), and loads an earlier word sees it.
// Readers' loads are volatile so that a persistent kernel never keeps reading a stale L1 line.
//
// Everything runs on a non-blocking stream of its own: the legacy default stream would wait for the
// persistent data-path kernels, which never end. The log travels through a pinned buffer of fixed
// size, allocated once, because freeing pinned or device memory waits for every kernel on the device.
#if defined(GNF_HAVE_CUDA)
#include "sync/device_mirror.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <vector>

#include "sync/ordering.h"
#include "util/cuda_check.h"
#include "util/error.h"

namespace gnf::sync {

namespace {

constexpr uint32_t kChunkStores = 1u << 20;  // 12 MiB of pinned log; longer logs go in several kernels
constexpr uint32_t kChunkPhases = 1u << 16;
constexpr uint32_t kReplayThreads = 1024;

struct RegionBases {
  uint32_t* words[DeviceMirror::kMaxRegions];
};

__global__ void replay_kernel(const TableStore* stores, const uint32_t* phase_ends, uint32_t phases,
                              RegionBases bases) {
  uint32_t begin = 0;
  for (uint32_t p = 0; p < phases; ++p) {
    const uint32_t end = phase_ends[p];
    for (uint32_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
      const TableStore s = stores[i];
      store_sys<MemoryOrder::Relaxed>(bases.words[s.region] + s.index, s.value);
    }
    __threadfence();
    __syncthreads();
    begin = end;
  }
}

}  // namespace

struct DeviceMirror::Impl {
  cudaStream_t stream = nullptr;
  cudaMemPool_t pool = nullptr;  // copy_in's, made on first use
  std::vector<uint32_t*> regions;
  std::vector<size_t> words;
  TableStore* stores = nullptr;   // pinned, kChunkStores
  uint32_t* phase_ends = nullptr;  // pinned, kChunkPhases

  void replay(uint32_t chunk_phases) {
    RegionBases bases{};
    for (size_t r = 0; r < regions.size(); ++r) bases.words[r] = regions[r];
    replay_kernel<<<1, kReplayThreads, 0, stream>>>(stores, phase_ends, chunk_phases, bases);
    GNF_CUDA_CHECK_LAUNCH();
    GNF_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
};

DeviceMirror::DeviceMirror() : impl_(std::make_unique<Impl>()) {
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  GNF_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&impl_->stores), kChunkStores * sizeof(TableStore),
                               cudaHostAllocMapped));
  GNF_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&impl_->phase_ends), kChunkPhases * sizeof(uint32_t),
                               cudaHostAllocMapped));
}

DeviceMirror::~DeviceMirror() {
  // Teardown runs after the data-path kernels have stopped; errors are reported, not thrown.
  for (uint32_t* r : impl_->regions) cudaFree(r);
  if (impl_->pool) cudaMemPoolDestroy(impl_->pool);
  cudaFreeHost(impl_->stores);
  cudaFreeHost(impl_->phase_ends);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

uint32_t DeviceMirror::add_region(const uint32_t* host, size_t words) {
  if (impl_->regions.size() == kMaxRegions) throw std::logic_error("DeviceMirror: too many regions");
  uint32_t* device = nullptr;
  GNF_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&device), std::max<size_t>(words, 1) * sizeof(uint32_t)));
  impl_->regions.push_back(device);
  impl_->words.push_back(words);
  GNF_CUDA_CHECK(cudaMemcpyAsync(device, host, words * sizeof(uint32_t), cudaMemcpyHostToDevice, impl_->stream));
  GNF_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  return uint32_t(impl_->regions.size() - 1);
}

const uint32_t* DeviceMirror::device(uint32_t region) const { return impl_->regions.at(region); }

size_t DeviceMirror::device_bytes() const {
  size_t bytes = 0;
  for (size_t w : impl_->words) bytes += w * sizeof(uint32_t);
  return bytes;
}

void* DeviceMirror::copy_in(const void* host, size_t bytes) {
  if (!impl_->pool) {
    int device = 0;
    GNF_CUDA_CHECK(cudaGetDevice(&device));
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    GNF_CUDA_CHECK(cudaMemPoolCreate(&impl_->pool, &props));
    // Freed memory stays in the pool: handing it back to the driver at a synchronisation is not
    // promised to wait for no kernel.
    uint64_t keep = std::numeric_limits<uint64_t>::max();
    GNF_CUDA_CHECK(cudaMemPoolSetAttribute(impl_->pool, cudaMemPoolAttrReleaseThreshold, &keep));
  }
  void* device = nullptr;
  GNF_CUDA_CHECK(cudaMallocFromPoolAsync(&device, std::max<size_t>(bytes, 8), impl_->pool, impl_->stream));
  GNF_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, impl_->stream));
  GNF_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  return device;
}

void DeviceMirror::release(void* device) noexcept {
  if (!device) return;
  cudaError_t err = cudaFreeAsync(device, impl_->stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(impl_->stream);
  if (err != cudaSuccess) std::fprintf(stderr, "gnf: DeviceMirror::release: %s\n", cudaGetErrorString(err));
}

void DeviceMirror::copy_out(void* host, const void* device, size_t bytes) {
  GNF_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, impl_->stream));
  GNF_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

void DeviceMirror::apply(const TableLog& log) {
  const std::vector<TableStore>& all = log.stores();
  for (const TableStore& s : all) {
    if (s.region >= impl_->regions.size() || s.index >= impl_->words[s.region])
      throw std::logic_error("DeviceMirror: a store outside every region");
  }
  // Cut the log into chunks that fit the pinned buffers; a kernel boundary orders as a release does.
  uint32_t chunk_stores = 0, chunk_phases = 0, begin = 0;
  for (uint32_t end : log.phase_ends()) {
    while (begin < end) {
      uint32_t take = std::min(end - begin, kChunkStores - chunk_stores);
      std::copy(all.begin() + begin, all.begin() + begin + take, impl_->stores + chunk_stores);
      chunk_stores += take;
      begin += take;
      impl_->phase_ends[chunk_phases++] = chunk_stores;
      if (chunk_stores == kChunkStores || chunk_phases == kChunkPhases) {
        impl_->replay(chunk_phases);
        chunk_stores = chunk_phases = 0;
      }
    }
  }
  if (chunk_phases) impl_->replay(chunk_phases);
}

}  // namespace gnf::sync
#endif
