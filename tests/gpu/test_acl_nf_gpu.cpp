// The acl NF on the GPU: over the GPU copy of its rule set (AclRules::device_view) a kernel gives the
// CPU's verdicts and counters, the per-rule hits it adds with atomics are the CPU's, and a rule set
// swapped in by reload() is what the next kernel sees.
#include <unistd.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "chain_on_gpu.h"
#include "gpu_test.h"
#include "nf/chain.h"
#include "wire/bytes.h"

using namespace gnf;

namespace {

constexpr char kRules[] =
    "@10.0.0.0/8 0.0.0.0/0 0 : 65535 80 : 80 6/0xff permit\n"
    "@10.1.0.0/16 0.0.0.0/0 0 : 65535 0 : 65535 0/0 deny\n"
    "@0.0.0.0/0 0.0.0.0/0 0 : 65535 50 : 60 17/0xff count\n"
    "@2001:db8::/32 ::/0 0 : 65535 443 : 443 6/0xff permit\n";

std::string rules_file(const std::string& text) {
  const std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-gpu.acl";
  std::ofstream(path) << text;
  return path;
}

nf::NfChain make_acl(const std::string& path) {
  nf::Params params("gpu-test", 1, "nf[0]");
  params.set("rules", nf::ParamValue{path, 0});
  return nf::NfChain({nf::NfSpec{"acl", params}}, nf::NfContext{});
}

// IPv4 and IPv6 TCP and UDP frames whose addresses and ports fall on either side of the rules'.
struct Frames {
  static constexpr uint32_t kSlot = 128;
  std::vector<uint8_t> bytes;
  std::vector<nf::PacketRef> refs;

  explicit Frames(uint32_t count) : bytes(size_t(count) * kSlot, 0), refs(count) {
    std::mt19937 rng(7);
    for (uint32_t i = 0; i < count; ++i) {
      uint8_t* f = &bytes[size_t(i) * kSlot];
      const bool v6 = i % 4 == 3;
      wire::store_be16(f + 12, v6 ? 0x86dd : 0x0800);
      uint8_t* ip = f + 14;
      const uint8_t proto = rng() % 2 ? 6 : 17;
      const uint16_t dport = uint16_t(std::vector<int>{53, 80, 443, 1000}[rng() % 4]);
      uint8_t* l4 = ip + (v6 ? 40 : 20);
      if (v6) {
        ip[0] = 0x60;
        wire::store_be16(ip + 4, 8);
        ip[6] = proto;
        const uint8_t src[4] = {0x20, 0x01, 0x0d, uint8_t(rng() % 2 ? 0xb8 : 0xb9)};
        std::copy(src, src + 4, ip + 8);
      } else {
        ip[0] = 0x45;
        wire::store_be16(ip + 2, 28);
        ip[9] = proto;
        wire::store_be32(ip + 12, rng() % 3 ? 0x0a000000u | (rng() & 0x1ffffu) : rng());
      }
      wire::store_be16(l4 + 2, dport);
      refs[i] = nf::PacketRef{f, 64, 0, 0, 0, nf::Verdict::Forward, nf::HostReason::Unspecified};
    }
  }
};

std::vector<uint64_t> hits(const nf::NfChain& chain) {
  std::vector<uint64_t> out;
  const nf::NfTableStats stats = *chain.tables(0)->table_stats();
  for (const nf::NfEntryStats& e : stats.entries) out.push_back(e.counters.at(0).second);
  return out;
}

}  // namespace

TEST(AclNfOnGpu, GivesTheCpusVerdictsCountersAndHitsAndSeesAReloadedRuleSet) {
  GNF_REQUIRE_GPU();
  const std::string path = rules_file(kRules);
  nf::NfChain gpu_chain = make_acl(path), cpu_chain = make_acl(path);
  Frames frames(1 << 16);
  const test::ChainOnGpu gpu = test::run_chain_on_gpu(gpu_chain.device_view(), frames.bytes, frames.refs);
  std::vector<nf::NfCounters> cpu_counters(nf::kMaxChainLength);
  std::vector<nf::PacketRef> cpu_refs = frames.refs;
  nf::PacketBatch batch{cpu_refs.data(), uint32_t(cpu_refs.size())};
  nf::run_chain(cpu_chain.view(), batch, cpu_counters.data());
  for (size_t i = 0; i < cpu_refs.size(); ++i) ASSERT_EQ(gpu.refs[i].verdict, cpu_refs[i].verdict) << i;
  for (int c = 0; c < nf::AclNfView::kCounterCount; ++c) EXPECT_EQ(gpu.counters[c], cpu_counters[0].value[c]) << c;
  EXPECT_EQ(hits(gpu_chain), hits(cpu_chain));
  for (uint64_t h : hits(cpu_chain)) EXPECT_GT(h, 0u);

  std::ofstream(path) << "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0 deny\n@::/0 ::/0 0 : 65535 0 : 65535 0/0 count\n";
  ASSERT_TRUE(gpu_chain.reload().at(0).done);
  const test::ChainOnGpu after = test::run_chain_on_gpu(gpu_chain.device_view(), frames.bytes, frames.refs);
  const uint64_t v6 = frames.refs.size() / 4;
  EXPECT_EQ(after.counters[nf::AclNfView::kDeny], frames.refs.size() - v6);
  EXPECT_EQ(after.counters[nf::AclNfView::kCount], v6);
  EXPECT_EQ(hits(gpu_chain), (std::vector<uint64_t>{frames.refs.size() - v6, v6}));
}
