// ether_filter: EtherTypes to the host or dropped, the rest passed on untouched; its parameters.
#include <gtest/gtest.h>

#include "nf/chain.h"
#include "util/error.h"

using namespace gnf::nf;

namespace {

NfChain make_filter(const std::string& to_host, const std::string& drop) {
  Params p("test.toml", 3, "nf[0]");
  if (!to_host.empty()) p.set("to_host", ParamValue{to_host, 4});
  if (!drop.empty()) p.set("drop", ParamValue{drop, 5});
  return NfChain({NfSpec{"ether_filter", p}}, NfContext{});
}

std::vector<uint8_t> frame(uint16_t ethertype, bool vlan = false, size_t len = 60) {
  std::vector<uint8_t> f(len, 0xee);
  size_t at = 12;
  if (vlan) {
    f[12] = 0x81, f[13] = 0x00, f[14] = 0x00, f[15] = 0x07;  // 802.1Q, VLAN 7
    at = 16;
  }
  // A frame cut short keeps what fits (a runt's type may be missing).
  if (at + 1 < len) {
    f[at] = uint8_t(ethertype >> 8);
    f[at + 1] = uint8_t(ethertype);
  }
  return f;
}

std::string error_of(const std::string& to_host, const std::string& drop) {
  try {
    make_filter(to_host, drop);
  } catch (const gnf::UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(EtherFilter, SendsListedTypesToTheHostDropsOthersAndPassesTheRestUntouched) {
  NfChain chain = make_filter("arp, 0x88cc", "ipv6");
  std::vector<std::vector<uint8_t>> frames = {frame(0x0806), frame(0x88cc), frame(0x86dd), frame(0x0800),
                                              frame(0x0806, true), frame(0x86dd, true), frame(0x0806, false, 13),
                                              frame(0x0806, true, 17)};
  const std::vector<std::vector<uint8_t>> before = frames;
  std::vector<PacketRef> refs;
  for (auto& f : frames) refs.push_back(PacketRef{f.data(), uint32_t(f.size()), 0, 0, 0, Verdict::Forward, HostReason::Unspecified});
  PacketBatch batch{refs.data(), uint32_t(refs.size())};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  const Verdict expected[] = {Verdict::ToHost, Verdict::ToHost, Verdict::Drop, Verdict::Forward,
                              Verdict::ToHost, Verdict::Drop,   Verdict::Drop, Verdict::Drop};
  for (size_t i = 0; i < refs.size(); ++i) EXPECT_EQ(refs[i].verdict, expected[i]) << "frame " << i;
  EXPECT_EQ(frames, before) << "the filter never rewrites a frame";
  // passed, to_host, dropped, malformed
  EXPECT_EQ(counters[0].value[EtherFilterView::kPassed], 1u);
  EXPECT_EQ(counters[0].value[EtherFilterView::kToHost], 3u);
  EXPECT_EQ(counters[0].value[EtherFilterView::kDropped], 2u);
  EXPECT_EQ(counters[0].value[EtherFilterView::kMalformed], 2u);
  EXPECT_EQ(chain.counter_names(0), (std::vector<std::string>{"passed", "to_host", "dropped", "malformed"}));
}

TEST(EtherFilter, AListedVlanIsEveryTaggedFrame) {
  // drop = "vlan" matched only a second tag before: single-tagged frames passed.
  NfChain chain = make_filter("arp", "vlan");
  std::vector<std::vector<uint8_t>> frames = {frame(0x0800, true), frame(0x0806, true), frame(0x0806), frame(0x0800),
                                              frame(0x0800, true, 17)};
  std::vector<PacketRef> refs;
  for (auto& f : frames) refs.push_back(PacketRef{f.data(), uint32_t(f.size()), 0, 0, 0, Verdict::Forward, HostReason::Unspecified});
  PacketBatch batch{refs.data(), uint32_t(refs.size())};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  // The tag decides before what it carries: a tagged ARP is dropped with the other tagged frames,
  // and a tagged frame too short to show what it carries is still a tagged frame.
  const Verdict expected[] = {Verdict::Drop, Verdict::Drop, Verdict::ToHost, Verdict::Forward, Verdict::Drop};
  for (size_t i = 0; i < refs.size(); ++i) EXPECT_EQ(refs[i].verdict, expected[i]) << "frame " << i;
  EXPECT_EQ(counters[0].value[EtherFilterView::kDropped], 3u);
  EXPECT_EQ(counters[0].value[EtherFilterView::kMalformed], 0u);
}

TEST(EtherFilter, LeavesPacketsAnEarlierElementDecidedAlone) {
  NfChain chain = make_filter("arp", "");
  std::vector<uint8_t> f = frame(0x0806);
  PacketRef r{f.data(), uint32_t(f.size()), 0, 0, 0, Verdict::Drop, HostReason::Unspecified};
  PacketBatch batch{&r, 1};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  EXPECT_EQ(r.verdict, Verdict::Drop);
  EXPECT_EQ(counters[0].value[EtherFilterView::kToHost], 0u);
}

TEST(EtherFilter, BadParametersNameTheKeyAndItsLine) {
  EXPECT_EQ(error_of("arp, banana", ""),
            "test.toml:4: nf[0].to_host: 'banana' is not an EtherType (a name: arp, ipv4, ipv6, lldp; or hex like 0x0806)");
  EXPECT_EQ(error_of("", "0x12345"),
            "test.toml:5: nf[0].drop: '0x12345' is not an EtherType (a name: arp, ipv4, ipv6, lldp; or hex like 0x0806)");
  EXPECT_EQ(error_of("", "806"),
            "test.toml:5: nf[0].drop: '806' is not an EtherType (a name: arp, ipv4, ipv6, lldp; or hex like 0x0806)");
  EXPECT_EQ(error_of("arp", "0x0806"), "test.toml:5: nf[0].drop: EtherType 0x0806 is also in to_host");
  EXPECT_EQ(error_of("0x1,0x2,0x3,0x4,0x5,0x6,0x7,0x8,0x9", ""), "test.toml:4: nf[0].to_host: at most 8 EtherTypes");
}
