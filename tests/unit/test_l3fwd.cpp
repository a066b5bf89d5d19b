// The l3fwd NF on the CPU: what it forwards and how it rewrites, where each other packet goes and
// under which counter, and the route file formats. (The same code on the GPU: tests/gpu/.)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include <unistd.h>

#include "nf/chain.h"
#include "nf/l3fwd/route_file.h"
#include "util/error.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

using namespace gnf::nf;
using gnf::UserError;

namespace {

using Mac = std::array<uint8_t, 6>;
const Mac kPortMac[2] = {{0x02, 0, 0, 0, 0x01, 0}, {0x02, 0, 0, 0, 0x01, 1}};
const Mac kPeerMac = {0x02, 0xaa, 0, 0, 0, 0x01};
const Mac kGatewayMac = {0x02, 0xbb, 0, 0, 0, 0x02};

// Per process: CTest runs tests of this binary in parallel processes.
std::string temp_file(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

// A router with 10.0.0.1/24 + 2001:db8:0::1/64 on port 0 and 10.0.1.1/24 + 2001:db8:1::1/64 on port 1,
// gateway 10.0.1.2 / 2001:db8:1::2 on port 1 resolved, and the routes of `routes`.
NfChain make_router(const std::string& routes, bool check_dst_mac = true, int64_t lpm4_groups = 65536,
                    uint16_t port1_mtu = 0) {
  Params p("test.toml", 1, "nf[0]");
  p.set("lpm4_groups", ParamValue{lpm4_groups, 0});
  p.set("routes", ParamValue{temp_file("routes.txt", routes), 0});
  p.set("neighbours", ParamValue{temp_file("neighbours.txt", "10.0.1.2 02:bb:00:00:00:02\n2001:db8:1::2 02:bb:00:00:00:02\n"), 0});
  p.set("check_dst_mac", ParamValue{check_dst_mac, 0});
  NfContext context;
  context.ports = 2;
  context.port_mtu[1] = port1_mtu;
  for (uint16_t i = 0; i < 2; ++i) context.port_macs[i] = kPortMac[i];
  for (auto [port, text] : {std::pair{0, "10.0.0.1/24"}, {0, "2001:db8:0::1/64"}, {1, "10.0.1.1/24"}, {1, "2001:db8:1::1/64"}}) {
    auto parsed = *parse_interface_address(text);
    context.addresses.push_back({uint16_t(port), parsed.first, parsed.second});
  }
  return NfChain({NfSpec{"l3fwd", p}}, context);
}

void put_ipv4_checksum(std::vector<uint8_t>& f) {
  uint32_t ihl = (f[14] & 0xf) * 4;
  f[24] = f[25] = 0;
  gnf::wire::store_be16(&f[24], gnf::wire::checksum_finish(gnf::wire::checksum_add(0, &f[14], ihl)));
}

// Ethernet to port 0's MAC, IPv4 src -> dst with TTL, UDP; total length fits the frame.
std::vector<uint8_t> ipv4_frame(const char* src, const char* dst, uint8_t ttl = 64, uint32_t len = 64) {
  std::vector<uint8_t> f(len, 0);
  std::copy(kPortMac[0].begin(), kPortMac[0].end(), f.begin());
  std::copy(kPeerMac.begin(), kPeerMac.end(), f.begin() + 6);
  f[12] = 0x08;
  f[14] = 0x45;
  gnf::wire::store_be16(&f[16], uint16_t(len - 14));
  f[22] = ttl;
  f[23] = 17;
  std::copy_n(parse_ip_address(src)->bytes, 4, &f[26]);
  std::copy_n(parse_ip_address(dst)->bytes, 4, &f[30]);
  put_ipv4_checksum(f);
  return f;
}

std::vector<uint8_t> ipv6_frame(const char* src, const char* dst, uint8_t hop_limit = 64, uint8_t next = 17,
                                uint32_t len = 86) {
  std::vector<uint8_t> f(len, 0);
  std::copy(kPortMac[0].begin(), kPortMac[0].end(), f.begin());
  std::copy(kPeerMac.begin(), kPeerMac.end(), f.begin() + 6);
  f[12] = 0x86;
  f[13] = 0xdd;
  f[14] = 0x60;
  gnf::wire::store_be16(&f[18], uint16_t(len - 54));
  f[20] = next;
  f[21] = hop_limit;
  std::copy_n(parse_ip_address(src)->bytes, 16, &f[22]);
  std::copy_n(parse_ip_address(dst)->bytes, 16, &f[38]);
  return f;
}

struct Outcome {
  Verdict verdict;
  uint16_t out_port;
  std::vector<uint64_t> counters;
  HostReason reason;
};

Outcome run(NfChain& chain, std::vector<uint8_t>& frame, uint16_t in_port = 0) {
  PacketRef ref{frame.data(), uint32_t(frame.size()), 0, in_port, in_port, Verdict::Forward, HostReason::Unspecified};
  PacketBatch batch{&ref, 1};
  NfCounters counters[kMaxChainLength] = {};
  run_chain(chain.view(), batch, counters);
  return {ref.verdict, ref.out_port, {counters[0].value, counters[0].value + L3FwdView::kCounterCount}, ref.reason};
}

// The one counter a packet went under.
int counter_of(const Outcome& o) {
  int which = -1;
  for (int c = 0; c < L3FwdView::kCounterCount; ++c) {
    if (o.counters[c] == 0) continue;
    EXPECT_EQ(which, -1) << "two counters moved";
    EXPECT_EQ(o.counters[c], 1u);
    which = c;
  }
  return which;
}

}  // namespace

TEST(L3Fwd, ForwardsIpv4ViaGatewayWithTtlChecksumAndMacsRewritten) {
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n");
  std::vector<uint8_t> f = ipv4_frame("10.0.0.5", "198.18.3.4", 64);
  Outcome o = run(chain, f);
  EXPECT_EQ(o.verdict, Verdict::Forward);
  EXPECT_EQ(o.out_port, 1);
  EXPECT_EQ(counter_of(o), L3FwdView::kForwardedIpv4);
  EXPECT_EQ(f[22], 63);
  EXPECT_EQ(gnf::wire::checksum_finish(gnf::wire::checksum_add(0, &f[14], 20)), 0) << "header checksum broken";
  EXPECT_TRUE(std::equal(kGatewayMac.begin(), kGatewayMac.end(), f.begin()));
  EXPECT_TRUE(std::equal(kPortMac[1].begin(), kPortMac[1].end(), f.begin() + 6));
}

TEST(L3Fwd, IncrementalChecksumAgreesWithARecomputationForEveryTtl) {
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n");
  for (int ttl = 2; ttl <= 255; ++ttl) {
    for (uint8_t tos : {0x00, 0xff}) {  // 0xff pushes the sum towards the 0xffff corner (RFC 1624)
      std::vector<uint8_t> f = ipv4_frame("10.0.0.5", "198.18.255.255", uint8_t(ttl));
      f[15] = tos;
      put_ipv4_checksum(f);
      ASSERT_EQ(run(chain, f).verdict, Verdict::Forward);
      std::vector<uint8_t> expected = f;
      put_ipv4_checksum(expected);
      ASSERT_EQ(gnf::wire::load_be16(&f[24]), gnf::wire::load_be16(&expected[24])) << "ttl " << ttl;
    }
  }
}

TEST(L3Fwd, ForwardsIpv6ViaGatewayWithHopLimitDecremented) {
  NfChain chain = make_router("2001:db8:100::/40 2001:db8:1::2\n");
  std::vector<uint8_t> f = ipv6_frame("2001:db8::5", "2001:db8:100::7", 9);
  Outcome o = run(chain, f);
  EXPECT_EQ(o.verdict, Verdict::Forward);
  EXPECT_EQ(o.out_port, 1);
  EXPECT_EQ(counter_of(o), L3FwdView::kForwardedIpv6);
  EXPECT_EQ(f[21], 8);
  EXPECT_TRUE(std::equal(kGatewayMac.begin(), kGatewayMac.end(), f.begin()));
}

TEST(L3Fwd, DpdkStylePortRoutesUseThePortsFixedMacWithoutNeighbours) {
  NfChain chain = make_router("R198.18.0.0/16 1\nR2001:db8:200::/48 1\n");
  std::vector<uint8_t> f4 = ipv4_frame("10.0.0.5", "198.18.9.9"), f6 = ipv6_frame("2001:db8::5", "2001:db8:200::1");
  for (auto* f : {&f4, &f6}) {
    Outcome o = run(chain, *f);
    EXPECT_EQ(o.verdict, Verdict::Forward);
    EXPECT_EQ(o.out_port, 1);
    Mac expected = port_route_mac(1);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), f->begin()));
  }
}

