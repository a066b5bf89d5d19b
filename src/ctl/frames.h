// Frames the slow path builds: ARP, ICMP and ICMPv6 (echo replies, errors, neighbour discovery),
// each with its checksums right. Bytes in network order; no FCS.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "nf/l3fwd/ip_address.h"

namespace gnf::ctl {

using Mac = std::array<uint8_t, 6>;

inline constexpr uint16_t kEtherTypeArp = 0x0806;
inline constexpr uint8_t kIpProtoIcmp = 1, kIpProtoIcmpv6 = 58;

// ARP (RFC 826) for IPv4 over Ethernet: op 1 request, 2 reply.
std::vector<uint8_t> arp_frame(uint16_t op, const Mac& eth_dst, const Mac& sender_mac, const nf::IpAddress& sender_ip,
                               const Mac& target_mac, const nf::IpAddress& target_ip);

// IPv4 with TTL 64 and no options around `payload` (an ICMP message whose checksum is filled in here).
std::vector<uint8_t> icmpv4_frame(const Mac& eth_dst, const Mac& eth_src, const nf::IpAddress& src,
                                  const nf::IpAddress& dst, std::vector<uint8_t> icmp);

// IPv6 with `hop_limit` around an ICMPv6 message (checksum over the pseudo-header filled in here).
std::vector<uint8_t> icmpv6_frame(const Mac& eth_dst, const Mac& eth_src, const nf::IpAddress& src,
                                  const nf::IpAddress& dst, std::vector<uint8_t> icmp, uint8_t hop_limit = 64);

// The ICMPv6 checksum over the pseudo-header and `len` bytes of message (RFC 4443 2.3): 0 for a
// message whose checksum field is right, the field's value for one whose field is 0.
uint16_t icmpv6_checksum(const nf::IpAddress& src, const nf::IpAddress& dst, const uint8_t* icmp, uint32_t len);

// fe80::/64 with the modified EUI-64 interface identifier of `mac` (RFC 4291 appendix A).
nf::IpAddress link_local_address(const Mac& mac);
// ff02::1:ffXX:XXXX, the solicited-node multicast group of `address` (RFC 4291 2.7.1), and its MAC.
nf::IpAddress solicited_node(const nf::IpAddress& address);
Mac ipv6_multicast_mac(const nf::IpAddress& group);

}  // namespace gnf::ctl
