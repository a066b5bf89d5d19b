#include "wire/stamp.h"
#include "util/net_headers.h"

namespace gnf::wire {

namespace {


// Offset and end (exclusive) of the UDP datagram inside an IPv4 packet at frame[off, len),
// judged only by headers that fit; false if there is no whole UDP datagram to look into.
bool find_udp_ipv4(const uint8_t* frame, uint32_t len, uint32_t off, uint32_t& udp, uint32_t& end) {
  if (len - off < 20) return false;
  const uint8_t* ip = frame + off;
  uint32_t ihl = (ip[0] & 0x0f) * 4u;
  uint32_t total = load_be16(ip + 2);
  // A later fragment carries the middle of a datagram, where a stamp-like pattern means nothing.
  bool later_fragment = (load_be16(ip + 6) & 0x1fff) != 0;
  if (ip[0] >> 4 != 4 || ihl < 20 || total < ihl || total > len - off) return false;
  if (ip[9] != net::kIpProtoUdp || later_fragment) return false;
  udp = off + ihl;
  end = off + total;
  return true;
}

bool find_udp_ipv6(const uint8_t* frame, uint32_t len, uint32_t off, uint32_t& udp, uint32_t& end) {
  if (len - off < 40) return false;
  const uint8_t* ip = frame + off;
  uint32_t payload = load_be16(ip + 4);
  if (ip[0] >> 4 != 6 || ip[6] != net::kIpProtoUdp || payload > len - off - 40) return false;
  udp = off + 40;
  end = udp + payload;
  return true;
}

}  // namespace

std::optional<Stamp> decode_stamp(const uint8_t* frame, uint32_t len) {
  uint32_t off = 14;
  if (len < off) return std::nullopt;
  uint16_t type = load_be16(frame + 12);
  if (type == net::kEtherTypeVlan) {
    off += 4;
    if (len < off) return std::nullopt;
    type = load_be16(frame + 16);
  }
  uint32_t udp = 0, end = 0;
  bool found = type == net::kEtherTypeIpv4   ? find_udp_ipv4(frame, len, off, udp, end)
               : type == net::kEtherTypeIpv6 ? find_udp_ipv6(frame, len, off, udp, end)
                                        : false;
  if (!found || end - udp < net::kUdpHeaderBytes + kStampBytes) return std::nullopt;
  uint32_t udp_len = load_be16(frame + udp + 4);
  if (udp_len < net::kUdpHeaderBytes + kStampBytes || udp_len > end - udp) return std::nullopt;
  const uint8_t* p = frame + udp + net::kUdpHeaderBytes;
  if (load_le16(p + 16) != kStampMagic) return std::nullopt;
  return Stamp{load_le64(p), load_le64(p + 8)};
}

}  // namespace gnf::wire