TEST(L3Fwd, ConnectedDestinationsUseTheirOwnNeighbourEntryOrGoToTheHost) {
  NfChain chain = make_router("");
  std::vector<uint8_t> known = ipv4_frame("10.0.0.5", "10.0.1.2"), unknown = ipv4_frame("10.0.0.5", "10.0.1.3");
  EXPECT_EQ(counter_of(run(chain, known)), L3FwdView::kForwardedIpv4);
  Outcome o = run(chain, unknown);
  EXPECT_EQ(o.verdict, Verdict::ToHost);
  EXPECT_EQ(counter_of(o), L3FwdView::kToHostNoNeighbour);
}

TEST(L3Fwd, PacketsForTheRouterItselfGoToTheHost) {
  NfChain chain = make_router("");
  std::vector<std::vector<uint8_t>> frames = {ipv4_frame("10.0.0.5", "10.0.0.1"), ipv4_frame("10.0.0.5", "10.0.1.1"),
                                              ipv4_frame("10.0.0.5", "255.255.255.255"),
                                              ipv4_frame("10.0.0.5", "224.0.0.5"),
                                              ipv6_frame("2001:db8::5", "2001:db8:1::1"),
                                              ipv6_frame("fe80::5", "ff02::1:ff00:1"), ipv6_frame("fe80::5", "fe80::1")};
  std::vector<uint8_t> arp(60, 0);
  std::fill_n(arp.begin(), 6, 0xff);
  arp[12] = 0x08;
  arp[13] = 0x06;
  frames.push_back(arp);
  for (auto& f : frames) {
    Outcome o = run(chain, f);
    EXPECT_EQ(o.verdict, Verdict::ToHost);
    EXPECT_EQ(counter_of(o), L3FwdView::kToHostLocal);
  }
}

