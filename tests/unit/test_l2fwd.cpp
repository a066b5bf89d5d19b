#include <gtest/gtest.h>

#include "nf/chain.h"
#include "util/error.h"

using namespace gnf::nf;

namespace {

NfChain make_chain(uint16_t ports, std::vector<std::pair<std::string, std::string>> params) {
  Params p("test.toml", 1, "nf[0]");
  for (auto& [k, v] : params) {
    if (k == "to_port") p.set(k, ParamValue{int64_t(std::stoi(v)), 0});
    else p.set(k, ParamValue{v, 0});
  }
  NfContext context;
  context.ports = ports;
  for (uint16_t i = 0; i < ports; ++i) context.port_macs[i] = {0x02, 0, 0, 0, 0x01, uint8_t(i)};
  return NfChain({NfSpec{"l2fwd", p}}, context);
}

std::vector<uint8_t> eth_frame() {
  std::vector<uint8_t> f(60, 0);
  for (int i = 0; i < 6; ++i) {
    f[i] = uint8_t(0xd0 + i);      // destination
    f[6 + i] = uint8_t(0x50 + i);  // source
  }
  return f;
}

PacketRef ref(std::vector<uint8_t>& f, uint16_t in_port) {
  return PacketRef{f.data(), uint32_t(f.size()), 0, in_port, in_port, Verdict::Forward, HostReason::Unspecified};
}

}  // namespace

TEST(L2Fwd, PairsModeSendsPortZeroToOneAndBack) {
  NfChain chain = make_chain(4, {});
  std::vector<uint8_t> a = eth_frame(), b = eth_frame(), c = eth_frame();
  PacketRef packets[] = {ref(a, 0), ref(b, 1), ref(c, 3)};
  PacketBatch batch{packets, 3};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  EXPECT_EQ(packets[0].out_port, 1);
  EXPECT_EQ(packets[1].out_port, 0);
  EXPECT_EQ(packets[2].out_port, 2);
  EXPECT_EQ(counters[0].value[L2FwdView::kForwarded], 3u);
  EXPECT_EQ(a, eth_frame());  // mac = none leaves the bytes alone
}

TEST(L2Fwd, SwapExchangesSourceAndDestination) {
  NfChain chain = make_chain(1, {{"mac", "swap"}});
  std::vector<uint8_t> f = eth_frame();
  PacketRef packets[] = {ref(f, 0)};
  PacketBatch batch{packets, 1};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  EXPECT_EQ(packets[0].out_port, 0);
  EXPECT_EQ(f[0], 0x50);
  EXPECT_EQ(f[6], 0xd0);
}

TEST(L2Fwd, RewriteUsesTheOutputPortsMacAndTheDpdkDestination) {
  NfChain chain = make_chain(2, {{"mac", "rewrite"}});
  std::vector<uint8_t> f = eth_frame();
  PacketRef packets[] = {ref(f, 0)};
  PacketBatch batch{packets, 1};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  std::vector<uint8_t> dst(f.begin(), f.begin() + 6), src(f.begin() + 6, f.begin() + 12);
  EXPECT_EQ(dst, (std::vector<uint8_t>{0x02, 0, 0, 0, 0, 1}));
  EXPECT_EQ(src, (std::vector<uint8_t>{0x02, 0, 0, 0, 0x01, 1}));
}

TEST(L2Fwd, FramesShorterThanAnEthernetHeaderAreCountedAndDropped) {
  NfChain chain = make_chain(1, {{"mac", "swap"}});
  std::vector<uint8_t> f(13, 0xee);
  PacketRef packets[] = {ref(f, 0)};
  PacketBatch batch{packets, 1};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  EXPECT_EQ(packets[0].verdict, Verdict::Drop);
  EXPECT_EQ(counters[0].value[L2FwdView::kMalformed], 1u);
  EXPECT_EQ(f, std::vector<uint8_t>(13, 0xee));
}

TEST(L2Fwd, PacketsAlreadyDroppedByAnEarlierElementAreLeftAlone) {
  NfChain chain = make_chain(1, {{"mac", "swap"}});
  std::vector<uint8_t> f = eth_frame();
  PacketRef packets[] = {ref(f, 0)};
  packets[0].verdict = Verdict::Drop;
  PacketBatch batch{packets, 1};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  EXPECT_EQ(f, eth_frame());
  EXPECT_EQ(counters[0].value[L2FwdView::kForwarded], 0u);
}

TEST(L2Fwd, PairsWithAnOddNumberOfPortsIsAConfigError) {
  EXPECT_THROW(make_chain(3, {{"mode", "pairs"}}), gnf::UserError);
}

TEST(L2Fwd, ToPortOutOfRangeIsAConfigError) {
  EXPECT_THROW(make_chain(2, {{"mode", "to"}, {"to_port", "2"}}), gnf::UserError);
}
