// l3fwd: an IPv4/IPv6 router's forwarding step, as one NF element for CPU and GPU alike.
//
// Per packet (RFC 1812 for IPv4, RFC 8200 / RFC 4861 for IPv6):
//   - Ethernet: to the input port's MAC (else dropped: another host's frame), or broadcast/multicast
//     and ARP (to the host's slow path); other EtherTypes, 802.1Q tags included, are dropped.
//   - IPv4: version, IHL, total length and header checksum checked (each failure dropped under its
//     own counter); options a router acts on go to the host, as do packets for the router's
//     addresses, broadcast and multicast; martian addresses are dropped. TTL <= 1 goes to the host
//     (it sends ICMP time exceeded). Fragments are forwarded as any packet: a router does not reassemble.
//   - IPv6: version and payload length checked; the extension header chain is walked (bounded) so a
//     truncated one is dropped (a truncated Hop-by-Hop header in transit goes to the host, which
//     answers it), and Hop-by-Hop options a router acts on go to the host; multicast and link-local
//     destinations go to the host; hop limit <= 1 goes to the host.
//   - Longest-prefix match on the destination gives a next hop (next_hop.h); its MAC comes from the
//     neighbour table (or the route itself for DPDK-style port routes); unresolved next hops and
//     destinations without a route go to the host, which answers with ARP/ND or ICMP.
//   - Forwarding: TTL / hop limit minus one, the IPv4 checksum updated incrementally (RFC 1624), the
//     Ethernet source set to the output port's MAC and the destination to the next hop's.
//
// Header reads are byte loads (wire/bytes.h): correct at any alignment, which matters because the
// IP header starts 14 bytes into the frame, so 2 bytes off a 4-byte boundary. On the GPU each byte
// load is one instruction, but the 20-40 header bytes lie in one or two 32-byte sectors, so the
// memory traffic is that of aligned word loads; only the instruction count is higher.
//
// Parameters (config table [[nf]] with type = "l3fwd"):
//   routes         = "file"  route file (ctl/route_file.h): DPDK l3fwd "R<prefix>/<len> <port>" lines
//                            and "prefix gateway" lines; relative to the config file's folder
//   neighbours     = "file"  static neighbours: "address mac" lines
//   check_dst_mac  = true    drop unicast frames not addressed to the input port's MAC
//   lpm4_groups    = 65536   IPv4 tbl8 groups (/24s holding routes longer than /24), 1 KiB each
//   lpm6_groups    = 65536   IPv6 stride groups, 1 KiB each
//   next_hops      = 65536   distinct next hops (32 B each)
// The ports' own addresses come from the [[port]] tables (ipv4 = "10.0.1.1/24", ipv6 = "...").
#pragma once
#include <cstdint>
#include <memory>

#include "nf/context.h"
#include "nf/l3fwd/lpm4.h"
#include "nf/l3fwd/lpm6.h"
#include "nf/l3fwd/martian_sources.h"
#include "nf/l3fwd/neighbour.h"
#include "nf/l3fwd/next_hop.h"
#include "nf/packet.h"
#include "nf/params.h"
#include "util/hd.h"
#include "util/net_headers.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

namespace gnf::nf {

// The tables a lookup reads, in host or GPU memory (router.h makes both).
struct L3FwdTables {
  Lpm4View lpm4;
  Lpm6View lpm6;
  NextHopView next_hops;
  NeighbourView neighbours;
  const uint32_t* martian_sources;  // martian_sources.h: the router's addresses and its networks' broadcasts
};

struct L3FwdView {
  enum Counter {
    kForwardedIpv4,
    kForwardedIpv6,
    kToHostLocal,        // for the router: its addresses, broadcast, multicast, ARP
    kToHostTtl,          // TTL / hop limit would expire
    kToHostNoRoute,
    kToHostNoNeighbour,  // next hop not resolved (yet)
    kToHostOptions,      // IPv4 options or IPv6 Hop-by-Hop options a router must look at (router alert,
                         // record route, timestamp, source routes, ones it does not know that say
                         // "discard"), or malformed ones
    kToHostTooBig,       // larger than the output port's MTU (RFC 1812 5.2.6-7, RFC 4443 3.2)
    kDropNotIp,
    kDropOtherHost,      // unicast to another MAC
    kDropBadHeader,      // too short, wrong version, IHL < 5
    kDropBadLength,      // total / payload length beyond the frame, or below the header
    kDropBadChecksum,
    kDropMartian,        // addresses no router may forward (RFC 1812 5.3.7, RFC 4291)
    kDropBadExtHeader,   // IPv6 extension header chain truncated or too long, or options padded
                         // beyond what alignment needs (options_stop)
    kDropBlackhole,
    kCounterCount
  };
  static constexpr const char* kCounterNames[kCounterCount] = {
      "forwarded_ipv4", "forwarded_ipv6", "to_host_local",      "to_host_ttl",     "to_host_no_route",
      "to_host_no_neighbour", "to_host_options", "to_host_too_big", "drop_not_ip", "drop_other_host", "drop_bad_header",
      "drop_bad_length", "drop_bad_checksum", "drop_martian", "drop_bad_ext_header", "drop_blackhole"};