TEST(L3Fwd, ExpiringTtlAndHopLimitGoToTheHostUnchanged) {
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n2001:db8:100::/40 2001:db8:1::2\n");
  std::vector<uint8_t> f4 = ipv4_frame("10.0.0.5", "198.18.0.1", 1), f6 = ipv6_frame("2001:db8::5", "2001:db8:100::1", 1);
  const auto before4 = f4, before6 = f6;
  EXPECT_EQ(counter_of(run(chain, f4)), L3FwdView::kToHostTtl);
  EXPECT_EQ(counter_of(run(chain, f6)), L3FwdView::kToHostTtl);
  EXPECT_EQ(f4, before4);
  EXPECT_EQ(f6, before6);
}

TEST(L3Fwd, APuntedPacketCarriesWhyForTheSlowPath) {
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n203.0.113.0/24 10.0.1.9\n");  // 10.0.1.9: not resolved
  std::vector<uint8_t> ttl = ipv4_frame("10.0.0.5", "198.18.0.1", 1), no_route = ipv4_frame("10.0.0.5", "192.0.2.1"),
                       unresolved = ipv4_frame("10.0.0.5", "203.0.113.1"), local = ipv4_frame("10.0.0.5", "10.0.0.1");
  std::vector<uint8_t> forwarded = ipv4_frame("10.0.0.5", "198.18.0.1");
  EXPECT_EQ(run(chain, forwarded).reason, HostReason::Unspecified);
  EXPECT_EQ(run(chain, ttl).reason, HostReason::TtlExpired);
  EXPECT_EQ(run(chain, no_route).reason, HostReason::NoRoute);
  EXPECT_EQ(run(chain, unresolved).reason, HostReason::NoNeighbour);
  EXPECT_EQ(run(chain, local).reason, HostReason::Local);
}

TEST(L3Fwd, APacketLargerThanTheOutputPortsMtuGoesToTheHost) {
  // Port 1 sends at most 1500-byte IP packets; port 0 (no limit) takes jumbo frames.
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n2001:db8:100::/40 2001:db8:1::2\n", true, 65536, 1500);
  for (uint32_t len : {1514u, 1515u, 9014u}) {
    std::vector<uint8_t> f4 = ipv4_frame("10.0.0.5", "198.18.0.1", 64, len),
                         f6 = ipv6_frame("2001:db8::5", "2001:db8:100::1", 64, 17, len);
    const Outcome o4 = run(chain, f4), o6 = run(chain, f6);
    SCOPED_TRACE(len);
    if (len <= 1514) {
      EXPECT_EQ(counter_of(o4), L3FwdView::kForwardedIpv4);
      EXPECT_EQ(counter_of(o6), L3FwdView::kForwardedIpv6);
    } else {
      EXPECT_EQ(counter_of(o4), L3FwdView::kToHostTooBig);
      EXPECT_EQ(o4.reason, HostReason::TooBig);
      EXPECT_EQ(counter_of(o6), L3FwdView::kToHostTooBig);
    }
  }
}

