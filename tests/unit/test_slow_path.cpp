// The router's slow path acts on why the NF sent a frame up (nf::HostReason), not on a second
// lookup: what the NF saw when it forwarded is what the slow path answers for.
#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

#include "ctl/frames.h"
#include "ctl/slow_path.h"
#include "nf/l3fwd/l3fwd.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

namespace gnf {
namespace {

using Frames = std::vector<std::pair<uint16_t, std::vector<uint8_t>>>;

struct Rig {
  nf::L3FwdView view{};
  std::unique_ptr<nf::Router> router;
  Frames sent;
  std::unique_ptr<ctl::SlowPath> slow;

  explicit Rig(const std::string& routes, uint16_t port1_mtu = 0) {
    const std::string file = ::testing::TempDir() + std::to_string(getpid()) + "-slow-routes.txt";
    std::ofstream(file) << routes;
    nf::Params params("test.toml", 1, "nf[0]");
    params.set("routes", nf::ParamValue{file, 0});
    nf::NfContext context;
    context.ports = 2;
    context.port_mtu[1] = port1_mtu;
    for (uint16_t p = 0; p < 2; ++p) context.port_macs[p] = {0x02, 0, 0, 0, 0x01, uint8_t(p)};
    for (auto [port, text] : {std::pair{0, "10.0.0.1/24"}, {1, "10.0.1.1/24"}, {0, "2001:db8::1/64"},
                              {1, "2001:db8:1::1/64"}}) {
      auto parsed = *nf::parse_interface_address(text);
      context.addresses.push_back({uint16_t(port), parsed.first, parsed.second});
    }
    router = nf::configure_l3fwd(params, context, view);
    slow = std::make_unique<ctl::SlowPath>(*router, view, nullptr,
                                           std::vector<std::array<uint8_t, 6>>{context.port_macs[0], context.port_macs[1]},
                                           [this](uint16_t port, const std::vector<uint8_t>& f) {
                                             sent.emplace_back(port, f);
                                             return true;
                                           });
  }
};

void put_ip_checksum(std::vector<uint8_t>& f) {
  f[24] = f[25] = 0;
  uint32_t sum = 0;
  for (int i = 14; i < 34; i += 2) sum += uint32_t(f[i] << 8 | f[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  f[24] = uint8_t(~sum >> 8), f[25] = uint8_t(~sum);
}

// IPv4 from 10.0.0.5 to `dst` on port 0, addressed to the router's MAC, `ip_bytes` long (payload
// bytes numbered), with DF if asked, TTL `ttl`, protocol `proto` (UDP).
std::vector<uint8_t> udp_to(uint8_t d0, uint8_t d1, uint8_t d2, uint8_t d3, uint16_t ip_bytes = 46, bool df = false,
                            uint8_t ttl = 64, uint8_t proto = 17) {
  std::vector<uint8_t> f(std::max(60, 14 + ip_bytes), 0);
  const uint8_t head[] = {0x02, 0, 0, 0, 0x01, 0x00, 0x02, 0xaa, 0, 0, 0, 5, 0x08, 0x00,
                          0x45, 0, uint8_t(ip_bytes >> 8), uint8_t(ip_bytes), 0x12, 0x34, uint8_t(df ? 0x40 : 0), 0,
                          ttl, proto, 0, 0, 10, 0, 0, 5, d0, d1, d2, d3};
  std::copy(std::begin(head), std::end(head), f.begin());
  for (uint32_t i = 34; i < 14u + ip_bytes; ++i) f[i] = uint8_t(i * 7);
  put_ip_checksum(f);
  return f;
}

// An ICMP echo request to the router's 10.0.0.1, its ICMP checksum right unless `spoil`.
std::vector<uint8_t> echo_request(bool spoil = false) {
  std::vector<uint8_t> f = udp_to(10, 0, 0, 1, 28, false, 64, 1);
  f[34] = 8, f[35] = 0, f[36] = f[37] = 0;
  uint32_t sum = 0;
  for (int i = 34; i < 42; i += 2) sum += uint32_t(f[i] << 8 | f[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  f[36] = uint8_t(~sum >> 8), f[37] = uint8_t(~sum);
  if (spoil) f[37] ^= 1;
  return f;
}

// UDP/IPv6 from 2001:db8::5 to 2001:db8:100::1 on port 0, `ip_bytes` long.
std::vector<uint8_t> udp6(uint16_t ip_bytes) {
  std::vector<uint8_t> f(14 + ip_bytes, 0);
  const uint8_t head[] = {0x02, 0, 0, 0, 0x01, 0x00, 0x02, 0xaa, 0, 0, 0, 5, 0x86, 0xdd, 0x60, 0, 0, 0,
                          uint8_t((ip_bytes - 40) >> 8), uint8_t(ip_bytes - 40), 17, 64};
  std::copy(std::begin(head), std::end(head), f.begin());
  std::copy_n(nf::parse_ip_address("2001:db8::5")->bytes, 16, &f[22]);
  std::copy_n(nf::parse_ip_address("2001:db8:100::1")->bytes, 16, &f[38]);
  return f;
}

uint64_t count(const ctl::SlowPath& s, int counter) { return s.counters()[counter]; }

TEST(SlowPath, AnswersForWhatTheNfSawNotForASecondLookup) {
  // 192.0.2.0/24 is routed now (through 10.0.1.2, not resolved), but the NF said no route: the
  // slow path sends the unreachable the NF's verdict calls for.
  Rig rig("192.0.2.0/24 10.0.1.2\n");
  rig.slow->handle(0, udp_to(192, 0, 2, 1), 1'000'000'000, nf::HostReason::NoRoute);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kUnreachable), 1u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kHeld), 0u);
  ASSERT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(rig.sent[0].first, 0);  // back to the sender
  // Without a reason it asks the router, which holds it for 10.0.1.2's resolution (and asks for it).
  rig.slow->handle(0, udp_to(192, 0, 2, 1), 2'000'000'000);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kHeld), 1u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kArpRequests), 1u);
}

TEST(SlowPath, APacketTooBigForItsPortGetsTheMtuOrIsFragmented) {
  Rig rig("192.0.2.0/24 10.0.1.2\n", 1500);
  rig.router->set_neighbour(1, *nf::parse_ip_address("10.0.1.2"), {0x02, 0xbb, 0, 0, 0, 2});
  // DF: ICMP fragmentation needed back to the sender, with the next hop's MTU (RFC 1191).
  rig.slow->handle(0, udp_to(192, 0, 2, 1, 4000, true), 1'000'000'000, nf::HostReason::TooBig);
  ASSERT_EQ(rig.sent.size(), 1u);
  const std::vector<uint8_t>& icmp = rig.sent[0].second;
  EXPECT_EQ(rig.sent[0].first, 0);
  EXPECT_EQ(icmp[34], 3);                         // destination unreachable
  EXPECT_EQ(icmp[35], 4);                         // fragmentation needed and DF set
  EXPECT_EQ(icmp[40] << 8 | icmp[41], 1500);      // next-hop MTU
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kTooBig), 1u);
  // Without DF: fragments of at most 1500 bytes, offsets in 8-byte units, MF on all but the last,
  // forwarded to the next hop; their payloads put together are the packet's.
  rig.sent.clear();
  const std::vector<uint8_t> packet = udp_to(192, 0, 2, 1, 4000, false);
  rig.slow->handle(0, packet, 2'000'000'000, nf::HostReason::TooBig);
  ASSERT_EQ(rig.sent.size(), 3u);
  std::vector<uint8_t> payload;
  for (size_t i = 0; i < rig.sent.size(); ++i) {
    const std::vector<uint8_t>& f = rig.sent[i].second;
    const uint8_t* ip = f.data() + 14;
    const uint32_t total = uint32_t(ip[2] << 8 | ip[3]), flags = uint32_t(ip[6] << 8 | ip[7]);
    EXPECT_EQ(rig.sent[i].first, 1);
    EXPECT_LE(total, 1500u);
    EXPECT_EQ(ip[8], 63);  // forwarded: TTL down by one
    EXPECT_EQ((flags & 0x1fff) * 8, payload.size());
    EXPECT_EQ((flags & 0x2000) != 0, i + 1 < rig.sent.size());
    uint32_t sum = 0;
    for (int k = 0; k < 20; k += 2) sum += uint32_t(ip[k] << 8 | ip[k + 1]);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    EXPECT_EQ(sum, 0xffffu) << "header checksum of fragment " << i;
    payload.insert(payload.end(), ip + 20, ip + total);
  }
  EXPECT_EQ(payload, std::vector<uint8_t>(packet.begin() + 34, packet.begin() + 14 + 4000));
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kFragmented), 1u);
}

TEST(SlowPath, AnIpv6PacketTooBigGetsPacketTooBigWithTheMtu) {
  Rig rig("2001:db8:100::/40 2001:db8:1::2\n", 1500);
  rig.slow->handle(0, udp6(4000), 1'000'000'000, nf::HostReason::TooBig);
  ASSERT_EQ(rig.sent.size(), 1u);
  const std::vector<uint8_t>& f = rig.sent[0].second;
  const uint8_t* icmp = f.data() + 54;
  EXPECT_EQ(rig.sent[0].first, 0);
  EXPECT_EQ(icmp[0], 2);  // packet too big
  EXPECT_EQ(icmp[1], 0);
  EXPECT_EQ(uint32_t(icmp[4] << 24 | icmp[5] << 16 | icmp[6] << 8 | icmp[7]), 1500u);
  const uint32_t len = uint32_t(f[18] << 8 | f[19]);
  EXPECT_EQ(len, 1280u - 40);  // as much of the packet as fits in the minimum MTU
  EXPECT_EQ(ctl::icmpv6_checksum(*nf::parse_ip_address("2001:db8::1"), *nf::parse_ip_address("2001:db8::5"), icmp, len),
            0);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kTooBig), 1u);
}

TEST(SlowPath, AnswersEchoRequestsOnlyWholeAndWithARightChecksum) {
  Rig rig("");
  rig.slow->handle(0, echo_request(), 1, nf::HostReason::Local);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kEchoReplies), 1u);
  rig.slow->handle(0, echo_request(true), 2, nf::HostReason::Local);
  std::vector<uint8_t> fragment = echo_request();
  fragment[20] = 0x20;  // more fragments
  put_ip_checksum(fragment);
  rig.slow->handle(0, fragment, 3, nf::HostReason::Local);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kEchoReplies), 1u);
  EXPECT_EQ(rig.sent.size(), 1u);
}

TEST(SlowPath, ErrorsQuoteTheDatagramAndNeverAnswerALaterFragment) {
  Rig rig("192.0.2.0/24 10.0.1.2\n");
  // A 28-byte datagram in a 60-byte frame: the error quotes 28 bytes, not the padding.
  rig.slow->handle(0, udp_to(192, 0, 2, 1, 28, false, 1), 1'000'000'000, nf::HostReason::TtlExpired);
  ASSERT_EQ(rig.sent.size(), 1u);
  const std::vector<uint8_t>& error = rig.sent[0].second;
  EXPECT_EQ(error[34], 11);                                       // time exceeded
  EXPECT_EQ(uint32_t(error[16] << 8 | error[17]), 20u + 8 + 28);  // its IP total length
  // RFC 1812 4.3.2.7: no ICMP error about a fragment other than the first.
  std::vector<uint8_t> later = udp_to(192, 0, 2, 1, 28, false, 1);
  later[21] = 185;  // offset 1480
  put_ip_checksum(later);
  rig.slow->handle(0, later, 2'000'000'000, nf::HostReason::TtlExpired);
  EXPECT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kTimeExceeded), 1u);
}

// `frame` (IPv4, no options) with `options` (a multiple of 4 bytes) behind its header.
std::vector<uint8_t> with_ipv4_options(std::vector<uint8_t> f, const std::vector<uint8_t>& options) {
  f.insert(f.begin() + 34, options.begin(), options.end());
  f[14] = uint8_t(0x45 + options.size() / 4);
  const uint32_t total = uint32_t(f[16] << 8 | f[17]) + uint32_t(options.size());
  f[16] = uint8_t(total >> 8), f[17] = uint8_t(total);
  f[24] = f[25] = 0;
  wire::store_be16(&f[24], wire::checksum_finish(wire::checksum_add(0, &f[14], 20 + options.size())));
  return f;
}

TEST(SlowPath, RecordsTheRouteAndDropsSourceRoutesUnderTheirOwnCounter) {
  Rig rig("R192.0.2.0/24 1\n");
  rig.slow->handle(0, with_ipv4_options(udp_to(192, 0, 2, 1), {7, 7, 4, 0, 0, 0, 0, 0}), 1, nf::HostReason::Options);
  ASSERT_EQ(rig.sent.size(), 1u);
  const std::vector<uint8_t>& f = rig.sent[0].second;
  EXPECT_EQ(rig.sent[0].first, 1);
  EXPECT_EQ(f[36], 8);                                                   // the pointer, one address on
  EXPECT_EQ(std::vector<uint8_t>(&f[37], &f[41]), (std::vector<uint8_t>{10, 0, 1, 1}));  // port 1's address
  EXPECT_EQ(f[22], 63);
  EXPECT_EQ(wire::checksum_finish(wire::checksum_add(0, &f[14], 28)), 0);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kOptionsForwarded), 1u);
  rig.slow->handle(0, with_ipv4_options(udp_to(192, 0, 2, 1), {131, 7, 4, 10, 0, 1, 2, 0}), 2, nf::HostReason::Options);
  EXPECT_EQ(rig.sent.size(), 1u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kSourceRoutesDropped), 1u);
}

