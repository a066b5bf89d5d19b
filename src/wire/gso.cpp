#include "wire/gso.h"

#include <algorithm>
#include <cstring>

#include "wire/bytes.h"
#include "wire/checksum.h"
#include "wire/frame_size.h"

namespace gnf::wire {

namespace {

// linux/virtio_net.h, written out so that this file builds without the kernel's headers.
constexpr uint8_t kVnetNeedsCsum = 1;
constexpr uint8_t kVnetGsoNone = 0, kVnetGsoTcpV4 = 1, kVnetGsoTcpV6 = 4, kVnetGsoUdpL4 = 5, kVnetGsoEcn = 0x80;

constexpr uint16_t kEtherIpv4 = 0x0800, kEtherIpv6 = 0x86dd, kEtherVlan = 0x8100, kEtherQinQ = 0x88a8;
constexpr uint8_t kProtoTcp = 6, kProtoUdp = 17;
constexpr uint8_t kTcpFin = 0x01, kTcpPsh = 0x08, kTcpCwr = 0x80;

uint16_t load_host16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

// Where the headers of a super-frame are, once checked against the metadata and the frame.
struct Layout {
  uint32_t l3 = 0, l4 = 0, headers = 0;  // headers: up to the end of the TCP/UDP header
  uint32_t end = 0;                      // the end of the IP packet (what follows is padding)
  bool v6 = false;
  uint8_t proto = 0;
};

bool parse_layout(const uint8_t* f, uint32_t len, const VnetHeader& vnet, Layout& at) {
  at.l3 = 14;
  if (len < at.l3) return false;
  uint16_t type = load_be16(f + 12);
  if (type == kEtherVlan || type == kEtherQinQ) {
    at.l3 += 4;
    if (len < at.l3) return false;
    type = load_be16(f + at.l3 - 2);
  }
  at.proto = vnet.gso == VnetHeader::Gso::UdpL4 ? kProtoUdp : kProtoTcp;
  const uint8_t* ip = f + at.l3;
  if (type == kEtherIpv4 && vnet.gso != VnetHeader::Gso::TcpV6) {
    if (len < at.l3 + 20 || ip[0] >> 4 != 4) return false;
    uint32_t ihl = (ip[0] & 0x0f) * 4u;
    at.end = at.l3 + load_be16(ip + 2);
    at.l4 = at.l3 + ihl;
    if (ihl < 20 || ip[9] != at.proto) return false;
    if (vnet.needs_csum && vnet.csum_start != at.l4) return false;
  } else if (type == kEtherIpv6 && vnet.gso != VnetHeader::Gso::TcpV4) {
    if (len < at.l3 + 40 || ip[0] >> 4 != 6) return false;
    at.v6 = true;
    at.end = at.l3 + 40 + load_be16(ip + 4);
    // Extension headers only where the kernel says where they end.
    at.l4 = vnet.needs_csum ? vnet.csum_start : at.l3 + 40;
    if (at.l4 < at.l3 + 40 || (!vnet.needs_csum && ip[6] != at.proto)) return false;
  } else {
    return false;
  }
  if (at.end > len || at.l4 >= at.end) return false;
  uint32_t l4_header = 8;
  if (at.proto == kProtoTcp) {
    if (at.end - at.l4 < 20) return false;
    l4_header = (f[at.l4 + 12] >> 4) * 4u;
    if (l4_header < 20) return false;
  }
  at.headers = at.l4 + l4_header;
  return at.headers <= at.end;
}

// Fixes up one segment's headers (copied from the super-frame) for its `payload` bytes at
// `offset` of the super-frame's payload, then computes its checksums whole.
void finish_segment(uint8_t* s, const Layout& at, uint32_t seg_len, uint32_t index, uint32_t offset, bool last) {
  uint8_t* ip = s + at.l3;
  if (at.v6) {
    store_be16(ip + 4, uint16_t(seg_len - at.l3 - 40));
  } else {
    store_be16(ip + 2, uint16_t(seg_len - at.l3));
    store_be16(ip + 4, uint16_t(load_be16(ip + 4) + index));
    store_be16(ip + 10, 0);
    store_be16(ip + 10, checksum_finish(checksum_add(0, ip, at.l4 - at.l3)));
  }
  uint8_t* l4 = s + at.l4;
  uint32_t l4_len = seg_len - at.l4;
  uint32_t field;
  if (at.proto == kProtoTcp) {
    store_be32(l4 + 4, load_be32(l4 + 4) + offset);
    if (!last) l4[13] &= uint8_t(~(kTcpFin | kTcpPsh));
    if (index) l4[13] &= uint8_t(~kTcpCwr);
    field = 16;
  } else {
    store_be16(l4 + 4, uint16_t(l4_len));
    field = 6;
  }
  // RFC 9293 3.1, RFC 768, RFC 8200 8.1: source and destination addresses, protocol, length.
  uint64_t sum = at.v6 ? checksum_add(0, ip + 8, 32) : checksum_add(0, ip + 12, 8);
  sum += at.proto + l4_len;
  store_be16(l4 + field, 0);
  uint16_t checksum = checksum_finish(checksum_add(sum, l4, l4_len));
  if (at.proto == kProtoUdp && checksum == 0) checksum = 0xffff;
  store_be16(l4 + field, checksum);
}

}  // namespace

bool parse_vnet_header(const uint8_t* p, VnetHeader& out) {
  out = VnetHeader{};
  out.needs_csum = p[0] & kVnetNeedsCsum;
  switch (p[1] & ~kVnetGsoEcn) {
    case kVnetGsoNone: out.gso = VnetHeader::Gso::None; break;
    case kVnetGsoTcpV4: out.gso = VnetHeader::Gso::TcpV4; break;
    case kVnetGsoTcpV6: out.gso = VnetHeader::Gso::TcpV6; break;
    case kVnetGsoUdpL4: out.gso = VnetHeader::Gso::UdpL4; break;
    default: return false;
  }
  out.hdr_len = load_host16(p + 2);
  out.gso_size = load_host16(p + 4);
  out.csum_start = load_host16(p + 6);
  out.csum_offset = load_host16(p + 8);
  return true;
}

GsoResult gso_segment(const uint8_t* frame, uint32_t len, const VnetHeader& vnet, GsoSegments& out) {
  out.bytes.clear();
  out.frames.clear();
  Layout at;
  if (vnet.gso == VnetHeader::Gso::None || vnet.gso_size == 0 || !parse_layout(frame, len, vnet, at))
    return GsoResult::Malformed;
  uint32_t payload = at.end - at.headers;
  uint32_t count = std::max<uint32_t>(1, (payload + vnet.gso_size - 1) / vnet.gso_size);
  if (count > kMaxGsoSegments) return GsoResult::TooMany;
  // Each segment's room is at least the Ethernet minimum, zeroed: the caller pads in place.
  out.frames.reserve(count);
  size_t room = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t seg_len = at.headers + std::min<uint32_t>(vnet.gso_size, payload - std::min(payload, i * vnet.gso_size));
    out.frames.push_back({uint32_t(room), seg_len});
    room += std::max<uint32_t>(seg_len, kMinFrameBytes);
  }
  out.bytes.assign(room, 0);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* s = out.bytes.data() + out.frames[i].offset;
    uint32_t offset = i * vnet.gso_size;
    std::memcpy(s, frame, at.headers);
    std::memcpy(s + at.headers, frame + at.headers + offset, out.frames[i].len - at.headers);
    finish_segment(s, at, out.frames[i].len, i, offset, i + 1 == count);
  }
  return GsoResult::Ok;
}

}  // namespace gnf::wire