TEST(L3Fwd, NoRouteGoesToTheHostAndBlackholeRoutesDrop) {
  NfChain chain = make_router("198.51.100.0/24 blackhole\n");
  std::vector<uint8_t> none = ipv4_frame("10.0.0.5", "203.0.113.1"), hole = ipv4_frame("10.0.0.5", "198.51.100.1");
  Outcome a = run(chain, none), b = run(chain, hole);
  EXPECT_EQ(a.verdict, Verdict::ToHost);
  EXPECT_EQ(counter_of(a), L3FwdView::kToHostNoRoute);
  EXPECT_EQ(b.verdict, Verdict::Drop);
  EXPECT_EQ(counter_of(b), L3FwdView::kDropBlackhole);
}

TEST(L3Fwd, MalformedIpv4IsDroppedUnderItsOwnCauseOrPunted) {
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n");
  struct Case {
    const char* what;
    std::function<void(std::vector<uint8_t>&)> spoil;
    L3FwdView::Counter expected;
  };
  const std::vector<Case> cases = {
      {"IHL below 5", [](auto& f) { f[14] = 0x44; put_ipv4_checksum(f); }, L3FwdView::kDropBadHeader},
      {"version 5", [](auto& f) { f[14] = 0x55; }, L3FwdView::kDropBadHeader},
      {"truncated", [](auto& f) { f.resize(30); }, L3FwdView::kDropBadHeader},
      {"total length beyond frame", [](auto& f) { gnf::wire::store_be16(&f[16], 200); put_ipv4_checksum(f); }, L3FwdView::kDropBadLength},
      {"total length below IHL", [](auto& f) { gnf::wire::store_be16(&f[16], 12); put_ipv4_checksum(f); }, L3FwdView::kDropBadLength},
      {"bad checksum", [](auto& f) { f[25] ^= 1; }, L3FwdView::kDropBadChecksum},
      {"router alert option", [](auto& f) { f[14] = 0x46; f[34] = 148; f[35] = 4; put_ipv4_checksum(f); },
       L3FwdView::kToHostOptions},
      {"loose source route", [](auto& f) { f[14] = 0x46; f[34] = 131; f[35] = 3; f[36] = 4; put_ipv4_checksum(f); },
       L3FwdView::kToHostOptions},
      {"option longer than the header", [](auto& f) { f[14] = 0x46; f[34] = 7; f[35] = 9; put_ipv4_checksum(f); },
       L3FwdView::kToHostOptions},
      {"loopback source", [](auto& f) { f[26] = 127; put_ipv4_checksum(f); }, L3FwdView::kDropMartian},
      {"multicast source", [](auto& f) { f[26] = 224; put_ipv4_checksum(f); }, L3FwdView::kDropMartian},
      {"destination 0/8", [](auto& f) { f[30] = 0; put_ipv4_checksum(f); }, L3FwdView::kDropMartian},
      {"source a port network's broadcast", [](auto& f) { f[29] = 255; put_ipv4_checksum(f); }, L3FwdView::kDropMartian},
      {"source the router's own address", [](auto& f) { f[29] = 1; put_ipv4_checksum(f); }, L3FwdView::kDropMartian},
      {"another host's MAC", [](auto& f) { f[5] = 0x77; }, L3FwdView::kDropOtherHost},
      {"802.1Q tag", [](auto& f) { f[12] = 0x81; f[13] = 0x00; }, L3FwdView::kDropNotIp},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> f = ipv4_frame("10.0.0.5", "198.18.0.1");
    c.spoil(f);
    Outcome o = run(chain, f);
    EXPECT_NE(o.verdict, Verdict::Forward) << c.what;
    EXPECT_EQ(counter_of(o), c.expected) << c.what;
  }
}

TEST(L3Fwd, Ipv4OptionsARouterNeedNotSeeAreForwarded) {
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n");
  std::vector<uint8_t> f = ipv4_frame("10.0.0.5", "198.18.0.1", 64, 72);
  f[14] = 0x47;  // 8 bytes of options: NOP, record route (7 bytes, full: its pointer past its length)
  f[34] = 1, f[35] = 7, f[36] = 7, f[37] = 8;
  put_ipv4_checksum(f);
  const Outcome o = run(chain, f);
  EXPECT_EQ(counter_of(o), L3FwdView::kForwardedIpv4);
  EXPECT_EQ(f[22], 63);  // TTL
}