TEST(SlowPath, AMalformedHopByHopHeaderGetsParameterProblemAtTheOffendingByte) {
  Rig rig("2001:db8:100::/40 2001:db8:1::2\n");
  std::vector<uint8_t> option_too_long = udp6(40 + 16);
  option_too_long[20] = 0;                                     // Hop-by-Hop first
  option_too_long[54] = 17, option_too_long[55] = 0;           // 8 bytes, then UDP
  option_too_long[56] = 0x1e, option_too_long[57] = 5;         // a skippable option of 5 bytes in 4
  std::vector<uint8_t> header_too_long = option_too_long;
  header_too_long[56] = 1, header_too_long[57] = 4;            // PadN to the end, but the header says 16 bytes
  header_too_long[55] = 1;
  header_too_long[19] = 8;                                     // in a payload of 8
  header_too_long.resize(14 + 48);
  for (auto [frame, pointer] : {std::pair{&option_too_long, 43u}, {&header_too_long, 41u}}) {
    rig.sent.clear();
    rig.slow->handle(0, *frame, 1, nf::HostReason::Options);
    ASSERT_EQ(rig.sent.size(), 1u) << pointer;
    const uint8_t* icmp = rig.sent[0].second.data() + 54;
    EXPECT_EQ(icmp[0], 4) << pointer;  // parameter problem
    EXPECT_EQ(icmp[1], 0) << pointer;  // erroneous header field
    EXPECT_EQ(wire::load_be32(icmp + 4), pointer);
  }
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kParameterProblem), 2u);
}

