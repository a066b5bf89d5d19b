// Frames the NF tests build by hand (acl, nids): Ethernet II, then IPv4 with a transport header.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nf/l3fwd/ip_address.h"
#include "wire/bytes.h"

namespace gnf::test {

inline std::vector<uint8_t> ethernet(uint16_t type, size_t payload) {
  std::vector<uint8_t> f(14 + payload, 0);
  for (int i = 0; i < 6; ++i) f[i] = f[6 + i] = uint8_t(0x02 + i);
  wire::store_be16(&f[12], type);
  return f;
}

// IPv4 with `transport_bytes` of a transport header (its ports set; a TCP header of 20 bytes or
// more gets its data offset) and `payload` after it.
inline std::vector<uint8_t> ipv4_frame(const char* src, const char* dst, uint8_t proto, uint16_t sport, uint16_t dport,
                                       uint16_t fragment_offset = 0, uint32_t transport_bytes = 8,
                                       const std::string& payload = "") {
  const uint32_t ip_bytes = 20 + transport_bytes + uint32_t(payload.size());
  std::vector<uint8_t> f = ethernet(0x0800, ip_bytes);
  uint8_t* ip = &f[14];
  ip[0] = 0x45;
  wire::store_be16(ip + 2, uint16_t(ip_bytes));
  wire::store_be16(ip + 6, fragment_offset);
  ip[8] = 64;
  ip[9] = proto;
  wire::store_be32(ip + 12, nf::parse_ip_address(src)->ipv4());
  wire::store_be32(ip + 16, nf::parse_ip_address(dst)->ipv4());
  wire::store_be16(ip + 20, sport);
  wire::store_be16(ip + 22, dport);
  if (proto == 6 && transport_bytes >= 20) ip[32] = uint8_t(transport_bytes / 4 << 4);
  std::copy(payload.begin(), payload.end(), f.begin() + 14 + 20 + transport_bytes);
  return f;
}

}  // namespace gnf::test
