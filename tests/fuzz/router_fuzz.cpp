// libFuzzer target: arbitrary frames into the router, l3fwd's forwarding and then its slow path
// for what l3fwd sends up (with the reason it gives), as a plane and the control plane run them.
//
// One router for the whole process (its tables take ~150 MiB; built once): two ports, 10.0.0.1/24
// + 2001:db8::1/64 on port 0 (no MTU limit) and 10.0.1.1/24 + 2001:db8:1::1/64 on port 1 (MTU
// 1500); routes through a resolved and an unresolved gateway, a blackhole, a DPDK port route and an
// IPv6 route. The slow path learns from the frames, so its tables carry over between inputs, as a
// router's do between packets.
//
// Input layout: frames, each a byte (its bit 0: the port it arrives on), a 2-byte little-endian
// length (modulo 9100) and that many bytes (fewer if the input ends first). Frames under 60 bytes
// are skipped: the NIC's MAC counts them as runts and no NF sees them.
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - l3fwd gives every packet one counter, and a reason with each one it sends up;
//  - a forwarded IPv4 packet leaves with TTL one less, a right header checksum, no longer than the
//    output port's MTU, a unicast destination MAC and the port's as source; an IPv6 one with hop
//    limit one less, no longer than the MTU;
//  - every frame the slow path sends is a whole Ethernet frame of 60 bytes or more; IPv4 with a
//    right header checksum, within the port's MTU; the ICMP messages it makes itself (from the
//    router's address) within 576 bytes (RFC 1812 4.3.2.3) with a right ICMP checksum, its ICMPv6
//    messages within 1280 bytes (RFC 4443 2.4(c)) with a right checksum over the pseudo-header;
//  - with local delivery on (a kernel that takes every other frame), the kernel is handed only ARP
//    replies to the router's addresses and IPv4 / IPv6 packets to them (IPv6: or to a link-local
//    address), on an existing port;
//  - the slow path never throws.
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "ctl/frames.h"
#include "ctl/slow_path.h"
#include "fuzz_support.h"
#include "nf/chain.h"
#include "nf/l3fwd/l3fwd.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

using namespace gnf;

namespace {

constexpr uint16_t kPort1Mtu = 1500;

std::array<uint8_t, 6> port_mac(uint16_t port) { return {0x02, 0, 0, 0, 0x01, uint8_t(port)}; }

struct Router {
  fuzz::ScratchFile routes{"-routes.txt"}, neighbours{"-neighbours.txt"};
  nf::L3FwdView view{};
  std::unique_ptr<nf::Router> router;
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> sent;
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> kernel;  // what local delivery handed it
  std::unique_ptr<ctl::SlowPath> slow;
  uint64_t now_ns = 1'000'000'000;