// Options padded beyond Linux's limit (nf::L3FwdView::options_stop) are dropped, never answered:
// l3fwd drops them before the slow path sees them, and a router alert before the padding (which
// would bring a packet here) changes nothing.
TEST(SlowPath, AHopByHopHeaderPaddedBeyondTheLimitIsNeitherForwardedNorAnswered) {
  Rig rig("2001:db8:100::/40 2001:db8:1::2\n");
  std::vector<uint8_t> f = udp6(40 + 16 + 8);
  f[20] = 0;                          // Hop-by-Hop first
  f[54] = 17, f[55] = 1;              // 16 bytes, then UDP
  const uint8_t options[] = {5, 2, 0, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0, 0};  // router alert, 10 bytes of PadN
  std::copy(std::begin(options), std::end(options), &f[56]);
  rig.slow->handle(0, f, 1, nf::HostReason::Options);
  EXPECT_TRUE(rig.sent.empty());
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kOptionsForwarded), 0u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kParameterProblem), 0u);
}

// Local delivery ([router] local_delivery = "tap"): what the kernel is handed, by port.
struct Kernel {
  Frames received;
  bool takes = true;
  void attach(ctl::SlowPath& slow) {
    slow.deliver_locally([this](uint16_t port, const std::vector<uint8_t>& f) {
      received.emplace_back(port, f);
      return takes;
    });
  }
};

