#include "chain_on_gpu.h"

#include "mem/block.h"
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

}  // namespace

ChainOnGpu run_chain_on_gpu(const nf::NfChainView& chain, const std::vector<uint8_t>& frames,
                            const std::vector<nf::PacketRef>& refs) {
  const uint32_t count = uint32_t(refs.size());
  mem::Block device_frames(mem::Domain::Device, frames.size());
  mem::Block device_refs(mem::Domain::Device, count * sizeof(nf::PacketRef));
  mem::Block device_counters(mem::Domain::Device, size_t(count) * nf::kMaxChainLength * sizeof(nf::NfCounters));
  ChainOnGpu out{std::vector<uint8_t>(frames.size()), refs, {}};
  for (nf::PacketRef& r : out.refs) r.data = device_frames.data() + (r.data - frames.data());
  GNF_CUDA_CHECK(cudaMemcpy(device_frames.data(), frames.data(), frames.size(), cudaMemcpyHostToDevice));
  GNF_CUDA_CHECK(cudaMemcpy(device_refs.data(), out.refs.data(), device_refs.size(), cudaMemcpyHostToDevice));
  run_chain_per_packet<<<(count + 127) / 128, 128>>>(chain, reinterpret_cast<nf::PacketRef*>(device_refs.data()),
                                                     count, reinterpret_cast<nf::NfCounters*>(device_counters.data()));
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
