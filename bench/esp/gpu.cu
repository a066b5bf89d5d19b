#include "gpu.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "mem/block.h"
#include "nf/ipsec/device_cipher.h"
#include "util/cuda_check.h"

namespace gnf::esp_bench {

namespace {

constexpr uint32_t kThreadsPerBlock = 128;

// One thread per packet (the seed paper's shape): outbound SAs seal, their inbound twins open.
template <bool kSeal>
__global__ void esp_thread_per_packet(nf::DeviceEspCipher in_global, const nf::IpsecSa* sas, const PacketJob* jobs,
                                      uint32_t count, uint8_t* slots, uint32_t* refused) {
  __shared__ nf::AesTables tables;
  const nf::DeviceEspCipher cipher = nf::esp_cipher_in_shared(in_global, tables);
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const PacketJob j = jobs[i];
    const uint32_t sa = kSeal ? j.sa : j.sa + 1;
    const nf::EspCryptoJob job = crypto_job(j, slots);
    if (!(kSeal ? cipher.seal(sa, sas[sa], job) : cipher.open(sa, sas[sa], job))) atomicAdd(refused, 1u);
  }
}

}  // namespace

struct EspOnGpu::Impl {
  explicit Impl(const Workload& w)
      : count(uint32_t(w.jobs.size())),
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

  void launch(bool seal, uint8_t* on) {
    const uint32_t blocks = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
    const auto* s = reinterpret_cast<const nf::IpsecSa*>(sas.data());
    const auto* j = reinterpret_cast<const PacketJob*>(jobs.data());
    auto* r = reinterpret_cast<uint32_t*>(refused.data());
    if (seal)
      esp_thread_per_packet<true><<<blocks, kThreadsPerBlock>>>(device_keys.view(), s, j, count, on, r);
    else
      esp_thread_per_packet<false><<<blocks, kThreadsPerBlock>>>(device_keys.view(), s, j, count, on, r);
    GNF_CUDA_CHECK_LAUNCH();
  }

  // One launch's seconds; opening starts from the sealed packets and must refuse none.
  double timed(bool seal) {
    if (!seal) GNF_CUDA_CHECK(cudaMemcpy(slots.data(), sealed.data(), slots.size(), cudaMemcpyDeviceToDevice));
    GNF_CUDA_CHECK(cudaMemset(refused.data(), 0, sizeof(uint32_t)));
    GNF_CUDA_CHECK(cudaEventRecord(start));
    launch(seal, slots.data());
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
  uint64_t inner_bytes;
  nf::EspKeys keys;
  nf::DeviceEspKeys device_keys;
  mem::Block sas, jobs, slots, sealed, refused;
  cudaEvent_t start = nullptr, stop = nullptr;
};

EspOnGpu::EspOnGpu(const Workload& w) : impl_(std::make_unique<Impl>(w)) {}
EspOnGpu::~EspOnGpu() = default;

Rate EspOnGpu::rate(bool seal, int launches) {
  impl_->timed(seal);
  std::vector<double> seconds;
  for (int i = 0; i < launches; ++i) seconds.push_back(impl_->timed(seal));
  std::nth_element(seconds.begin(), seconds.begin() + launches / 2, seconds.end());
  const double s = seconds[launches / 2];
  return Rate{double(impl_->inner_bytes) * 8 / s / 1e9, double(impl_->count) / s / 1e6};
}

}  // namespace gnf::esp_bench