TEST(SlowPath, LocalDeliveryHandsTheKernelWhatIsForTheRouterAndNotItsOwnToAnswer) {
  Rig rig("");
  Kernel kernel;
  kernel.attach(*rig.slow);
  const std::vector<uint8_t> udp = udp_to(10, 0, 0, 1), across = udp_to(10, 0, 1, 1);
  rig.slow->handle(0, udp, 1'000'000'000);
  rig.slow->handle(0, across, 1'000'000'000);  // the other port's address: in by the port it came on
  std::vector<uint8_t> udp6_local = udp6(60);
  std::copy_n(nf::parse_ip_address("2001:db8::1")->bytes, 16, &udp6_local[38]);
  rig.slow->handle(0, udp6_local, 1'000'000'000);
  // A link-local address other than the router's: perhaps the kernel's own (wire/tap.h).
  std::vector<uint8_t> udp6_link_local = udp6(60);
  std::copy_n(nf::parse_ip_address("fe80::1234")->bytes, 16, &udp6_link_local[38]);
  rig.slow->handle(0, udp6_link_local, 1'000'000'000);
  ASSERT_EQ(kernel.received.size(), 4u);
  kernel.received.pop_back();
  EXPECT_EQ(kernel.received[0], (std::pair<uint16_t, std::vector<uint8_t>>{0, udp}));
  EXPECT_EQ(kernel.received[1], (std::pair<uint16_t, std::vector<uint8_t>>{0, across}));
  EXPECT_EQ(kernel.received[2].second, udp6_local);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kToKernel), 4u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kUnhandled), 0u);
  EXPECT_TRUE(rig.sent.empty());
  // Echo requests and ARP requests stay the slow path's own; a reply to the router's address (the
  // kernel's own request answered) goes to the kernel as well.
  const ctl::Mac router_mac{0x02, 0, 0, 0, 0x01, 0x00}, host_mac{0x02, 0xaa, 0, 0, 0, 5};
  const nf::IpAddress router_ip = *nf::parse_ip_address("10.0.0.1"), host_ip = *nf::parse_ip_address("10.0.0.5");
  rig.slow->handle(0, echo_request(), 1'000'000'000);
  rig.slow->handle(0, ctl::arp_frame(1, router_mac, host_mac, host_ip, ctl::Mac{}, router_ip), 1'000'000'000);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kEchoReplies), 1u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kArpReplies), 1u);
  EXPECT_EQ(kernel.received.size(), 3u);
  const std::vector<uint8_t> arp_reply = ctl::arp_frame(2, router_mac, host_mac, host_ip, router_mac, router_ip);
  rig.slow->handle(0, arp_reply, 1'000'000'000);
  ASSERT_EQ(kernel.received.size(), 4u);
  EXPECT_EQ(kernel.received[3].second, arp_reply);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kToKernel), 5u);
}

TEST(SlowPath, WhatTheKernelRefusesIsCountedAndWithoutLocalDeliveryItIsUnhandled) {
  Rig rig("");
  rig.slow->handle(0, udp_to(10, 0, 0, 1), 1'000'000'000);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kUnhandled), 1u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kToKernel), 0u);
  Kernel kernel;
  kernel.takes = false;  // its TAP's queue full
  kernel.attach(*rig.slow);
  rig.slow->handle(0, udp_to(10, 0, 0, 1), 1'000'000'000);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kTapWriteFailed), 1u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kToKernel), 0u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kUnhandled), 1u);
}

TEST(SlowPath, FramesFromTheKernelLeaveByTheirPortPaddedToTheEthernetMinimum) {
  Rig rig("");
  const ctl::Mac router_mac{0x02, 0, 0, 0, 0x01, 0x01};
  std::vector<uint8_t> arp = ctl::arp_frame(1, ctl::Mac{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, router_mac,
                                            *nf::parse_ip_address("10.0.1.1"), ctl::Mac{},
                                            *nf::parse_ip_address("10.0.1.7"));
  arp.resize(42);  // as the kernel sends it
  rig.slow->from_kernel(1, arp);
  const std::vector<uint8_t> udp = udp_to(10, 0, 0, 5, 1000);
  rig.slow->from_kernel(0, udp);
  rig.slow->from_kernel(0, std::vector<uint8_t>(10, 0));  // not even an Ethernet header
  ASSERT_EQ(rig.sent.size(), 2u);
  EXPECT_EQ(rig.sent[0].first, 1);
  ASSERT_EQ(rig.sent[0].second.size(), 60u);
  EXPECT_TRUE(std::equal(arp.begin(), arp.end(), rig.sent[0].second.begin()));
  EXPECT_EQ(rig.sent[1], (std::pair<uint16_t, std::vector<uint8_t>>{0, udp}));
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kFromKernel), 2u);
  EXPECT_EQ(count(*rig.slow, ctl::SlowPath::kMalformed), 1u);
}

}  // namespace

}  // namespace gnf