// Record route with room left and timestamps are filled in by the slow path (RFC 1812 5.3.13.5-6),
// whose own view passes them once it has.
TEST(L3Fwd, RecordRouteWithRoomAndTimestampsGoToTheHost) {
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n");
  auto with_option = [](uint8_t type, uint8_t pointer) {
    std::vector<uint8_t> f = ipv4_frame("10.0.0.5", "198.18.0.1", 64, 72);
    f[14] = 0x47;  // 8 bytes of options: one of 7 (an address's room), then end of list
    f[34] = type, f[35] = 7, f[36] = pointer, f[41] = 0;
    put_ipv4_checksum(f);
    return f;
  };
  std::vector<uint8_t> room = with_option(7, 4), bad_pointer = with_option(7, 2), full_timestamp = with_option(68, 8);
  EXPECT_EQ(counter_of(run(chain, room)), L3FwdView::kToHostOptions);
  EXPECT_EQ(counter_of(run(chain, bad_pointer)), L3FwdView::kToHostOptions);      // below 4: malformed
  EXPECT_EQ(counter_of(run(chain, full_timestamp)), L3FwdView::kToHostOptions);   // full: its overflow counts
  L3FwdView acted_on = chain.view().elements[0].l3fwd;
  acted_on.options_acted_on = true;
  for (uint8_t type : {7, 68}) {
    std::vector<uint8_t> f = with_option(type, 5);
    PacketRef p{f.data(), uint32_t(f.size()), 0, 0, 0, Verdict::Forward, HostReason::Unspecified};
    PacketBatch batch{&p, 1};
    NfCounters counters{};
    acted_on.process(batch, counters);
    EXPECT_EQ(counters.value[L3FwdView::kForwardedIpv4], 1u) << int(type);
  }
}

TEST(L3Fwd, FragmentsAreForwardedLikeAnyPacket) {
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n");
  std::vector<uint8_t> f = ipv4_frame("10.0.0.5", "198.18.0.1");
  gnf::wire::store_be16(&f[20], 0x2000 | 185);  // more fragments, offset 1480
  put_ipv4_checksum(f);
  EXPECT_EQ(counter_of(run(chain, f)), L3FwdView::kForwardedIpv4);
}

TEST(L3Fwd, Ipv6ExtensionHeadersAreWalkedAndTruncatedOnesDropped) {
  NfChain chain = make_router("2001:db8:100::/40 2001:db8:1::2\n");
  auto with_ext = [](uint8_t first, uint8_t ext_len, uint32_t payload) {
    std::vector<uint8_t> f = ipv6_frame("2001:db8::5", "2001:db8:100::1", 64, first, 54 + payload);
    f[54] = 17;        // then UDP
    f[55] = ext_len;   // in 8-octet units, not counting the first 8
    return f;
  };
  auto ok = with_ext(60, 0, 32);        // destination options, 8 bytes
  auto cut = with_ext(60, 9, 32);       // claims 80 bytes in a 32-byte payload
  auto stub = with_ext(43, 0, 4);       // not even the 8-byte minimum
  auto hop_by_hop = with_ext(0, 0, 32);
  auto bad_payload_length = ipv6_frame("2001:db8::5", "2001:db8:100::1");
  gnf::wire::store_be16(&bad_payload_length[18], 1000);
  EXPECT_EQ(counter_of(run(chain, ok)), L3FwdView::kForwardedIpv6);
  EXPECT_EQ(counter_of(run(chain, cut)), L3FwdView::kDropBadExtHeader);
  EXPECT_EQ(counter_of(run(chain, stub)), L3FwdView::kDropBadExtHeader);
  EXPECT_EQ(counter_of(run(chain, hop_by_hop)), L3FwdView::kForwardedIpv6);  // padding only: it travels on
  auto router_alert = with_ext(0, 0, 32);
  router_alert[56] = 5, router_alert[57] = 2;  // router alert (RFC 2711), 2 bytes of value
  EXPECT_EQ(counter_of(run(chain, router_alert)), L3FwdView::kToHostOptions);
  auto discard_unknown = with_ext(0, 0, 32);
  discard_unknown[56] = 0x80, discard_unknown[57] = 0;  // unknown, "discard and say so"
  EXPECT_EQ(counter_of(run(chain, discard_unknown)), L3FwdView::kToHostOptions);
  EXPECT_EQ(counter_of(run(chain, bad_payload_length)), L3FwdView::kDropBadLength);
}