  L3FwdTables tables;
  uint8_t port_mac[kMaxPorts][6];
  uint16_t mtu[kMaxPorts];  // per output port (NfContext::port_mtu); 0: no limit
  uint16_t ports;
  bool check_dst_mac;
  // Router alerts (RFC 2113, RFC 2711), record route and timestamp options go to the host unless
  // this is set: the slow path's own copy of the view sets it once it has acted on them (filled in
  // record route and timestamp; nothing on the host wants a router alert, RFC 6398 3).
  bool options_acted_on;

  GNF_HD void process(PacketBatch& batch, NfCounters& counters) const {
    for (uint32_t i = 0; i < batch.count; ++i) {
      PacketRef& p = batch.packets[i];
      if (p.verdict != Verdict::Forward) continue;
      const Counter c = route(p);
      ++counters.value[c];
      if (c == kForwardedIpv4 || c == kForwardedIpv6) continue;
      p.verdict = c >= kDropNotIp ? Verdict::Drop : Verdict::ToHost;
      if (p.verdict == Verdict::ToHost) p.reason = reason_of(c);
    }
  }

  // The slow path's cue for each to_host counter.
  GNF_HD static HostReason reason_of(Counter c) {
    switch (c) {
      case kToHostLocal: return HostReason::Local;
      case kToHostTtl: return HostReason::TtlExpired;
      case kToHostNoRoute: return HostReason::NoRoute;
      case kToHostNoNeighbour: return HostReason::NoNeighbour;
      case kToHostOptions: return HostReason::Options;
      case kToHostTooBig: return HostReason::TooBig;
      default: return HostReason::Unspecified;
    }
  }

  static constexpr uint8_t kIpv4OptionEnd = 0, kIpv4OptionNop = 1, kIpv4OptionRecordRoute = 7,
                           kIpv4OptionTimestamp = 68, kIpv4OptionLsrr = 131, kIpv4OptionSsrr = 137,
                           kIpv4OptionRouterAlert = 148, kHopByHopRouterAlert = 5;

  // The offset of the first IPv4 option (RFC 791) a router does not forward as it is, or `len` if
  // there is none: a source route (RFC 7126 4.3: dropped or handled, never passed blindly), a
  // malformed option, and unless `options_acted_on` a router alert (RFC 2113), a timestamp (stamped
  // or its overflow counted, RFC 791) or a record route with room left (a full one, its pointer past
  // its length, travels on as it is).
  GNF_HD static uint32_t ipv4_option_stop(const uint8_t* o, uint32_t len, bool options_acted_on) {
    for (uint32_t i = 0; i < len;) {
      const uint8_t type = o[i];
      if (type == kIpv4OptionEnd) return len;
      if (type == kIpv4OptionNop) {
        ++i;
        continue;
      }
      if (i + 1 >= len || o[i + 1] < 2 || i + o[i + 1] > len) return i;
      if (type == kIpv4OptionLsrr || type == kIpv4OptionSsrr) return i;
      const bool full_record_route = type == kIpv4OptionRecordRoute && o[i + 1] >= 3 && o[i + 2] > o[i + 1];
      const bool for_the_host = type == kIpv4OptionRouterAlert || type == kIpv4OptionTimestamp ||
                                (type == kIpv4OptionRecordRoute && !full_record_route);
      if (for_the_host && !options_acted_on) return i;
      i += o[i + 1];
    }
    return len;
  }

