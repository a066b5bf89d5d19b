#include "gpu.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "mem/block.h"
#include "nf/ipsec/device_cipher.h"
#include "util/cuda_check.h"

namespace gnf::esp_bench {

namespace {

// Blocks of 256 threads, two to an SM (128 registers a thread). The AES tables take 72 KiB of
// shared memory a block (nf/ipsec/aes_lanes.cuh), so three would fit, and a GCM-only kernel of
// AES-128 alone ran 3 % faster at three (85 registers, more warps to hide GHASH's loads); but at
// 85 registers these kernels spill (the AES-256 and partial-block paths beside it) and GCM lost
// 45 % (bench/results/2026-11-25-session20). One block (255 registers) gained nothing.
constexpr uint32_t kThreadsPerBlock = 256;
constexpr uint32_t kBlocksPerSm = 2;

// One thread per packet (the seed paper's shape): outbound SAs seal, their inbound twins open.
template <bool kSeal>
__global__ void __launch_bounds__(kThreadsPerBlock, kBlocksPerSm)
    esp_thread_per_packet(nf::DeviceEspCipher in_global, const nf::IpsecSa* sas, const PacketJob* jobs, uint32_t count,
                          uint8_t* slots, uint32_t* refused) {
  extern __shared__ uint4 shared[];
  const nf::LaneEspCipher cipher = nf::esp_cipher_in_shared(in_global, shared);
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const PacketJob j = jobs[i];
    const uint32_t sa = kSeal ? j.sa : j.sa + 1;
    const nf::EspCryptoJob job = crypto_job(j, slots);
    if (!(kSeal ? cipher.seal(sa, sas[sa], job) : cipher.open(sa, sas[sa], job))) atomicAdd(refused, 1u);
  }
}

// A tile of kTile lanes per packet (nf/tile.cuh), GCM SAs only: GCM's blocks dealt out over the
// lanes (DeviceEspCipher::seal_gcm_tile); the tiles of a warp take neighbouring packets.
template <bool kSeal, uint32_t kTile>
__global__ void __launch_bounds__(kThreadsPerBlock, kBlocksPerSm)
    esp_tile_per_packet(nf::DeviceEspCipher in_global, const nf::IpsecSa* sas, const PacketJob* jobs, uint32_t count,
                        uint8_t* slots, uint32_t* refused) {
  extern __shared__ uint4 shared[];
  const nf::LaneEspCipher cipher = nf::esp_cipher_in_shared(in_global, shared);
  const nf::Tile tile = nf::tile_of(kTile);
  const uint32_t tiles = gridDim.x * blockDim.x / kTile;
  for (uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / kTile; i < count; i += tiles) {
    const PacketJob j = jobs[i];
    const uint32_t sa = kSeal ? j.sa : j.sa + 1;
    const nf::EspCryptoJob job = crypto_job(j, slots);
    const bool ok = kSeal ? cipher.seal_gcm_tile(sa, sas[sa], job, tile) : cipher.open_gcm_tile(sa, sas[sa], job, tile);
    if (!ok && tile.leader()) atomicAdd(refused, 1u);
  }
}

// As many blocks as the packets need, but no more than stay resident at once: the kernels loop
// over the packets, and every block copies the tables (72 KiB) once. The attribute and the
// occupancy are settled on a kernel's first launch (the untimed warm-up of EspOnGpu::rate), so
// that a timed launch waits on no host call between its start event and the kernel.
template <class Kernel>
void launch_on(Kernel* kernel, uint32_t threads, uint32_t count, const nf::DeviceEspCipher& cipher, const nf::IpsecSa* s,
               const PacketJob* j, uint8_t* on, uint32_t* r) {
  static std::map<const void*, uint64_t> resident_blocks;  // per kernel, over the GPU
  auto [at, first] = resident_blocks.try_emplace(reinterpret_cast<const void*>(kernel), 0);
  if (first) {
    GNF_CUDA_CHECK(nf::esp_allow_lane_tables(kernel));
    int device = 0, sms = 0, resident = 0;
    GNF_CUDA_CHECK(cudaGetDevice(&device));
    GNF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GNF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreadsPerBlock, nf::kAesLaneTablesBytes));
    at->second = uint64_t(sms) * std::max(resident, 1);
  }
  const uint64_t needed = (uint64_t(threads) + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const uint32_t blocks = uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(needed, at->second)));
  kernel<<<blocks, kThreadsPerBlock, nf::kAesLaneTablesBytes>>>(cipher, s, j, count, on, r);
  GNF_CUDA_CHECK_LAUNCH();
}

