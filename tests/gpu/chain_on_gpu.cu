#include "chain_on_gpu.h"

#include "mem/block.h"
#include "nf/chain_device.cuh"
#include "util/cuda_check.h"

namespace gnf::test {

namespace {

__global__ void run_chain_per_packet(nf::NfChainView chain, nf::PacketRef* packets, uint32_t count,
                                     nf::NfCounters* counters) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  nf::PacketBatch batch{&packets[i], 1};
  nf::run_chain(chain, batch, &counters[i * nf::kMaxChainLength]);
}

constexpr uint32_t kCounterWords = nf::kMaxChainLength * nf::NfCounters::kMax;

// Block b runs packets [b * per_block, (b + 1) * per_block) and adds its totals into `totals`
// (element-major, as NfCounters rows).
__global__ void run_chain_per_block(nf::NfChainView chain, nf::PacketRef* packets, uint32_t count, uint32_t per_block,
                                    unsigned long long* totals) {
  __shared__ unsigned long long block_totals[kCounterWords];
  for (uint32_t k = threadIdx.x; k < kCounterWords; k += blockDim.x) block_totals[k] = 0;
  __syncthreads();
  const uint32_t first = blockIdx.x * per_block;
  nf::run_chain_on_block(chain, {packets, first, 1, min(per_block, count - first)}, block_totals);
  __syncthreads();
  for (uint32_t k = threadIdx.x; k < kCounterWords; k += blockDim.x)
    if (block_totals[k]) atomicAdd(&totals[k], block_totals[k]);
}

}  // namespace

ChainOnGpu run_chain_on_gpu(const nf::NfChainView& chain, const std::vector<uint8_t>& frames,
                            const std::vector<nf::PacketRef>& refs, uint32_t packets_per_block) {
  const uint32_t count = uint32_t(refs.size());
  mem::Block device_frames(mem::Domain::Device, frames.size());
  mem::Block device_refs(mem::Domain::Device, count * sizeof(nf::PacketRef));
  mem::Block device_counters(mem::Domain::Device, size_t(count) * nf::kMaxChainLength * sizeof(nf::NfCounters));
  ChainOnGpu out{std::vector<uint8_t>(frames.size()), refs, {}};
  for (nf::PacketRef& r : out.refs) r.data = device_frames.data() + (r.data - frames.data());
  GNF_CUDA_CHECK(cudaMemcpy(device_frames.data(), frames.data(), frames.size(), cudaMemcpyHostToDevice));
  GNF_CUDA_CHECK(cudaMemcpy(device_refs.data(), out.refs.data(), device_refs.size(), cudaMemcpyHostToDevice));
  GNF_CUDA_CHECK(cudaMemset(device_counters.data(), 0, device_counters.size()));
  auto* device_packets = reinterpret_cast<nf::PacketRef*>(device_refs.data());
  // Per packet, each packet's rows of counters; per block, one set of rows for all, in packet 0's place.
  if (packets_per_block == 0)
    run_chain_per_packet<<<(count + 127) / 128, 128>>>(chain, device_packets, count,
                                                       reinterpret_cast<nf::NfCounters*>(device_counters.data()));
  else
    run_chain_per_block<<<(count + packets_per_block - 1) / packets_per_block, kBlockThreads>>>(
        chain, device_packets, count, packets_per_block, reinterpret_cast<unsigned long long*>(device_counters.data()));
  GNF_CUDA_CHECK_LAUNCH();
  GNF_CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<nf::NfCounters> per_packet(size_t(count) * nf::kMaxChainLength);
  GNF_CUDA_CHECK(cudaMemcpy(out.frames.data(), device_frames.data(), frames.size(), cudaMemcpyDeviceToHost));
  GNF_CUDA_CHECK(cudaMemcpy(out.refs.data(), device_refs.data(), device_refs.size(), cudaMemcpyDeviceToHost));
  GNF_CUDA_CHECK(cudaMemcpy(per_packet.data(), device_counters.data(), device_counters.size(), cudaMemcpyDeviceToHost));
  for (uint32_t i = 0; i < count; ++i) out.refs[i].data = refs[i].data;
  out.counters.assign(size_t(nf::kMaxChainLength) * nf::NfCounters::kMax, 0);
  for (uint32_t i = 0; i < count; ++i)
    for (uint32_t e = 0; e < nf::kMaxChainLength; ++e)
      for (int k = 0; k < nf::NfCounters::kMax; ++k)
        out.counters[e * nf::NfCounters::kMax + k] += per_packet[size_t(i) * nf::kMaxChainLength + e].value[k];
  return out;
}

}  // namespace gnf::test
