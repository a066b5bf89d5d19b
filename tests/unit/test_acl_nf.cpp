// The acl NF (nf/acl/acl.h, acl_rules.h) on the CPU: first match by file order with permit, deny
// and count; per-rule hit counters; IPv4 and IPv6 5-tuples (extension headers, fragments, VLAN
// tags); what non-IP and malformed frames get; configuration errors; and live rule-set swaps, one
// under traffic from a reader thread in which no burst sees two rule sets.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>

#include "nf/chain.h"
#include "nf_frames.h"
#include "nf/l3fwd/ip_address.h"
#include "util/error.h"
#include "wire/bytes.h"

using namespace gnf::nf;
using gnf::UserError;

namespace {

using gnf::test::ethernet;
using gnf::test::ipv4_frame;

std::string temp_file(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

NfChain make_acl(const std::string& rules_path, const std::string& default_action = "") {
  Params p("test.toml", 1, "nf[0]");
  p.set("rules", ParamValue{rules_path, 0});
  if (!default_action.empty()) p.set("default", ParamValue{default_action, 0});
  NfContext context;
  context.ports = 1;
  return NfChain({NfSpec{"acl", p}}, context);
}

// IPv6 with `extensions` (whole extension headers, their next-header fields filled in) between
// the fixed header, whose next header is `first`, and 8 bytes of an upper-layer header.
std::vector<uint8_t> ipv6_frame(const char* src, const char* dst, uint8_t first, uint16_t sport, uint16_t dport,
                                const std::vector<uint8_t>& extensions = {}) {
  std::vector<uint8_t> f = ethernet(0x86dd, 40 + extensions.size() + 8);
  uint8_t* ip = &f[14];
  ip[0] = 0x60;
  gnf::wire::store_be16(ip + 4, uint16_t(extensions.size() + 8));
  ip[6] = first;
  ip[7] = 64;
  const IpAddress source = *parse_ip_address(src), destination = *parse_ip_address(dst);
  std::copy(source.bytes, source.bytes + 16, ip + 8);
  std::copy(destination.bytes, destination.bytes + 16, ip + 24);
  std::copy(extensions.begin(), extensions.end(), ip + 40);
  gnf::wire::store_be16(ip + 40 + extensions.size(), sport);
  gnf::wire::store_be16(ip + 42 + extensions.size(), dport);
  return f;
}

PacketRef ref(std::vector<uint8_t>& f) {
  return PacketRef{f.data(), uint32_t(f.size()), 0, 0, 0, Verdict::Forward, HostReason::Unspecified};
}

struct Outcome {
  std::vector<Verdict> verdicts;
  NfCounters counters;
};

Outcome run(const NfChain& chain, std::vector<std::vector<uint8_t>> frames) {
  std::vector<PacketRef> refs;
  for (auto& f : frames) refs.push_back(ref(f));
  PacketBatch batch{refs.data(), uint32_t(refs.size())};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  Outcome out{{}, counters[0]};
  for (const PacketRef& p : refs) out.verdicts.push_back(p.verdict);
  return out;
}

std::vector<uint64_t> hits(const NfChain& chain) {
  std::vector<uint64_t> out;
  const NfTableStats stats = *chain.tables(0)->table_stats();  // the entries live as long as it does
  for (const NfEntryStats& e : stats.entries) out.push_back(e.counters.at(0).second);
  return out;
}

constexpr Verdict kPass = Verdict::Forward, kDrop = Verdict::Drop;

const char* kRules = R"(# line 1: a comment
@10.0.0.0/8 0.0.0.0/0 0 : 65535 80 : 80 6/0xff permit
@10.1.0.0/16 0.0.0.0/0 0 : 65535 0 : 65535 0/0 deny
@10.0.0.0/8 0.0.0.0/0 0:65535 53:53 17/0xff count
@2001:db8::/32 ::/0 0:65535 443:443 6/0xff permit
@2001:db8:1::/48 ::/0 0:65535 0:65535 0/0 deny
R10.9.0.0/16 0.0.0.0/0 0:65535 0:65535 0/0 3
)";

std::string error_of(const std::string& rules_path, const std::string& key, const std::string& value) {
  try {
    Params p("/etc/gnf/test.toml", 7, "nf[0]");
    if (!rules_path.empty()) p.set("rules", ParamValue{rules_path, 8});
    if (!key.empty()) p.set(key, ParamValue{value, 9});
    NfContext context;
    NfChain chain({NfSpec{"acl", p}}, context);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(AclNf, TheFirstMatchingRuleDecidesAndCountsItsHit) {
  NfChain chain = make_acl(temp_file("first.acl", kRules));
  Outcome out = run(chain, {ipv4_frame("10.1.2.3", "192.0.2.1", 6, 1234, 80),   // rule 1 before rule 2
                            ipv4_frame("10.1.2.3", "192.0.2.1", 17, 1234, 53),   // rule 2 before rule 3
                            ipv4_frame("10.2.0.1", "192.0.2.1", 17, 1234, 53),   // rule 3: count
                            ipv4_frame("10.9.0.1", "192.0.2.1", 1, 0, 0),        // the R line: permit
                            ipv4_frame("192.168.0.1", "192.0.2.1", 6, 1, 80)});  // none: default deny
  EXPECT_EQ(out.verdicts, (std::vector<Verdict>{kPass, kDrop, kPass, kPass, kDrop}));
  EXPECT_EQ(out.counters.value[AclNfView::kPermit], 2u);
  EXPECT_EQ(out.counters.value[AclNfView::kDeny], 1u);
  EXPECT_EQ(out.counters.value[AclNfView::kCount], 1u);
  EXPECT_EQ(out.counters.value[AclNfView::kDefaultDeny], 1u);
  EXPECT_EQ(hits(chain), (std::vector<uint64_t>{1, 1, 1, 0, 0, 1}));
  const NfTableStats stats = *chain.tables(0)->table_stats();
  EXPECT_EQ(stats.name, "rules");
  EXPECT_EQ(stats.entries[0].line, 2u);
  EXPECT_EQ(stats.entries[2].action, "count");
  EXPECT_EQ(stats.entries[5].action, "permit");
}

TEST(AclNf, DefaultPermitPassesWhatNoRuleMatches) {
  NfChain chain = make_acl(temp_file("default.acl", kRules), "permit");
  Outcome out = run(chain, {ipv4_frame("192.168.0.1", "192.0.2.1", 6, 1, 80)});
  EXPECT_EQ(out.verdicts, std::vector<Verdict>{kPass});
  EXPECT_EQ(out.counters.value[AclNfView::kDefaultPermit], 1u);
  EXPECT_EQ(hits(chain), (std::vector<uint64_t>(6, 0)));
}

TEST(AclNf, Ipv6RulesSeeThroughExtensionHeadersAndLaterFragmentsHaveNoPorts) {
  NfChain chain = make_acl(temp_file("v6.acl", kRules), "permit");
  // Hop-by-Hop (8 bytes, next: TCP) before the TCP ports: rule 4 matches by them.
  const std::vector<uint8_t> hop_by_hop = {6, 0, 1, 4, 0, 0, 0, 0};
  // A fragment header, offset 8 (a later fragment), next: TCP: ports 0, so rule 4 does not match.
  const std::vector<uint8_t> later_fragment = {6, 0, 0, 8 << 3, 0, 0, 0, 1};
  Outcome out = run(chain, {ipv6_frame("2001:db8:5::1", "2001:db8:9::1", 6, 999, 443),
                            ipv6_frame("2001:db8:1::7", "2001:db8:9::1", 17, 1, 2),
                            ipv6_frame("2001:db8:5::1", "2001:db8:9::1", 0, 999, 443, hop_by_hop),
                            ipv6_frame("2001:db8:5::1", "2001:db8:9::1", 44, 999, 443, later_fragment),
                            ipv6_frame("2001:db8:1::7", "2001:db8:9::1", 44, 999, 443, later_fragment)});
  EXPECT_EQ(out.verdicts, (std::vector<Verdict>{kPass, kDrop, kPass, kPass, kDrop}));
  EXPECT_EQ(out.counters.value[AclNfView::kPermit], 2u);
  EXPECT_EQ(out.counters.value[AclNfView::kDefaultPermit], 1u);
  EXPECT_EQ(hits(chain), (std::vector<uint64_t>{0, 0, 0, 2, 2, 0}));
}

TEST(AclNf, NonIpFramesPassVlanTagsAreLookedBehindAndMalformedIpIsDropped) {
  NfChain chain = make_acl(temp_file("frames.acl", kRules));
  std::vector<uint8_t> arp = ethernet(0x0806, 46);
  std::vector<uint8_t> tagged = ipv4_frame("10.1.2.3", "192.0.2.1", 6, 1234, 80);
  tagged.insert(tagged.begin() + 12, {0x81, 0x00, 0x00, 0x05});
  std::vector<uint8_t> short_header = ipv4_frame("10.1.2.3", "192.0.2.1", 6, 1234, 80);
  short_header.resize(14 + 19);
  std::vector<uint8_t> long_total = ipv4_frame("10.1.2.3", "192.0.2.1", 6, 1234, 80);
  gnf::wire::store_be16(&long_total[16], 29);
  std::vector<uint8_t> no_ports = ipv4_frame("10.1.2.3", "192.0.2.1", 6, 1234, 80);
  gnf::wire::store_be16(&no_ports[16], 22);  // a first fragment with 2 bytes of TCP
  Outcome out = run(chain, {arp, tagged, short_header, long_total, no_ports, std::vector<uint8_t>(10, 0),
                            ipv4_frame("10.1.2.3", "192.0.2.1", 6, 1234, 80, 100)});  // later fragment: ports 0
  EXPECT_EQ(out.verdicts, (std::vector<Verdict>{kPass, kPass, kDrop, kDrop, kDrop, kDrop, kDrop}));
  EXPECT_EQ(out.counters.value[AclNfView::kNotIp], 1u);
  EXPECT_EQ(out.counters.value[AclNfView::kPermit], 1u);
  EXPECT_EQ(out.counters.value[AclNfView::kMalformed], 4u);
  EXPECT_EQ(out.counters.value[AclNfView::kDeny], 1u);  // the fragment, by rule 2 (any ports)
}

TEST(AclNf, ConfigErrorsNameTheKeyOrTheRuleFilesLineAndField) {
  EXPECT_NE(error_of("", "", "").find("test.toml:7: nf[0].rules: an acl needs a rule file"), std::string::npos)
      << error_of("", "", "");
  EXPECT_NE(error_of("nowhere.acl", "", "").find("test.toml:8: nf[0].rules: /etc/gnf/nowhere.acl"), std::string::npos)
      << error_of("nowhere.acl", "", "");
  const std::string good = temp_file("good.acl", kRules);
  EXPECT_NE(error_of(good, "default", "maybe").find("test.toml:9: nf[0].default"), std::string::npos);
  EXPECT_NE(error_of(good, "deny", "all").find("nf[0].deny"), std::string::npos);
  const std::string bad = temp_file("bad.acl", "@10.0.0.0/8 0.0.0.0/0 0:65535 80:80 6/0xff permit\n\n@10.0.0.0/33 "
                                               "0.0.0.0/0 0:65535 0:65535 0/0\n");
  EXPECT_EQ(error_of(bad, "", "").rfind(bad + ":3: source: ", 0), 0u) << error_of(bad, "", "");
}

TEST(AclNf, AReloadReplacesTheRulesAndABadFileKeepsThem) {
  const std::string path = temp_file("reload.acl", kRules);
  NfChain chain = make_acl(path);
  run(chain, {ipv4_frame("10.1.2.3", "192.0.2.1", 6, 1234, 80)});
  std::ofstream(path) << "@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 0/0 deny\n";
  std::vector<NfChain::Reload> reloads = chain.reload();
  ASSERT_EQ(reloads.size(), 1u);
  EXPECT_TRUE(reloads[0].done);
  EXPECT_EQ(reloads[0].what, "nf[0] acl: 1 rules from " + path);
  EXPECT_EQ(hits(chain), std::vector<uint64_t>{0});  // the new set counts from zero
  EXPECT_EQ(run(chain, {ipv4_frame("10.1.2.3", "192.0.2.1", 6, 1234, 80)}).verdicts, std::vector<Verdict>{kDrop});
  EXPECT_EQ(chain.tables(0)->table_stats()->reloads, 1u);

  std::ofstream(path) << "@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 0/0 allow\n";
  reloads = chain.reload();
  ASSERT_EQ(reloads.size(), 1u);
  EXPECT_FALSE(reloads[0].done);
  EXPECT_EQ(reloads[0].what, "nf[0] acl: not reloaded: " + path + ":1: action: 'allow' is not permit, deny or count");
  EXPECT_EQ(run(chain, {ipv4_frame("10.1.2.3", "192.0.2.1", 6, 1234, 80)}).verdicts, std::vector<Verdict>{kDrop});
  EXPECT_EQ(hits(chain), std::vector<uint64_t>{2});
  EXPECT_EQ(chain.tables(0)->table_stats()->reloads, 1u);
}

// A reader thread runs bursts of two packets as a plane does (between reader_enter and
// reader_leave) while the rules swap between two sets under it. Set A permits the first packet
// and denies the second, set B the other way round: a burst that saw half of each would pass or
// drop both. Every packet is decided by one of the sets, none is lost.
TEST(AclNf, LiveSwapsUnderTrafficGiveEveryBurstOneWholeRuleSet) {
  const std::string set_a = "@0.0.0.0/0 0.0.0.0/0 0:65535 1:1 17/0xff permit\n@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 0/0 deny\n";
  const std::string set_b = "@0.0.0.0/0 0.0.0.0/0 0:65535 2:2 17/0xff permit\n@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 0/0 deny\n";
  const std::string path = temp_file("swap.acl", set_a);
  NfChain chain = make_acl(path);
  std::atomic<bool> stop{false};
  uint64_t bursts = 0, saw_a = 0, saw_b = 0, mixed = 0, packets = 0;
  NfCounters counters[kMaxChainLength] = {};
  std::thread reader([&] {
    gnf::sync::ReaderSlot* slot = chain.view().readers + 0;
    while (!stop.load()) {
      std::vector<uint8_t> first = ipv4_frame("10.0.0.1", "10.0.0.2", 17, 7, 1);
      std::vector<uint8_t> second = ipv4_frame("10.0.0.1", "10.0.0.2", 17, 7, 2);
      PacketRef refs[] = {ref(first), ref(second)};
      PacketBatch batch{refs, 2};
      gnf::sync::reader_enter(slot);
      run_chain(chain.view(), batch, counters);
      gnf::sync::reader_leave(slot);
      ++bursts;
      packets += 2;
      if (refs[0].verdict == kPass && refs[1].verdict == kDrop) ++saw_a;
      else if (refs[0].verdict == kDrop && refs[1].verdict == kPass) ++saw_b;
      else ++mixed;
    }
  });
  uint32_t reloads = 0;
  for (int i = 0; i < 200; ++i) {
    std::ofstream(path) << (i % 2 == 0 ? set_b : set_a);
    for (const NfChain::Reload& r : chain.reload()) reloads += r.done;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  stop = true;
  reader.join();
  EXPECT_EQ(reloads, 200u);
  EXPECT_EQ(mixed, 0u);
  EXPECT_GT(saw_a, 0u);
  EXPECT_GT(saw_b, 0u);
  EXPECT_EQ(saw_a + saw_b, bursts);
  EXPECT_EQ(counters[0].value[AclNfView::kPermit] + counters[0].value[AclNfView::kDeny], packets);
}