  Router() {
    const std::string route_text =
        "192.0.2.0/24 10.0.1.2\n198.51.100.0/24 10.0.1.9\n203.0.113.0/24 blackhole\nR100.64.0.0/10 1\n"
        "2001:db8:100::/40 2001:db8:1::2\n2001:db8:200::/40 2001:db8:1::9\n";
    const std::string neighbour_text = "10.0.1.2 02:bb:00:00:00:02\n2001:db8:1::2 02:bb:00:00:00:02\n";
    routes.write(reinterpret_cast<const uint8_t*>(route_text.data()), route_text.size());
    neighbours.write(reinterpret_cast<const uint8_t*>(neighbour_text.data()), neighbour_text.size());
    nf::Params params("fuzz.toml", 1, "nf[0]");
    params.set("routes", nf::ParamValue{routes.path(), 0});
    params.set("neighbours", nf::ParamValue{neighbours.path(), 0});
    params.set("lpm4_groups", nf::ParamValue{int64_t(64), 0});
    params.set("lpm6_groups", nf::ParamValue{int64_t(64), 0});
    params.set("next_hops", nf::ParamValue{int64_t(256), 0});
    nf::NfContext context;
    context.ports = 2;
    context.port_mtu[1] = kPort1Mtu;
    for (uint16_t p = 0; p < 2; ++p) context.port_macs[p] = port_mac(p);
    for (auto [port, text] : {std::pair{0, "10.0.0.1/24"}, {0, "2001:db8::1/64"}, {1, "10.0.1.1/24"},
                              {1, "2001:db8:1::1/64"}}) {
      auto parsed = *nf::parse_interface_address(text);
      context.addresses.push_back({uint16_t(port), parsed.first, parsed.second});
    }
    router = nf::configure_l3fwd(params, context, view);
    slow = std::make_unique<ctl::SlowPath>(*router, view, nullptr,
                                           std::vector<ctl::Mac>{context.port_macs[0], context.port_macs[1]},
                                           [this](uint16_t port, const std::vector<uint8_t>& f) {
                                             sent.emplace_back(port, f);
                                             return true;
                                           });
    slow->deliver_locally([this](uint16_t port, const std::vector<uint8_t>& f) {
      kernel.emplace_back(port, f);
      return kernel.size() % 2 == 0;  // every other one refused, as by a full TAP queue
    });
  }
};

bool ipv4_header_ok(const uint8_t* ip, uint32_t ihl) { return wire::checksum_finish(wire::checksum_add(0, ip, ihl)) == 0; }

void check_forwarded(const std::vector<uint8_t>& before, const nf::PacketRef& p, const nf::L3FwdView& view) {
  if (p.out_port >= 2) fuzz::fail("forwarded to a port that does not exist", p.out_port);
  const uint8_t* ip = p.data + 14;
  const uint32_t mtu = view.mtu[p.out_port];
  if (std::memcmp(p.data + 6, port_mac(p.out_port).data(), 6) != 0) fuzz::fail("source MAC is not the port's");
  if (wire::load_be16(p.data + 12) == 0x0800) {
    const uint32_t ihl = (ip[0] & 0xfu) * 4, total = wire::load_be16(ip + 2);
    if (ip[8] + 1 != before[14 + 8]) fuzz::fail("IPv4 TTL not one less", ip[8], before[14 + 8]);
    if (!ipv4_header_ok(ip, ihl)) fuzz::fail("forwarded IPv4 header checksum wrong");
    if (mtu && total > mtu) fuzz::fail("forwarded IPv4 packet over the port's MTU", total, mtu);
  } else {
    const uint32_t total = 40u + wire::load_be16(ip + 4);
    if (ip[7] + 1 != before[14 + 7]) fuzz::fail("IPv6 hop limit not one less", ip[7], before[14 + 7]);
    if (mtu && total > mtu) fuzz::fail("forwarded IPv6 packet over the port's MTU", total, mtu);
  }
  // To a neighbour: the gateway's, a port route's fixed MAC, or one the slow path learnt (never
  // multicast, never zero: learning refuses those).
  static constexpr uint8_t kZero[6] = {};
  if ((p.data[0] & 1) || std::memcmp(p.data, kZero, 6) == 0) fuzz::fail("forwarded to a multicast or zero MAC");
}

nf::IpAddress address_at(const uint8_t* p, int family) {
  nf::IpAddress a{};
  a.family = uint8_t(family);
  std::memcpy(a.bytes, p, family == 4 ? 4 : 16);
  return a;
}

void check_sent(const std::pair<uint16_t, std::vector<uint8_t>>& out, const nf::L3FwdView& view,
                const nf::Router& router) {
  const auto& [port, f] = out;
  if (port >= 2) fuzz::fail("the slow path sent on a port that does not exist", port);
  if (f.size() < 60) fuzz::fail("the slow path sent a frame shorter than Ethernet's minimum", f.size());
  const uint16_t type = wire::load_be16(f.data() + 12);
  const uint8_t* ip = f.data() + 14;
  const uint32_t mtu = view.mtu[port];
  if (type == ctl::kEtherTypeArp) return;
  if (type == 0x0800) {
    const uint32_t ihl = (ip[0] & 0xfu) * 4, total = wire::load_be16(ip + 2);
    if (ihl < 20 || 14 + total > f.size()) fuzz::fail("slow path IPv4 frame shorter than its header says", total);
    if (!ipv4_header_ok(ip, ihl)) fuzz::fail("slow path IPv4 header checksum wrong");
    if (mtu && total > mtu) fuzz::fail("slow path IPv4 packet over the port's MTU", total, mtu);
    if (ip[9] == ctl::kIpProtoIcmp && router.is_local(address_at(ip + 12, 4))) {  // an ICMP message of its own
      if (ip[ihl] != 0 && total > 576) fuzz::fail("ICMP error longer than 576 bytes", total);
      if (wire::checksum_finish(wire::checksum_add(0, ip + ihl, total - ihl)) != 0) fuzz::fail("ICMP checksum wrong");
    }
    return;
  }
  if (type == 0x86dd) {
    const uint32_t total = 40u + wire::load_be16(ip + 4);
    if (14 + total > f.size()) fuzz::fail("slow path IPv6 frame shorter than its header says", total);
    if (mtu && total > mtu) fuzz::fail("slow path IPv6 packet over the port's MTU", total, mtu);
    const nf::IpAddress src = address_at(ip + 8, 6);
    const bool own = router.is_local(src) || src == ctl::link_local_address(port_mac(port));
    if (ip[6] == ctl::kIpProtoIcmpv6 && own) {
      if (total > 1280) fuzz::fail("ICMPv6 message longer than 1280 bytes", total);
      if (ctl::icmpv6_checksum(src, address_at(ip + 24, 6), ip + 40, total - 40) != 0)
        fuzz::fail("ICMPv6 checksum wrong");
    }
    return;
  }
  fuzz::fail("the slow path sent a frame of an unknown EtherType", type);
}

void check_delivered(const std::pair<uint16_t, std::vector<uint8_t>>& in, const nf::Router& router) {
  const auto& [port, f] = in;
  if (port >= 2) fuzz::fail("the kernel was handed a frame on a port that does not exist", port);
  const uint16_t type = wire::load_be16(f.data() + 12);
  const uint8_t* l3 = f.data() + 14;
  if (type == ctl::kEtherTypeArp) {
    if (wire::load_be16(l3 + 6) != 2 || !router.is_local(address_at(l3 + 24, 4)))
      fuzz::fail("the kernel was handed an ARP frame other than a reply to the router");
  } else if (type == 0x0800) {
    if (!router.is_local(address_at(l3 + 16, 4))) fuzz::fail("the kernel was handed IPv4 not to the router");
  } else if (type == 0x86dd) {
    const nf::IpAddress dst = address_at(l3 + 24, 6);
    const bool link_local = dst.bytes[0] == 0xfe && (dst.bytes[1] & 0xc0) == 0x80;
    if (!router.is_local(dst) && !link_local) fuzz::fail("the kernel was handed IPv6 not to the router");
  } else {
    fuzz::fail("the kernel was handed a frame of an unknown EtherType", type);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Router r;
  size_t at = 0;
  while (at + 3 <= size) {
    const uint16_t port = data[at] & 1;
    const size_t len = std::min<size_t>((data[at + 1] | data[at + 2] << 8) % 9100, size - at - 3);
    std::vector<uint8_t> frame(data + at + 3, data + at + 3 + len), before = frame;
    at += 3 + len;
    // The NIC's MAC drops runts (under 60 bytes without FCS) before any NF sees them.
    if (len < 60) continue;
    nf::PacketRef p{frame.data(), uint32_t(frame.size()), 0, port, port, nf::Verdict::Forward,
                    nf::HostReason::Unspecified};
    nf::PacketBatch batch{&p, 1};
    nf::NfCounters counters{};
    r.view.process(batch, counters);
    uint64_t moved = 0;
    for (int c = 0; c < nf::L3FwdView::kCounterCount; ++c) moved += counters.value[c];
    if (moved != 1) fuzz::fail("l3fwd moved other than one counter", moved);
    if (p.verdict == nf::Verdict::Forward) check_forwarded(before, p, r.view);
    if (p.verdict != nf::Verdict::ToHost) continue;
    if (p.reason == nf::HostReason::Unspecified) fuzz::fail("l3fwd sent a packet up without a reason");
    r.sent.clear();
    r.kernel.clear();
    r.now_ns += 1'000'000;  // a millisecond apart: the rate limiter lets some errors through
    try {
      r.slow->handle(port, std::vector<uint8_t>(p.data, p.data + p.len), r.now_ns, p.reason);
      if ((r.now_ns / 1'000'000) % 64 == 0) r.slow->tick(r.now_ns);
    } catch (const std::exception& e) {
      fuzz::fail("the slow path threw", fuzz::printable(e.what()));
    }
    for (const auto& out : r.sent) check_sent(out, r.view, *r.router);
    for (const auto& in : r.kernel) check_delivered(in, *r.router);
  }
  return 0;
}