  // Options (Hop-by-Hop and Destination Options, RFC 8200 4.2) hold at most 7 bytes of padding in a
  // row, and PadN's bytes are zeros: padding only aligns the next option, so more of it is a covert
  // channel or a way round a filter (RFC 4942 2.1.9.5). Linux drops a packet whose options break
  // either rule (ip6_parse_tlv), and so does l3fwd, under drop_bad_ext_header.
  static constexpr uint32_t kMaxPaddingRun = 7;
  static constexpr uint32_t kBadPadding = 0xffffffffu;

  // The offset of the first option in `o` (the `len` bytes behind an options header's next header
  // and length bytes) that does not let the packet pass, `len` if there is none, or kBadPadding.
  // An option does not let it pass if it is malformed, unknown with a type that does not say "skip"
  // (the two high bits not 00), or unless `options_acted_on` a router alert (RFC 2711). The options
  // are read in order, as Linux reads them: the walk ends at a malformed or an unknown option, as
  // Linux's does, and goes on past a router alert, so that padding behind one is checked too.
  GNF_HD static uint32_t options_stop(const uint8_t* o, uint32_t len, bool options_acted_on) {
    constexpr uint8_t kPad1 = 0, kPadN = 1;
    uint32_t stop = len, padding = 0;
    for (uint32_t i = 0; i < len;) {
      const uint8_t type = o[i];
      if (type == kPad1) {
        if (++padding > kMaxPaddingRun) return kBadPadding;
        ++i;
        continue;
      }
      if (i + 1 >= len || i + 2 + o[i + 1] > len) return stop < i ? stop : i;
      const uint32_t size = 2u + o[i + 1];
      if (type == kPadN) {
        padding += size;
        if (padding > kMaxPaddingRun) return kBadPadding;
        for (uint32_t b = 2; b < size; ++b)
          if (o[i + b] != 0) return kBadPadding;
      } else {
        padding = 0;
        if ((type >> 6) != 0) return stop < i ? stop : i;
        if (type == kHopByHopRouterAlert && !options_acted_on && stop == len) stop = i;
      }
      i += size;
    }
    return stop;
  }

 private:
  GNF_HD Counter route(PacketRef& p) const {
    if (p.len < net::kEthHeaderBytes || p.in_port >= ports) return kDropBadHeader;
    const uint8_t* eth = p.data;
    const uint16_t type = wire::load_be16(eth + 12);
    if (eth[0] & 1) return type == net::kEtherTypeIpv4 || type == net::kEtherTypeIpv6 || type == kEtherTypeArp
                               ? kToHostLocal
                               : kDropNotIp;
    if (check_dst_mac && !same_mac(eth, port_mac[p.in_port])) return kDropOtherHost;
    if (type == net::kEtherTypeIpv4) return route_ipv4(p);
    if (type == net::kEtherTypeIpv6) return route_ipv6(p);
    return type == kEtherTypeArp ? kToHostLocal : kDropNotIp;
  }

