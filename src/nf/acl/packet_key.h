// A frame's 5-tuple for the ACL classifier (classifier.h), host and device code.
//
// Ethernet II, optionally behind one 802.1Q tag; then
//   - IPv4: version, IHL and total length checked; source, destination, protocol;
//   - IPv6: version and payload length checked; the extension headers (Hop-by-Hop, Routing,
//     Destination Options, Fragment, AH; at most 8) walked to the upper-layer protocol, which is
//     the key's protocol, as VPP's ACL plugin does (DPDK's l3fwd-acl reads the fixed header's next
//     header only, so its rules cannot see through extension headers).
// Ports are those of TCP, UDP, UDP-Lite, SCTP and DCCP; other protocols (ICMP among them), and
// fragments other than the first (which carry none), have ports 0. A frame too short for what its
// headers announce, a first fragment that does not hold its ports among them, is malformed.
#pragma once
#include <cstdint>

#include "nf/acl/classifier.h"
#include "nf/ethernet.h"
#include "util/hd.h"
#include "util/net_headers.h"
#include "wire/bytes.h"

namespace gnf::nf {

enum class AclFrame : uint8_t { Ipv4, Ipv6, NotIp, Malformed };

struct AclPacketKey {
  AclKey4 v4;
  AclKey6 v6;
};

namespace acl_detail {

GNF_INLINE bool has_ports(uint8_t proto) {
  constexpr uint8_t kDccp = 33, kSctp = 132, kUdpLite = 136;
  return proto == net::kIpProtoTcp || proto == net::kIpProtoUdp || proto == kDccp || proto == kSctp ||
         proto == kUdpLite;
}

// The ports at `l4` when `proto` has them and this is the first fragment; false when they are not
// within the `room` bytes there.
GNF_INLINE bool read_ports(const uint8_t* l4, uint32_t room, uint8_t proto, bool first_fragment, uint16_t& sport,
                           uint16_t& dport) {
  sport = dport = 0;
  if (!first_fragment || !has_ports(proto)) return true;
  if (room < 4) return false;
  sport = wire::load_be16(l4);
  dport = wire::load_be16(l4 + 2);
  return true;
}

GNF_INLINE AclU128 load_u128(const uint8_t* at) {
  return AclU128{uint64_t(wire::load_be32(at)) << 32 | wire::load_be32(at + 4),
                 uint64_t(wire::load_be32(at + 8)) << 32 | wire::load_be32(at + 12)};
}

GNF_INLINE AclFrame ipv4_key(const uint8_t* ip, uint32_t room, AclKey4& key) {
  if (room < net::kIpv4MinHeaderBytes) return AclFrame::Malformed;
  const uint32_t ihl = (ip[0] & 0xfu) * 4;
  const uint32_t total = wire::load_be16(ip + 2);
  if (ip[0] >> 4 != 4 || ihl < net::kIpv4MinHeaderBytes || total < ihl || total > room) return AclFrame::Malformed;
  key.src = wire::load_be32(ip + 12);
  key.dst = wire::load_be32(ip + 16);
  key.proto = ip[9];
  const bool first_fragment = (wire::load_be16(ip + 6) & net::kIpv4FragOffsetMask) == 0;
  return read_ports(ip + ihl, total - ihl, key.proto, first_fragment, key.sport, key.dport) ? AclFrame::Ipv4
                                                                                          : AclFrame::Malformed;
}

GNF_INLINE AclFrame ipv6_key(const uint8_t* ip, uint32_t room, AclKey6& key) {
  constexpr uint8_t kFragment = 44, kAuth = 51;
  constexpr int kMaxExtensionHeaders = 8;
  if (room < net::kIpv6HeaderBytes || ip[0] >> 4 != 6) return AclFrame::Malformed;
  const uint32_t end = net::kIpv6HeaderBytes + wire::load_be16(ip + 4);
  if (end > room) return AclFrame::Malformed;
  key.src = load_u128(ip + 8);
  key.dst = load_u128(ip + 24);
  uint8_t next = ip[6];
  uint32_t at = net::kIpv6HeaderBytes;
  bool first_fragment = true;
  for (int headers = 0;; ++headers) {
    const bool extension = next == net::kIpv6HopByHop || next == net::kIpv6Routing || next == net::kIpv6DestOptions ||
                           next == kFragment || next == kAuth;
    if (!extension) break;
    if (headers == kMaxExtensionHeaders || at + 8 > end) return AclFrame::Malformed;
    const uint32_t len = next == kFragment ? 8 : next == kAuth ? (ip[at + 1] + 2u) * 4 : (ip[at + 1] + 1u) * 8;
    if (at + len > end) return AclFrame::Malformed;
    if (next == kFragment) first_fragment = (wire::load_be16(ip + at + 2) >> 3) == 0;
    next = ip[at];
    at += len;
    if (!first_fragment) break;  // the headers behind this one are in the first fragment
  }
  key.proto = next;
  return read_ports(ip + at, end - at, next, first_fragment, key.sport, key.dport) ? AclFrame::Ipv6
                                                                                   : AclFrame::Malformed;
}

}  // namespace acl_detail

GNF_INLINE AclFrame acl_packet_key(const uint8_t* frame, uint32_t len, AclPacketKey& key) {
  uint16_t type;
  uint32_t at;
  if (!ethernet_payload(frame, len, type, at)) return AclFrame::Malformed;
  if (type == net::kEtherTypeIpv4) return acl_detail::ipv4_key(frame + at, len - at, key.v4);
  if (type == net::kEtherTypeIpv6) return acl_detail::ipv6_key(frame + at, len - at, key.v6);
  return AclFrame::NotIp;
}

}  // namespace gnf::nf