// A Hop-by-Hop header that runs past the payload is the slow path's to answer (parameter problem,
// RFC 8200 4.3) in transit; to the router itself it is dropped as any truncated header.
TEST(L3Fwd, ATruncatedHopByHopHeaderInTransitGoesToTheHost) {
  NfChain chain = make_router("2001:db8:100::/40 2001:db8:1::2\n");
  for (auto [dst, expected] : {std::pair{"2001:db8:100::1", L3FwdView::kToHostOptions},
                                {"2001:db8::1", L3FwdView::kDropBadExtHeader}}) {
    std::vector<uint8_t> f = ipv6_frame("2001:db8::5", dst, 64, 0, 54 + 32);
    f[54] = 17;
    f[55] = 9;  // 80 bytes in a 32-byte payload
    EXPECT_EQ(counter_of(run(chain, f)), expected) << dst;
  }
}

// Options are padding and at most 7 bytes of it in a row, PadN's bytes zeros (RFC 4942 2.1.9.5):
// as Linux (ip6_parse_tlv), l3fwd drops a packet whose Hop-by-Hop options break either rule, and
// one for the router whose Destination Options do (in transit those are not the router's to read).
// Options are read in order: a run counts Pad1 and PadN bytes alike, another option ends it, and
// an option that ends Linux's walk (unknown, "discard") ends l3fwd's before the padding behind it.
TEST(L3Fwd, OptionsPaddedBeyondSevenBytesOrWithNonZeroPadNAreDropped) {
  NfChain chain = make_router("2001:db8:100::/40 2001:db8:1::2\n");
  constexpr uint8_t kHopByHop = 0, kDestOptions = 60;
  auto with_options = [](uint8_t header, const char* dst, std::vector<uint8_t> options) {
    std::vector<uint8_t> f = ipv6_frame("2001:db8::5", dst, 64, header, 54 + 2 + uint32_t(options.size()) + 8);
    f[54] = 17;                                     // then UDP
    f[55] = uint8_t((2 + options.size()) / 8 - 1);  // in 8-octet units, not counting the first 8
    std::copy(options.begin(), options.end(), f.begin() + 56);
    return f;
  };
  const char* far = "2001:db8:100::1";
  const char* router = "2001:db8::1";
  // Options of 6 or 14 bytes, for headers of 8 or 16.
  const std::vector<uint8_t> pad1s_then_padn = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0};
  const std::vector<uint8_t> long_padn = {1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<uint8_t> alert_then_padn = {5, 2, 0, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<uint8_t> runs_of_7_and_4 = {0, 0, 0, 0, 0, 0, 0, 0x1e, 1, 0xab, 1, 2, 0, 0};  // a skippable option between
  const std::vector<uint8_t> non_zero_padn = {1, 4, 0, 0, 1, 0};
  const std::vector<uint8_t> discard_then_padding = {0x5e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  struct Case {
    const char* what;
    uint8_t header;
    const char* dst;
    const std::vector<uint8_t>& options;
    L3FwdView::Counter expected;
  };
  const Case cases[] = {
      {"8 Pad1", kHopByHop, far, pad1s_then_padn, L3FwdView::kDropBadExtHeader},
      {"a PadN of 14", kHopByHop, far, long_padn, L3FwdView::kDropBadExtHeader},
      {"a router alert, then 10 bytes of PadN", kHopByHop, far, alert_then_padn, L3FwdView::kDropBadExtHeader},
      {"runs of 7 and 4", kHopByHop, far, runs_of_7_and_4, L3FwdView::kForwardedIpv6},
      {"PadN not zeros", kHopByHop, far, non_zero_padn, L3FwdView::kDropBadExtHeader},
      {"discard, then 12 Pad1", kHopByHop, far, discard_then_padding, L3FwdView::kToHostOptions},
      {"8 Pad1 to the router", kHopByHop, router, pad1s_then_padn, L3FwdView::kDropBadExtHeader},
      {"destination options in transit", kDestOptions, far, long_padn, L3FwdView::kForwardedIpv6},
      {"destination options to the router", kDestOptions, router, long_padn, L3FwdView::kDropBadExtHeader},
      {"PadN not zeros to the router", kDestOptions, router, non_zero_padn, L3FwdView::kDropBadExtHeader},
      {"runs of 7 and 4 to the router", kDestOptions, router, runs_of_7_and_4, L3FwdView::kToHostLocal},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> f = with_options(c.header, c.dst, c.options);
    EXPECT_EQ(counter_of(run(chain, f)), c.expected) << c.what;
  }
}

// The router's addresses come from netlink too (ctl/netlink_sync.cpp calls add_address and
// remove_address as the kernel's RTM_NEWADDR and RTM_DELADDR come): the view l3fwd already runs with
// drops packets from them and from their networks' broadcast addresses at once, and forwards again
// once they are gone.
TEST(L3Fwd, AddressesAddedWhileRunningAreMartianSourcesToo) {
  NfChain chain = make_router("198.18.0.0/15 10.0.1.2\n");
  Router& router = *chain.router(0);
  auto from = [&](const char* src) {
    std::vector<uint8_t> f = ipv4_frame(src, "198.18.0.1");
    return counter_of(run(chain, f));
  };
  const char* sources[] = {"10.0.2.1", "10.0.2.255", "10.0.3.5"};
  for (const char* src : sources) EXPECT_EQ(from(src), L3FwdView::kForwardedIpv4) << src;

  const auto [address, network] = *parse_interface_address("10.0.2.1/24");
  router.add_address(1, address, network);
  const auto [second, same_network] = *parse_interface_address("10.0.2.2/24");
  router.add_address(1, second, same_network);
  const auto [point_to_point, link] = *parse_interface_address("10.0.3.4/31");
  router.add_address(0, point_to_point, link);
  for (const char* src : {"10.0.2.1", "10.0.2.2", "10.0.2.255", "10.0.3.4"})
    EXPECT_EQ(from(src), L3FwdView::kDropMartian) << src;
  EXPECT_EQ(from("10.0.3.5"), L3FwdView::kForwardedIpv4) << "a /31 has no broadcast address";

  router.remove_address(1, address, network);
  EXPECT_EQ(from("10.0.2.1"), L3FwdView::kForwardedIpv4);
  EXPECT_EQ(from("10.0.2.255"), L3FwdView::kDropMartian) << "10.0.2.2 still has the network";
  router.remove_address(1, second, same_network);
  EXPECT_EQ(from("10.0.2.255"), L3FwdView::kForwardedIpv4);
  EXPECT_EQ(from("10.0.0.1"), L3FwdView::kDropMartian) << "the configured addresses stay";
}

TEST(L3Fwd, TheMartianSourceListIsBoundedAndSaysSo) {
  NfChain chain = make_router("");
  Router& router = *chain.router(0);
  // The configuration's 10.0.0.1/24 and 10.0.1.1/24 take 4 places (addresses and broadcasts).
  for (int i = 0; i < int(kMaxMartianSources - 4) / 2; ++i) {
    const auto [address, network] = *parse_interface_address("10.1." + std::to_string(i) + ".1/24");
    router.add_address(1, address, network);
  }
  const auto [address, network] = *parse_interface_address("10.2.0.1/24");
  try {
    router.add_address(1, address, network);
    FAIL() << "a 65th martian source was taken";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("64 at most"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(router.is_local(address));
}

TEST(L3Fwd, Ipv6MartiansAreDropped) {
  NfChain chain = make_router("::/0 2001:db8:1::2\n");
  for (auto [src, dst] : {std::pair{"::1", "2001:db8:100::1"}, {"2001:db8::5", "::1"}, {"ff02::1", "2001:db8:100::1"},
                          {"fe80::1", "2001:db8:100::1"}}) {
    std::vector<uint8_t> f = ipv6_frame(src, dst);
    EXPECT_EQ(counter_of(run(chain, f)), L3FwdView::kDropMartian) << src << " -> " << dst;
  }
}

TEST(L3Fwd, RoutesChangedWhileReadersLookUpAreNeverSeenHalfMade) {
  // 198.18.0.0/24 always routes via 10.0.1.2; routes /25../32 inside it come and go via 10.0.1.3.
  // Every lookup must find a route to a gateway on port 1: a half-made group (invalid entries) or a
  // next hop seen before its record (a zero record is Local) would break that.
  NfChain chain = make_router("198.18.0.0/24 10.0.1.2\n");
  Router& router = *chain.router(0);
  const L3FwdTables tables = chain.view().elements[0].l3fwd.tables;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> lookups{0}, wrong{0};
  gnf::sync::ReaderSlot* slot = chain.view().readers + kTestReader;
  std::thread reader([&] {
    uint64_t n = 0, bad = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      gnf::sync::ReaderGuard burst(slot);
      for (uint32_t host = 0; host < 256; ++host, ++n) {
        uint32_t index;
        NextHop hop;
        if (!lpm4_lookup(tables.lpm4, 0xc6120000u | host, index) || !next_hop_at(tables.next_hops, index, hop) ||
            hop.kind != NextHopKind::Gateway || hop.port != 1)
          ++bad;
      }
    }
    lookups = n;
    wrong = bad;
  });
  for (int round = 0; round < 2000; ++round) {
    for (int depth = 25; depth <= 32; ++depth)
      router.add_route(*parse_ip_prefix("198.18.0.0/" + std::to_string(depth)),
                       RouteTarget{NextHopKind::Gateway, 1, *parse_ip_address("10.0.1." + std::to_string(3 + round % 200))});
    for (int depth = 25; depth <= 32; ++depth) router.remove_route(*parse_ip_prefix("198.18.0.0/" + std::to_string(depth)));
  }
  stop = true;
  reader.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(lookups.load(), 0u);
}

TEST(L3Fwd, AFreedGroupIsReusedOnlyOnceEveryReaderHasLeftTheBurstThatMightSeeIt) {
  NfChain chain = make_router("", true, 3);  // three tbl8 groups: the two /32 port addresses take two
  Router& router = *chain.router(0);
  const RouteTarget via{NextHopKind::Gateway, 1, *parse_ip_address("10.0.1.2")};
  router.add_route(*parse_ip_prefix("198.18.0.0/25"), via);
  gnf::sync::ReaderSlot* slot = chain.view().readers + kTestReader;
  gnf::sync::reader_enter(slot);  // a burst that may have loaded the pointer to the group
  router.remove_route(*parse_ip_prefix("198.18.0.0/25"));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(router.add_route(*parse_ip_prefix("198.18.1.0/25"), via), UserError);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900)) << "it waited for the reader";
  gnf::sync::reader_leave(slot);
  EXPECT_NO_THROW(router.add_route(*parse_ip_prefix("198.18.1.0/25"), via));
}

TEST(L3Fwd, RouteGetLinesSayWhatIpRouteGetSays) {
  NfChain chain = make_router("198.19.0.0/16 10.0.1.2\n2001:db8:19::/48 2001:db8:1::2\nR198.18.0.0/16 1\n"
                              "192.0.2.0/24 blackhole\n");
  const Router& router = *chain.router(0);
  const std::vector<std::string> names = {"west", "east"};
  auto line = [&](const char* address) { return route_get_line(router, *parse_ip_address(address), names); };
  EXPECT_EQ(line("198.19.7.7"), "198.19.7.7 via 10.0.1.2 dev east");
  EXPECT_EQ(line("2001:db8:19::7"), "2001:db8:19::7 via 2001:db8:1::2 dev east");
  EXPECT_EQ(line("10.0.0.9"), "10.0.0.9 dev west");
  EXPECT_EQ(line("2001:db8::9"), "2001:db8::9 dev west");
  EXPECT_EQ(line("198.18.3.4"), "198.18.3.4 dev east");
  EXPECT_EQ(line("10.0.1.1"), "local 10.0.1.1");
  EXPECT_EQ(line("2001:db8:1::1"), "local 2001:db8:1::1");
  EXPECT_EQ(line("192.0.2.200"), "blackhole 192.0.2.200");
  EXPECT_EQ(line("203.0.113.1"), "unreachable 203.0.113.1");
  EXPECT_EQ(line("2001:db9::1"), "unreachable 2001:db9::1");
}

TEST(RouteFile, BadLinesNameTheFileAndLine) {
  for (auto [text, message] : {std::pair{"198.18.0.0/15 10.0.1.2\n10.2.0.0/33 10.0.1.2\n", "routes.txt:2: '10.2.0.0/33' is not a prefix"},
                               {"R10.2.0.0/16 7\n", "routes.txt:1: '7' is not a port number"},
                               {"10.2.0.0/16 172.16.0.1\n", "routes.txt:1: 172.16.0.1 is in none of the ports' networks"},
                               {"2001:db8::/32 10.0.1.2\n", "routes.txt:1: '10.0.1.2' is not an IPv6 gateway"}}) {
    try {
      make_router(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(RouteFile, ReadsCommentsBlankLinesAndBothFamilies) {
  NfChain chain = make_router("# DPDK style\nR198.18.0.0/16 1\n\n2001:db8:100::/40 2001:db8:1::2 # via\n10.9.0.0/16 10.0.1.2 1\n");
  Router::Usage u = chain.router(0)->usage();
  EXPECT_EQ(u.ipv4_routes, 2u + 4u);  // + each port's /32 and /24
  EXPECT_EQ(u.ipv6_routes, 1u + 4u);
}
