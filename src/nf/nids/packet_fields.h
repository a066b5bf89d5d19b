// What a nids rule looks at in a frame (host and device code): addresses, protocol, ports, and the
// payload its contents are searched in.
//
// Ethernet II, optionally behind one 802.1Q tag; IPv4 (version, IHL and total length checked) or
// IPv6 (payload length checked; Hop-by-Hop, Routing, Destination Options, Fragment and AH headers
// walked, at most 8). The payload is what follows the TCP header (its data offset), the UDP or
// ICMP/ICMPv6 header (8 bytes), or the IP headers for other protocols, up to the IP length (an
// Ethernet pad is not payload). A fragment other than the first has no transport header: l4 is
// false, its payload the fragment's data, and only ip rules apply to it. A frame too short for the
// headers it announces is malformed.
#pragma once
#include <cstdint>

#include "nf/ethernet.h"
#include "util/hd.h"
#include "util/net_headers.h"
#include "wire/bytes.h"

namespace gnf::nf {

enum class NidsFrame : uint8_t { Ip, NotIp, Malformed };

struct NidsPacket {
  uint8_t family;  // 4 or 6
  uint8_t proto;   // the upper-layer protocol
  bool l4;         // the transport header was read (not a later fragment)
  uint16_t sport, dport;  // TCP and UDP; 0 otherwise
  uint8_t src[16], dst[16];  // network order; IPv4 in the first 4
  const uint8_t* payload;
  uint32_t payload_len;
};

inline constexpr uint8_t kNidsIcmp = 1, kNidsIcmpv6 = 58;

namespace nids_detail {

// The transport header at `l4` (`room` bytes up to the IP length's end) into `p`.
GNF_INLINE NidsFrame read_transport(const uint8_t* l4, uint32_t room, bool first_fragment, NidsPacket& p) {
  p.sport = p.dport = 0;
  p.l4 = first_fragment;
  uint32_t header = 0;
  if (first_fragment && p.proto == net::kIpProtoTcp) {
    if (room < 20 || (l4[12] >> 4) * 4u < 20 || (l4[12] >> 4) * 4u > room) return NidsFrame::Malformed;
    header = (l4[12] >> 4) * 4u;
  } else if (first_fragment && (p.proto == net::kIpProtoUdp || p.proto == kNidsIcmp || p.proto == kNidsIcmpv6)) {
    if (room < 8) return NidsFrame::Malformed;
    header = 8;
  }
  if (header && (p.proto == net::kIpProtoTcp || p.proto == net::kIpProtoUdp)) {
    p.sport = wire::load_be16(l4);
    p.dport = wire::load_be16(l4 + 2);
  }
  p.payload = l4 + header;
  p.payload_len = room - header;
  return NidsFrame::Ip;
}

GNF_INLINE NidsFrame read_ipv4(const uint8_t* ip, uint32_t room, NidsPacket& p) {
  if (room < net::kIpv4MinHeaderBytes) return NidsFrame::Malformed;
  const uint32_t ihl = (ip[0] & 0xfu) * 4, total = wire::load_be16(ip + 2);
  if (ip[0] >> 4 != 4 || ihl < net::kIpv4MinHeaderBytes || total < ihl || total > room) return NidsFrame::Malformed;
  p.family = 4;
  p.proto = ip[9];
  for (int i = 0; i < 16; ++i) {
    p.src[i] = i < 4 ? ip[12 + i] : 0;
    p.dst[i] = i < 4 ? ip[16 + i] : 0;
  }
  const bool first_fragment = (wire::load_be16(ip + 6) & net::kIpv4FragOffsetMask) == 0;
  return read_transport(ip + ihl, total - ihl, first_fragment, p);
}

GNF_INLINE NidsFrame read_ipv6(const uint8_t* ip, uint32_t room, NidsPacket& p) {
  constexpr uint8_t kFragmentHeader = 44, kAuthHeader = 51;
  if (room < net::kIpv6HeaderBytes || ip[0] >> 4 != 6) return NidsFrame::Malformed;
  const uint32_t end = net::kIpv6HeaderBytes + wire::load_be16(ip + 4);
  if (end > room) return NidsFrame::Malformed;
  p.family = 6;
  for (int i = 0; i < 16; ++i) {
    p.src[i] = ip[8 + i];
    p.dst[i] = ip[24 + i];
  }
  uint8_t next = ip[6];
  uint32_t at = net::kIpv6HeaderBytes;
  bool first_fragment = true;
  for (int walked = 0; first_fragment; ++walked) {
    const bool fragment = next == kFragmentHeader, auth = next == kAuthHeader;
    if (!fragment && !auth && next != net::kIpv6HopByHop && next != net::kIpv6Routing && next != net::kIpv6DestOptions)
      break;
    if (walked == 8 || end - at < 8) return NidsFrame::Malformed;
    const uint32_t size = fragment ? 8 : auth ? (ip[at + 1] + 2u) * 4 : (ip[at + 1] + 1u) * 8;
    if (end - at < size) return NidsFrame::Malformed;
    if (fragment) first_fragment = (wire::load_be16(ip + at + 2) >> 3) == 0;
    next = ip[at];
    at += size;
  }
  p.proto = next;
  return read_transport(ip + at, end - at, first_fragment, p);
}

}  // namespace nids_detail

GNF_INLINE NidsFrame nids_packet(const uint8_t* frame, uint32_t len, NidsPacket& p) {
  uint16_t type;
  uint32_t at;
  if (!ethernet_payload(frame, len, type, at)) return NidsFrame::Malformed;
  if (type == net::kEtherTypeIpv4) return nids_detail::read_ipv4(frame + at, len - at, p);
  if (type == net::kEtherTypeIpv6) return nids_detail::read_ipv6(frame + at, len - at, p);
  return NidsFrame::NotIp;
}

}  // namespace gnf::nf