  GNF_HD Counter route_ipv4(PacketRef& p) const {
    if (p.len < net::kEthHeaderBytes + net::kIpv4MinHeaderBytes) return kDropBadHeader;
    uint8_t* ip = p.data + net::kEthHeaderBytes;
    const uint32_t ihl = (ip[0] & 0xfu) * 4;
    if (ip[0] >> 4 != 4 || ihl < net::kIpv4MinHeaderBytes) return kDropBadHeader;
    const uint32_t total = wire::load_be16(ip + 2);
    if (total < ihl || net::kEthHeaderBytes + total > p.len) return kDropBadLength;
    if (wire::checksum_finish(wire::checksum_add(0, ip, ihl)) != 0) return kDropBadChecksum;
    const uint32_t src = wire::load_be32(ip + 12), dst = wire::load_be32(ip + 16);
    if (martian_ipv4_source(src) || martian_ipv4_destination(dst) || martian_source_listed(tables.martian_sources, src))
      return kDropMartian;
    if (dst == 0xffffffffu || (dst >> 28) == 0xe) return kToHostLocal;  // broadcast, multicast
    uint32_t index;
    if (!lpm4_lookup(tables.lpm4, dst, index)) return kToHostNoRoute;
    NextHop hop;
    if (!next_hop_at(tables.next_hops, index, hop)) return kToHostNoRoute;
    if (hop.kind == NextHopKind::Local) return kToHostLocal;
    if (hop.kind == NextHopKind::Blackhole) return kDropBlackhole;
    // After the local check: options or an expiring TTL on a packet for the router are its business.
    // Other options travel on (RFC 1812 5.3.1: a router forwards them).
    const uint32_t options = ihl - net::kIpv4MinHeaderBytes;
    if (options != 0 && ipv4_option_stop(ip + net::kIpv4MinHeaderBytes, options, options_acted_on) != options)
      return kToHostOptions;
    if (ip[8] <= 1) return kToHostTtl;
    if (too_big(hop.port, total)) return kToHostTooBig;
    uint8_t mac[6];
    if (!resolve(hop, 4, ip + 16, mac)) return kToHostNoNeighbour;
    const uint16_t old_word = wire::load_be16(ip + 8);  // TTL, protocol
    ip[8] -= 1;
    wire::store_be16(ip + 10, wire::checksum_replace16(wire::load_be16(ip + 10), old_word, wire::load_be16(ip + 8)));
    rewrite_ethernet(p, hop.port, mac);
    return kForwardedIpv4;
  }

  GNF_HD Counter route_ipv6(PacketRef& p) const {
    if (p.len < net::kEthHeaderBytes + net::kIpv6HeaderBytes) return kDropBadHeader;
    uint8_t* ip = p.data + net::kEthHeaderBytes;
    if (ip[0] >> 4 != 6) return kDropBadHeader;
    const uint32_t end = net::kIpv6HeaderBytes + wire::load_be16(ip + 4);
    if (net::kEthHeaderBytes + end > p.len) return kDropBadLength;
    const uint8_t* src = ip + 8;
    const uint8_t* dst = ip + 24;
    if (src[0] == 0xff || loopback_or_unspecified_ipv6(src) || loopback_or_unspecified_ipv6(dst)) return kDropMartian;
    if (dst[0] == 0xff || (dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80)) return kToHostLocal;  // multicast, link-local
    if (src[0] == 0xfe && (src[1] & 0xc0) == 0x80) return kDropMartian;  // link-local source: never forwarded
    uint32_t index;
    if (!lpm6_lookup(tables.lpm6, dst, index)) return kToHostNoRoute;
    NextHop hop;
    if (!next_hop_at(tables.next_hops, index, hop)) return kToHostNoRoute;
    const bool local = hop.kind == NextHopKind::Local;
    const Counter chain = check_extension_headers(ip, end, options_acted_on, !local);
    if (local) return chain == kDropBadExtHeader ? chain : kToHostLocal;
    if (hop.kind == NextHopKind::Blackhole) return kDropBlackhole;
    if (chain != kForwardedIpv6) return chain;
    if (ip[7] <= 1) return kToHostTtl;
    if (too_big(hop.port, end)) return kToHostTooBig;
    uint8_t mac[6];
    if (!resolve(hop, 6, dst, mac)) return kToHostNoNeighbour;
    ip[7] -= 1;
    rewrite_ethernet(p, hop.port, mac);
    return kForwardedIpv6;
  }

  GNF_HD bool too_big(uint16_t port, uint32_t ip_bytes) const { return port < kMaxPorts && mtu[port] && ip_bytes > mtu[port]; }

