// The NF chain is one source for host and device: the same batch processed by a kernel and by
// the CPU must give the same bytes, verdicts, output ports and counters.
#include <random>
#include <vector>

#include "gpu_test.h"
#include "mem/block.h"
#include "nf/chain.h"
#include "util/cuda_check.h"

using namespace gnf;

namespace {

__global__ void run_chain_per_packet(nf::NfChainView chain, nf::PacketRef* packets, uint32_t count,
                                     nf::NfCounters* counters) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  nf::PacketBatch batch{&packets[i], 1};
  nf::run_chain(chain, batch, &counters[i * nf::kMaxChainLength]);
}

nf::NfChain make_chain(const std::string& mac) {
  nf::Params params("gpu-test", 1, "nf[0]");
  params.set("mode", nf::ParamValue{std::string("pairs"), 0});
  params.set("mac", nf::ParamValue{mac, 0});
  nf::NfContext context;
  context.ports = 4;
  for (uint16_t p = 0; p < 4; ++p) context.port_macs[p] = {0x02, 0, 0, 0, 0x01, uint8_t(p)};
  return nf::NfChain({nf::NfSpec{"l2fwd", params}}, context);
}

}  // namespace

class NfChainOnGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(NfChainOnGpu, GivesTheSameResultAsTheCpu) {
  GNF_REQUIRE_GPU();
  nf::NfChain chain = make_chain(GetParam());
  constexpr uint32_t kPackets = 4096, kSlot = 2048;
  std::mt19937 rng(42);
  std::vector<uint8_t> frames(size_t(kPackets) * kSlot);
  std::vector<nf::PacketRef> host_refs(kPackets);
  for (uint32_t i = 0; i < kPackets; ++i) {
    uint32_t len = i % 97 == 0 ? rng() % 14 : 60 + rng() % 1455;  // some too short for Ethernet
    for (uint32_t b = 0; b < len; ++b) frames[size_t(i) * kSlot + b] = uint8_t(rng());
    host_refs[i] = nf::PacketRef{&frames[size_t(i) * kSlot], len, 0, uint16_t(i % 4), 0, nf::Verdict::Forward};
  }

  mem::Block device_frames(mem::Domain::Device, frames.size());
  mem::Block device_refs(mem::Domain::Device, kPackets * sizeof(nf::PacketRef));
  mem::Block device_counters(mem::Domain::Device, size_t(kPackets) * nf::kMaxChainLength * sizeof(nf::NfCounters));
  std::vector<nf::PacketRef> gpu_refs = host_refs;
  for (uint32_t i = 0; i < kPackets; ++i) gpu_refs[i].data = device_frames.data() + size_t(i) * kSlot;
  GNF_CUDA_CHECK(cudaMemcpy(device_frames.data(), frames.data(), frames.size(), cudaMemcpyHostToDevice));
  GNF_CUDA_CHECK(cudaMemcpy(device_refs.data(), gpu_refs.data(), device_refs.size(), cudaMemcpyHostToDevice));

  run_chain_per_packet<<<(kPackets + 127) / 128, 128>>>(chain.view(), reinterpret_cast<nf::PacketRef*>(device_refs.data()),
                                                        kPackets, reinterpret_cast<nf::NfCounters*>(device_counters.data()));
  GNF_CUDA_CHECK_LAUNCH();
  GNF_CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<nf::NfCounters> host_counters(nf::kMaxChainLength);
  nf::PacketBatch batch{host_refs.data(), kPackets};
  nf::run_chain(chain.view(), batch, host_counters.data());

  std::vector<uint8_t> gpu_frames(frames.size());
  std::vector<nf::NfCounters> gpu_counters(size_t(kPackets) * nf::kMaxChainLength);
  GNF_CUDA_CHECK(cudaMemcpy(gpu_frames.data(), device_frames.data(), frames.size(), cudaMemcpyDeviceToHost));
  GNF_CUDA_CHECK(cudaMemcpy(gpu_refs.data(), device_refs.data(), device_refs.size(), cudaMemcpyDeviceToHost));
  GNF_CUDA_CHECK(cudaMemcpy(gpu_counters.data(), device_counters.data(), device_counters.size(), cudaMemcpyDeviceToHost));

  EXPECT_EQ(gpu_frames, frames);
  for (uint32_t i = 0; i < kPackets; ++i) {
    ASSERT_EQ(gpu_refs[i].verdict, host_refs[i].verdict) << i;
    if (host_refs[i].verdict == nf::Verdict::Forward) ASSERT_EQ(gpu_refs[i].out_port, host_refs[i].out_port) << i;
  }
  for (int c = 0; c < nf::NfCounters::kMax; ++c) {
    unsigned long long sum = 0;
    for (uint32_t i = 0; i < kPackets; ++i) sum += gpu_counters[size_t(i) * nf::kMaxChainLength].value[c];
    EXPECT_EQ(sum, host_counters[0].value[c]) << "counter " << c;
  }
  EXPECT_GT(host_counters[0].value[nf::L2FwdView::kMalformed], 0u);
}

INSTANTIATE_TEST_SUITE_P(MacModes, NfChainOnGpu, ::testing::Values("none", "swap", "rewrite"));

TEST(MemoryDomains, PinnedHostMemoryIsVisibleToTheGpuAtTheSameAddress) {
  GNF_REQUIRE_GPU();
  mem::Block pinned(mem::Domain::HostPinned, 4096);
  cudaPointerAttributes attrs{};
  GNF_CUDA_CHECK(cudaPointerGetAttributes(&attrs, pinned.data()));
  EXPECT_EQ(attrs.type, cudaMemoryTypeHost);
  EXPECT_EQ(attrs.devicePointer, static_cast<void*>(pinned.data()));  // UVA: one address for both
  mem::Block device(mem::Domain::Device, 4096);
  GNF_CUDA_CHECK(cudaPointerGetAttributes(&attrs, device.data()));
  EXPECT_EQ(attrs.type, cudaMemoryTypeDevice);
  std::vector<uint8_t> back(4096, 0xff);
  GNF_CUDA_CHECK(cudaMemcpy(back.data(), device.data(), 4096, cudaMemcpyDefault));
  EXPECT_EQ(back, std::vector<uint8_t>(4096, 0));  // blocks are zero-filled in every domain
}
