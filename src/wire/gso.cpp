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
constexpr uint8_t kTcpFin = 0x01, kTcpPsh = 0x08, kTcpAck = 0x10, kTcpCwr = 0x80;

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

// The sum over the pseudo-header of `at.proto`'s segment `l4_len` long (RFC 9293 3.1, RFC 768,
// RFC 8200 8.1: source and destination addresses, protocol, length).
uint64_t pseudo_header_sum(const uint8_t* f, const Layout& at, uint32_t l4_len) {
  const uint8_t* ip = f + at.l3;
  uint64_t sum = at.v6 ? checksum_add(0, ip + 8, 32) : checksum_add(0, ip + 12, 8);
  return sum + at.proto + l4_len;
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
  store_be16(l4 + field, 0);
  uint16_t checksum = checksum_finish(checksum_add(pseudo_header_sum(s, at, l4_len), l4, l4_len));
  if (at.proto == kProtoUdp && checksum == 0) checksum = 0xffff;
  store_be16(l4 + field, checksum);
}

void store_host16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }

// A segment a super-frame may be built of: TCP over IPv4 (no fragment) or IPv6 (no extension
// headers), a payload, nothing after the IP packet, only ACK and maybe PSH set.
bool tcp_segment_layout(const uint8_t* f, uint32_t len, Layout& at) {
  VnetHeader v;
  v.gso = VnetHeader::Gso::TcpV4;
  if (!parse_layout(f, len, v, at)) {
    v.gso = VnetHeader::Gso::TcpV6;
    if (!parse_layout(f, len, v, at)) return false;
  }
  if (at.end != len || at.headers >= at.end) return false;
  if (!at.v6 && (load_be16(f + at.l3 + 6) & 0x3fff)) return false;  // MF or an offset
  if (!at.v6 && checksum_finish(checksum_add(0, f + at.l3, at.l4 - at.l3)) != 0) return false;
  return (f[at.l4 + 13] & ~kTcpPsh) == kTcpAck;
}

// Whether two segments' headers are the same but for the fields segmentation sets per segment.
bool same_headers(const uint8_t* a, const uint8_t* b, const Layout& at) {
  uint8_t x[256], y[256];
  if (at.headers > sizeof(x)) return false;
  std::memcpy(x, a, at.headers);
  std::memcpy(y, b, at.headers);
  auto clear = [&](uint32_t at_byte, uint32_t n) {
    std::memset(x + at_byte, 0, n);
    std::memset(y + at_byte, 0, n);
  };
  if (at.v6) {
    clear(at.l3 + 4, 2);  // payload length
  } else {
    clear(at.l3 + 2, 4);   // total length, identification
    clear(at.l3 + 10, 2);  // header checksum
  }
  clear(at.l4 + 4, 4);  // sequence number
  clear(at.l4 + 16, 2);  // checksum
  x[at.l4 + 13] &= uint8_t(~kTcpPsh);
  y[at.l4 + 13] &= uint8_t(~kTcpPsh);
  return std::memcmp(x, y, at.headers) == 0;
}

}  // namespace

bool SuperFrameBuilder::add(const uint8_t* f, uint32_t len) {
  Layout at;
  if (!tcp_segment_layout(f, len, at)) return false;
  uint32_t l4_len = at.end - at.l4;
  if (checksum_finish(checksum_add(pseudo_header_sum(f, at, l4_len), f + at.l4, l4_len)) != 0) return false;
  uint32_t payload = len - at.headers;
  bool psh = f[at.l4 + 13] & kTcpPsh;
  if (segments_ == 0) {
    if (len > max_bytes_) return false;
    frame_.assign(f, f + len);
    l3_ = at.l3, l4_ = at.l4, headers_ = at.headers, mss_ = payload, v6_ = at.v6;
    segments_ = 1;
    closed_ = psh;
    return true;
  }
  const uint8_t* first = frame_.data();
  uint32_t size = uint32_t(frame_.size()) + payload;
  if (closed_ || at.l3 != l3_ || at.l4 != l4_ || at.headers != headers_ || at.v6 != v6_ || payload > mss_ ||
      size > max_bytes_ || size - l3_ > 0xffff)
    return false;
  if (!same_headers(first, f, at)) return false;
  if (!v6_ && load_be16(f + l3_ + 4) != uint16_t(load_be16(first + l3_ + 4) + segments_)) return false;
  if (load_be32(f + l4_ + 4) != uint32_t(load_be32(first + l4_ + 4) + (frame_.size() - headers_))) return false;
  frame_.insert(frame_.end(), f + headers_, f + len);
  ++segments_;
  if (payload < mss_ || psh) {
    closed_ = true;
    frame_[l4_ + 13] = uint8_t(frame_[l4_ + 13] | (psh ? kTcpPsh : 0));
  }
  return true;
}

uint32_t SuperFrameBuilder::finish(uint8_t* out) {
  if (segments_ == 0) return 0;
  auto len = uint32_t(frame_.size());
  uint8_t* f = out + VnetHeader::kBytes;
  std::memset(out, 0, VnetHeader::kBytes);
  std::memcpy(f, frame_.data(), len);
  if (segments_ > 1) {
    Layout at;
    at.l3 = l3_, at.l4 = l4_, at.v6 = v6_;
    uint8_t* ip = f + l3_;
    if (v6_) {
      store_be16(ip + 4, uint16_t(len - l3_ - 40));
    } else {
      store_be16(ip + 2, uint16_t(len - l3_));
      store_be16(ip + 10, 0);
      store_be16(ip + 10, checksum_finish(checksum_add(0, ip, l4_ - l3_)));
    }
    // CHECKSUM_PARTIAL, as a stack hands a TSO frame to its NIC: the pseudo-header's sum, folded.
    store_be16(f + l4_ + 16, uint16_t(~checksum_finish(pseudo_header_sum(f, at, len - l4_))));
    out[0] = kVnetNeedsCsum;
    out[1] = v6_ ? kVnetGsoTcpV6 : kVnetGsoTcpV4;
    store_host16(out + 2, uint16_t(headers_));
    store_host16(out + 4, uint16_t(mss_));
    store_host16(out + 6, uint16_t(l4_));
    store_host16(out + 8, 16);
  }
  clear();
  return VnetHeader::kBytes + len;
}

void SuperFrameBuilder::clear() {
  frame_.clear();
  segments_ = 0;
  closed_ = false;
}

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