  // Walks the extension headers within the payload: kToHostOptions for Hop-by-Hop options the
  // router must look at, kDropBadExtHeader for a header that runs past the payload, a chain longer
  // than 8, or options padded beyond Linux's limit (options_stop: Hop-by-Hop options always,
  // Destination Options in a packet for the router, the only node that reads them), else
  // kForwardedIpv6. A Hop-by-Hop header that runs past the payload of a packet `in_transit` goes to
  // the host too, which answers it with parameter problem (RFC 8200 4.3, RFC 4443 3.4).
  GNF_HD static Counter check_extension_headers(const uint8_t* ip, uint32_t end, bool options_acted_on,
                                                bool in_transit) {
    uint8_t next = ip[6];
    uint32_t at = net::kIpv6HeaderBytes;
    for (int headers = 0;; ++headers) {
      const bool extension = next == net::kIpv6HopByHop || next == net::kIpv6Routing || next == kIpv6Fragment ||
                             next == net::kIpv6DestOptions || next == kIpv6Auth || next == kIpv6Mobility ||
                             next == kIpv6Hip || next == kIpv6Shim6;
      if (!extension) return kForwardedIpv6;
      if (next == net::kIpv6HopByHop && headers != 0) return kDropBadExtHeader;
      const Counter cut = next == net::kIpv6HopByHop && in_transit ? kToHostOptions : kDropBadExtHeader;
      if (headers == 8) return kDropBadExtHeader;
      if (at + 8 > end) return cut;
      const uint32_t len = next == kIpv6Fragment ? 8 : next == kIpv6Auth ? (ip[at + 1] + 2u) * 4 : (ip[at + 1] + 1u) * 8;
      if (at + len > end) return cut;
      const bool options_read = next == net::kIpv6HopByHop || (next == net::kIpv6DestOptions && !in_transit);
      if (options_read) {
        const uint32_t stop = options_stop(ip + at + 2, len - 2, options_acted_on);
        if (stop == kBadPadding) return kDropBadExtHeader;
        // Hop-by-Hop travels on (RFC 8200 4.3) unless an option in it is for the router.
        if (next == net::kIpv6HopByHop && stop != len - 2) return kToHostOptions;
      }
      if (next == kIpv6Fragment) return kForwardedIpv6;  // the rest may be in other fragments
      next = ip[at];
      at += len;
    }
  }

  GNF_HD bool resolve(const NextHop& hop, uint8_t family, const uint8_t* destination, uint8_t mac[6]) const {
    if (hop.port >= ports) return false;
    switch (hop.kind) {
      case NextHopKind::Port:
        for (int b = 0; b < 6; ++b) mac[b] = hop.mac[b];
        return true;
      case NextHopKind::Gateway:
        return neighbour_lookup(tables.neighbours, hop.port, hop.family, hop.gateway, mac);
      case NextHopKind::Connected:
        return neighbour_lookup(tables.neighbours, hop.port, family, destination, mac);
      default:
        return false;
    }
  }

  GNF_HD void rewrite_ethernet(PacketRef& p, uint16_t port, const uint8_t mac[6]) const {
    for (int b = 0; b < 6; ++b) {
      p.data[b] = mac[b];
      p.data[6 + b] = port_mac[port][b];
    }
    p.out_port = port;
  }

  GNF_HD static bool same_mac(const uint8_t* a, const uint8_t* b) {
    bool same = true;
    for (int i = 0; i < 6; ++i) same &= a[i] == b[i];
    return same;
  }
  // 0/8 ("this network"), 127/8, multicast, class E and broadcast: never a packet's source.
  GNF_HD static bool martian_ipv4_source(uint32_t a) {
    return (a >> 24) == 0 || (a >> 24) == 127 || (a >> 28) >= 0xe;
  }
  // 0/8, 127/8 and class E (240/4 except the broadcast address) are no destination.
  GNF_HD static bool martian_ipv4_destination(uint32_t a) {
    return (a >> 24) == 0 || (a >> 24) == 127 || ((a >> 28) == 0xf && a != 0xffffffffu);
  }
  GNF_HD static bool loopback_or_unspecified_ipv6(const uint8_t* a) {
    for (int i = 0; i < 15; ++i)
      if (a[i]) return false;
    return a[15] <= 1;
  }

  static constexpr uint16_t kEtherTypeArp = 0x0806;
  static constexpr uint8_t kIpv6Fragment = 44, kIpv6Auth = 51, kIpv6Mobility = 135, kIpv6Hip = 139,
                           kIpv6Shim6 = 140;
};

class Router;
// Validates the parameters, builds the router's tables (the ports' addresses, the neighbour and
// route files) and the view over their host copies. Throws gnf::UserError naming file, line and key.
std::unique_ptr<Router> configure_l3fwd(const Params& params, const NfContext& context, L3FwdView& view);

}  // namespace gnf::nf