template <bool kSeal>
void launch_shape(uint32_t tile, uint32_t count, const nf::DeviceEspCipher& cipher, const nf::IpsecSa* s,
                  const PacketJob* j, uint8_t* on, uint32_t* r) {
  const uint32_t threads = count * tile;
  switch (tile) {
    case 1: launch_on(esp_thread_per_packet<kSeal>, threads, count, cipher, s, j, on, r); break;
    case 4: launch_on(esp_tile_per_packet<kSeal, 4>, threads, count, cipher, s, j, on, r); break;
    case 8: launch_on(esp_tile_per_packet<kSeal, 8>, threads, count, cipher, s, j, on, r); break;
    case 16: launch_on(esp_tile_per_packet<kSeal, 16>, threads, count, cipher, s, j, on, r); break;
    case 32: launch_on(esp_tile_per_packet<kSeal, 32>, threads, count, cipher, s, j, on, r); break;
    default: throw std::invalid_argument("gnf-esp-bench: no kernel for a tile of " + std::to_string(tile) + " lanes");
  }
}

}  // namespace

const std::vector<uint32_t>& gcm_tile_sizes() {
  static const std::vector<uint32_t> sizes = {4, 8, 16, 32};
  return sizes;
}

struct EspOnGpu::Impl {
  explicit Impl(const Workload& w)
      : count(uint32_t(w.jobs.size())),
        gcm(!w.sas.empty() && w.sas[0].auth == nf::EspAuth::Gcm),
        inner_bytes(w.inner_bytes),
        keys(w.sas),
        device_keys(keys),
        sas(mem::Domain::Device, w.sas.size() * sizeof(nf::IpsecSa)),
        jobs(mem::Domain::Device, w.jobs.size() * sizeof(PacketJob)),
        slots(mem::Domain::Device, w.slots.size()),
        sealed(mem::Domain::Device, w.slots.size()),
        refused(mem::Domain::Device, sizeof(uint32_t)) {
    sas.copy_in(sas.data(), w.sas.data(), sas.size());
    jobs.copy_in(jobs.data(), w.jobs.data(), jobs.size());
    slots.copy_in(slots.data(), w.slots.data(), slots.size());
    sealed.copy_in(sealed.data(), w.slots.data(), sealed.size());
    launch(true, sealed.data());
    GNF_CUDA_CHECK(cudaEventCreate(&start));
    GNF_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Impl() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }

  void launch(bool seal, uint8_t* on, uint32_t tile = 1) {
    const auto* s = reinterpret_cast<const nf::IpsecSa*>(sas.data());
    const auto* j = reinterpret_cast<const PacketJob*>(jobs.data());
    auto* r = reinterpret_cast<uint32_t*>(refused.data());
    if (seal) launch_shape<true>(tile, count, device_keys.view(), s, j, on, r);
    else launch_shape<false>(tile, count, device_keys.view(), s, j, on, r);
  }

  // One launch's seconds; opening starts from the sealed packets and must refuse none.
  double timed(bool seal, uint32_t tile) {
    if (!seal) GNF_CUDA_CHECK(cudaMemcpy(slots.data(), sealed.data(), slots.size(), cudaMemcpyDeviceToDevice));
    GNF_CUDA_CHECK(cudaMemset(refused.data(), 0, sizeof(uint32_t)));
    GNF_CUDA_CHECK(cudaEventRecord(start));
    launch(seal, slots.data(), tile);
    GNF_CUDA_CHECK(cudaEventRecord(stop));
    GNF_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    GNF_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    uint32_t failed = 0;
    refused.copy_out(&failed, refused.data(), sizeof failed);
    if (failed != 0) throw std::runtime_error(std::to_string(failed) + " packets failed on the GPU");
    return ms / 1e3;
  }

  uint32_t count;
  bool gcm;  // every SA of a workload has one algorithm
  uint64_t inner_bytes;
  nf::EspKeys keys;
  nf::DeviceEspKeys device_keys;
  mem::Block sas, jobs, slots, sealed, refused;
  cudaEvent_t start = nullptr, stop = nullptr;
};

EspOnGpu::EspOnGpu(const Workload& w) : impl_(std::make_unique<Impl>(w)) {}
EspOnGpu::~EspOnGpu() = default;

Rate EspOnGpu::rate(bool seal, int launches, uint32_t tile) {
  if (tile > 1 && !impl_->gcm) throw std::invalid_argument("gnf-esp-bench: tiles of lanes run GCM only");
  impl_->timed(seal, tile);
  std::vector<double> seconds;
  for (int i = 0; i < launches; ++i) seconds.push_back(impl_->timed(seal, tile));
  std::nth_element(seconds.begin(), seconds.begin() + launches / 2, seconds.end());
  const double s = seconds[launches / 2];
  return Rate{double(impl_->inner_bytes) * 8 / s / 1e9, double(impl_->count) / s / 1e6};
}

}  // namespace gnf::esp_bench
