#include "ctl/frames.h"

#include <cstring>

#include "wire/bytes.h"
#include "wire/checksum.h"

namespace gnf::ctl {

using wire::store_be16;

namespace {

void put_ethernet(std::vector<uint8_t>& f, const Mac& dst, const Mac& src, uint16_t type) {
  std::memcpy(&f[0], dst.data(), 6);
  std::memcpy(&f[6], src.data(), 6);
  store_be16(&f[12], type);
}

}  // namespace

std::vector<uint8_t> arp_frame(uint16_t op, const Mac& eth_dst, const Mac& sender_mac, const nf::IpAddress& sender_ip,
                               const Mac& target_mac, const nf::IpAddress& target_ip) {
  std::vector<uint8_t> f(60, 0);  // padded to the Ethernet minimum
  put_ethernet(f, eth_dst, sender_mac, kEtherTypeArp);
  uint8_t* a = &f[14];
  store_be16(a + 0, 1);       // hardware: Ethernet
  store_be16(a + 2, 0x0800);  // protocol: IPv4
  a[4] = 6;
  a[5] = 4;
  store_be16(a + 6, op);
  std::memcpy(a + 8, sender_mac.data(), 6);
  std::memcpy(a + 14, sender_ip.bytes, 4);
  std::memcpy(a + 18, target_mac.data(), 6);
  std::memcpy(a + 24, target_ip.bytes, 4);
  return f;
}

std::vector<uint8_t> icmpv4_frame(const Mac& eth_dst, const Mac& eth_src, const nf::IpAddress& src,
                                  const nf::IpAddress& dst, std::vector<uint8_t> icmp) {
  icmp[2] = icmp[3] = 0;
  store_be16(&icmp[2], wire::checksum_finish(wire::checksum_add(0, icmp.data(), icmp.size())));
  std::vector<uint8_t> f(14 + 20 + icmp.size(), 0);
  put_ethernet(f, eth_dst, eth_src, 0x0800);
  uint8_t* ip = &f[14];
  ip[0] = 0x45;
  store_be16(ip + 2, uint16_t(20 + icmp.size()));
  ip[8] = 64;
  ip[9] = kIpProtoIcmp;
  std::memcpy(ip + 12, src.bytes, 4);
  std::memcpy(ip + 16, dst.bytes, 4);
  store_be16(ip + 10, wire::checksum_finish(wire::checksum_add(0, ip, 20)));
  std::memcpy(ip + 20, icmp.data(), icmp.size());
  if (f.size() < 60) f.resize(60, 0);
  return f;
}

uint16_t icmpv6_checksum(const nf::IpAddress& src, const nf::IpAddress& dst, const uint8_t* icmp, uint32_t len) {
  uint8_t pseudo[40] = {};
  std::memcpy(pseudo, src.bytes, 16);
  std::memcpy(pseudo + 16, dst.bytes, 16);
  wire::store_be32(pseudo + 32, len);
  pseudo[39] = kIpProtoIcmpv6;
  return wire::checksum_finish(wire::checksum_add(wire::checksum_add(0, pseudo, 40), icmp, len));
}

std::vector<uint8_t> icmpv6_frame(const Mac& eth_dst, const Mac& eth_src, const nf::IpAddress& src,
                                  const nf::IpAddress& dst, std::vector<uint8_t> icmp, uint8_t hop_limit) {
  icmp[2] = icmp[3] = 0;
  store_be16(&icmp[2], icmpv6_checksum(src, dst, icmp.data(), uint32_t(icmp.size())));
  std::vector<uint8_t> f(14 + 40 + icmp.size(), 0);
  put_ethernet(f, eth_dst, eth_src, 0x86dd);
  uint8_t* ip = &f[14];
  ip[0] = 0x60;
  store_be16(ip + 4, uint16_t(icmp.size()));
  ip[6] = kIpProtoIcmpv6;
  ip[7] = hop_limit;
  std::memcpy(ip + 8, src.bytes, 16);
  std::memcpy(ip + 24, dst.bytes, 16);
  std::memcpy(ip + 40, icmp.data(), icmp.size());
  return f;
}

nf::IpAddress link_local_address(const Mac& mac) {
  nf::IpAddress a;
  a.family = 6;
  a.bytes[0] = 0xfe;
  a.bytes[1] = 0x80;
  a.bytes[8] = mac[0] ^ 0x02;  // the universal/local bit, inverted
  a.bytes[9] = mac[1];
  a.bytes[10] = mac[2];
  a.bytes[11] = 0xff;
  a.bytes[12] = 0xfe;
  a.bytes[13] = mac[3];
  a.bytes[14] = mac[4];
  a.bytes[15] = mac[5];
  return a;
}

nf::IpAddress solicited_node(const nf::IpAddress& address) {
  nf::IpAddress g;
  g.family = 6;
  g.bytes[0] = 0xff;
  g.bytes[1] = 0x02;
  g.bytes[11] = 0x01;
  g.bytes[12] = 0xff;
  std::memcpy(&g.bytes[13], &address.bytes[13], 3);
  return g;
}

Mac ipv6_multicast_mac(const nf::IpAddress& group) {
  return {0x33, 0x33, group.bytes[12], group.bytes[13], group.bytes[14], group.bytes[15]};
}

}  // namespace gnf::ctl
