// The NF chain is one source for host and device: the same batch processed by a kernel and by
// the CPU must give the same bytes, verdicts, output ports and counters.
#include <random>
#include <vector>

#include "chain_on_gpu.h"
#include "gpu_test.h"
#include "mem/block.h"
#include "nf/chain.h"
#include "util/cuda_check.h"

using namespace gnf;

namespace {

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
    host_refs[i] = nf::PacketRef{&frames[size_t(i) * kSlot], len, 0, uint16_t(i % 4), 0, nf::Verdict::Forward, nf::HostReason::Unspecified};
  }

  // The GPU first: it works on a copy of the frames as they are; the CPU then rewrites them in place.
  const test::ChainOnGpu gpu = test::run_chain_on_gpu(chain.view(), frames, host_refs);
  std::vector<nf::NfCounters> host_counters(nf::kMaxChainLength);
  nf::PacketBatch batch{host_refs.data(), kPackets};
  nf::run_chain(chain.view(), batch, host_counters.data());

  EXPECT_EQ(gpu.frames, frames);
  for (uint32_t i = 0; i < kPackets; ++i) {
    ASSERT_EQ(gpu.refs[i].verdict, host_refs[i].verdict) << i;
    if (host_refs[i].verdict == nf::Verdict::Forward) ASSERT_EQ(gpu.refs[i].out_port, host_refs[i].out_port) << i;
  }
  for (int c = 0; c < nf::NfCounters::kMax; ++c) EXPECT_EQ(gpu.counters[c], host_counters[0].value[c]) << "counter " << c;
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
