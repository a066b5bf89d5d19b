// NF kind sets: a chain's kinds, and process_element built for a set, as the bypass kernel builds it
// per chain (driver/gpu_bypass_kernel.cu: bypass_kernel_for).
#include <gtest/gtest.h>

#include <vector>

#include "nf/chain.h"

using namespace gnf::nf;

namespace {

NfChain filter_then_l2fwd() {
  Params filter("test.toml", 3, "nf[0]");
  filter.set("drop", ParamValue{"ipv6", 4});
  Params l2fwd("test.toml", 6, "nf[1]");
  l2fwd.set("mode", ParamValue{"reflect", 7});
  return NfChain({NfSpec{"ether_filter", filter}, NfSpec{"l2fwd", l2fwd}}, NfContext{});
}

}  // namespace

TEST(NfKinds, AChainsKindsAreItsElementsKinds) {
  NfChain chain = filter_then_l2fwd();
  EXPECT_EQ(kinds_of(chain.view()), kind_bit(NfKind::EtherFilter) | kind_bit(NfKind::L2Fwd));
  EXPECT_EQ(kinds_of(chain.view()) & ~kAllNfKinds, 0u);
}

TEST(NfKinds, AnElementOfAKindTheBuildLacksIsLeftAlone) {
  NfChain chain = filter_then_l2fwd();
  const NfElement& l2fwd = chain.view().elements[1];
  std::vector<uint8_t> bytes(60, 0);
  const auto run = [&](auto process) {
    // out_port 7 until l2fwd reflects the frame to its input port, 0
    PacketRef p{bytes.data(), uint32_t(bytes.size()), 0, 0, 7, Verdict::Forward, HostReason::Unspecified};
    PacketBatch batch{&p, 1};
    NfCounters counters{};
    process(batch, counters);
    return std::pair{p.out_port, counters.value[L2FwdView::kForwarded]};
  };
  EXPECT_EQ(run([&](PacketBatch& b, NfCounters& c) { process_element<kind_bit(NfKind::L2Fwd)>(l2fwd, b, c); }),
            std::pair(uint16_t(0), 1ull));
  EXPECT_EQ(run([&](PacketBatch& b, NfCounters& c) { process_element(l2fwd, b, c); }), std::pair(uint16_t(0), 1ull));
  EXPECT_EQ(run([&](PacketBatch& b, NfCounters& c) { process_element<kind_bit(NfKind::Acl)>(l2fwd, b, c); }),
            std::pair(uint16_t(7), 0ull));
}
