// The ESP packet format (RFC 4303), host and device from one source: what is written around a
// packet before the cipher seals it, and what is checked and removed after the cipher opened it.
// The cipher itself is behind cipher.h's interface; this file does no cryptography.
//
//   tunnel:     [Ethernet][outer IP][SPI|seq][IV][inner IP packet|pad|pad len|next hdr][ICV]
//   transport:  [Ethernet][IP header ][SPI|seq][IV][IP payload     |pad|pad len|next hdr][ICV]
//                                               <------- encrypted (payload) ------->
//
// Frames are Ethernet II with an IPv4 or IPv6 packet (no VLAN tag: the ports' NFs see untagged
// frames); bytes after the IP packet's length (Ethernet padding of short frames) are not part of it.
//
// Where the frame grows (the caller's contract, FrameRoom): the encapsulated frame starts up to 64
// bytes before `data` (IPv6 outer header, ESP header, CBC IV) and ends up to 29 bytes after the IP
// packet (CBC padding, trailer, ICV). When the caller's headroom holds the headers, they are
// written there and the packet's bytes do not move (gnf's slots with `[driver] headroom`);
// otherwise the packet moves towards the end of the buffer, which needs the tailroom for both. The
// frame shrinks in place on the way in: `data` moves forward by what was removed, so the headroom
// grows. Either way the caller takes the new `data` and `len`.
#pragma once
#include <cstdint>
#include <cstring>

#include "nf/ipsec/counters.h"
#include "nf/ipsec/sa.h"
#include "util/hd.h"
#include "util/net_headers.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

namespace gnf::nf {

// Bytes the caller's buffer holds before `data` and after `data + len`, writable by the NF.
struct FrameRoom {
  uint32_t head;
  uint32_t tail;
};

// One packet's work for the cipher: `esp` is the ESP header, the IV follows it, then `payload`
// bytes (padded plaintext to seal, or ciphertext to open), then the ICV.
struct EspCryptoJob {
  uint8_t* esp;
  uint32_t payload;
  uint64_t seq;  // the full sequence number: its low 32 bits are on the wire, its high 32 in the ICV with ESN
};

// The IP packet of a frame, as far as ESP needs it.
struct EspIp {
  uint8_t family;         // 4 or 6
  uint8_t proto;          // IPv4 protocol, IPv6 next header (of the fixed header)
  uint16_t header_bytes;  // IPv4: IHL * 4; IPv6: 40
  uint32_t length;        // the whole IP packet, from its header's length field
};

GNF_INLINE uint64_t esp_load_be64(const uint8_t* p) { return uint64_t(wire::load_be32(p)) << 32 | wire::load_be32(p + 4); }
GNF_INLINE void esp_store_be64(uint8_t* p, uint64_t v) {
  wire::store_be32(p, uint32_t(v >> 32));
  wire::store_be32(p + 4, uint32_t(v));
}

// memmove, for the device too.
GNF_INLINE void esp_move(uint8_t* to, const uint8_t* from, uint32_t n) {
#if defined(__CUDA_ARCH__)
  if (to < from)
    for (uint32_t i = 0; i < n; ++i) to[i] = from[i];
  else
    for (uint32_t i = n; i > 0; --i) to[i - 1] = from[i - 1];
#else
  std::memmove(to, from, n);
#endif
}

// Reads the IP header at `ip` (`available` bytes there): false unless it is a whole IPv4 or IPv6
// header of a packet that fits.
GNF_INLINE bool esp_parse_ip(const uint8_t* ip, uint32_t available, uint8_t family, EspIp& out) {
  out.family = family;
  if (family == 4) {
    if (available < net::kIpv4MinHeaderBytes || ip[0] >> 4 != 4 || (ip[0] & 0xF) < 5) return false;
    out.header_bytes = uint16_t((ip[0] & 0xF) * 4);
    out.length = wire::load_be16(ip + 2);
    out.proto = ip[9];
  } else {
    if (available < net::kIpv6HeaderBytes || ip[0] >> 4 != 6) return false;
    out.header_bytes = net::kIpv6HeaderBytes;
    out.length = net::kIpv6HeaderBytes + wire::load_be16(ip + 4);
    out.proto = ip[6];
  }
  return out.length >= out.header_bytes && out.length <= available;
}

// The frame's IP packet: false unless the EtherType is IPv4 or IPv6 and esp_parse_ip takes it.
GNF_INLINE bool esp_parse_frame(const uint8_t* frame, uint32_t len, EspIp& out) {
  if (len < net::kEthHeaderBytes) return false;
  const uint16_t type = wire::load_be16(frame + 12);
  if (type != net::kEtherTypeIpv4 && type != net::kEtherTypeIpv6) return false;
  return esp_parse_ip(frame + net::kEthHeaderBytes, len - net::kEthHeaderBytes, type == net::kEtherTypeIpv4 ? 4 : 6, out);
}

GNF_INLINE void esp_set_ipv4_checksum(uint8_t* ip, uint32_t header_bytes) {
  wire::store_be16(ip + 10, 0);
  wire::store_be16(ip + 10, wire::checksum_finish(wire::checksum_add(0, ip, header_bytes)));
}

// The outer header of a tunnel SA, for `inner_bytes` of ESP after it. The traffic class comes from
// the inner packet (RFC 4301 §5.1.2.1, ECN as RFC 6040's normal mode); IPv4's identification is
// the sequence number's low 16 bits, unique enough among the SA's packets in flight; DF is clear.
GNF_INLINE void esp_write_outer(const IpsecSa& sa, uint8_t traffic_class, uint64_t seq, uint32_t esp_bytes, uint8_t* ip) {
  if (sa.mode == EspMode::Ipv4Tunnel) {
    ip[0] = 0x45;
    ip[1] = traffic_class;
    wire::store_be16(ip + 2, uint16_t(20 + esp_bytes));
    wire::store_be16(ip + 4, uint16_t(seq));
    wire::store_be16(ip + 6, 0);
    ip[8] = 64;  // ipsec-secgw's IPDEFTTL
    ip[9] = kIpProtoEsp;
    for (int i = 0; i < 4; ++i) ip[12 + i] = sa.tunnel_src[i], ip[16 + i] = sa.tunnel_dst[i];
    esp_set_ipv4_checksum(ip, 20);
  } else {
    ip[0] = uint8_t(0x60 | traffic_class >> 4);
    ip[1] = uint8_t(traffic_class << 4);
    ip[2] = ip[3] = 0;
    wire::store_be16(ip + 4, uint16_t(esp_bytes));
    ip[6] = kIpProtoEsp;
    ip[7] = 64;
    for (int i = 0; i < 16; ++i) ip[8 + i] = sa.tunnel_src[i], ip[24 + i] = sa.tunnel_dst[i];
  }
}

GNF_INLINE uint8_t esp_traffic_class(const uint8_t* ip, uint8_t family) {
  return family == 4 ? ip[1] : uint8_t((ip[0] & 0xF) << 4 | ip[1] >> 4);
}

// Builds the ESP packet of the frame's IP packet `ip` for `sa` with sequence number `seq`: moves
// the headers (see the room contract above), writes the outer or updated IP header, the ESP header
// and the trailer with RFC 4303's monotonic padding, and says in `job` what the cipher must seal.
// Returns kIpsecGoOn, or why the packet is dropped.
GNF_INLINE IpsecCounter esp_encapsulate(const IpsecSa& sa, uint64_t seq, const EspIp& ip, uint8_t*& data,
                                        uint32_t& len, FrameRoom room, EspCryptoJob& job) {
  const bool tunnel = esp_is_tunnel(sa.mode);
  // RFC 4303 §3.1.1: transport mode protects whole IPv4 datagrams, never fragments.
  const uint8_t* old_ip = data + net::kEthHeaderBytes;
  if (!tunnel && (ip.family != 4 ||
                  (wire::load_be16(old_ip + 6) & (net::kIpv4MoreFragments | net::kIpv4FragOffsetMask)) != 0))
    return kIpsecDropBadHeader;
  const uint32_t kept = tunnel ? 0 : ip.header_bytes;  // IP header bytes that stay in front of the ESP header
  const uint32_t carried = ip.length - kept;           // what ESP carries: the packet, or its payload
  const uint32_t align = esp_alignment(sa.cipher);
  const uint32_t pad = (align - (carried + kEspTrailerBytes) % align) % align;
  const uint32_t payload = carried + pad + kEspTrailerBytes;
  const uint32_t front = tunnel ? esp_outer_header_bytes(sa.mode) : kept;
  const uint32_t esp_bytes = kEspHeaderBytes + esp_iv_bytes(sa.cipher) + payload + esp_icv_bytes(sa.auth);
  const uint32_t ipv6_header = sa.mode == EspMode::Ipv6Tunnel ? net::kIpv6HeaderBytes : 0;
  if (front + esp_bytes - ipv6_header > 0xFFFF) return kIpsecDropNoRoom;
  const uint32_t shift = front + kEspHeaderBytes + esp_iv_bytes(sa.cipher) - kept;
  const uint32_t new_len = net::kEthHeaderBytes + front + esp_bytes;
  if (new_len - shift > len + room.tail) return kIpsecDropNoRoom;

  const uint8_t traffic_class = esp_traffic_class(old_ip, ip.family);
  const uint8_t next_header = tunnel ? (ip.family == 4 ? kIpProtoIpv4 : kIpProtoIpv6) : ip.proto;
  uint8_t* frame = data;
  if (room.head >= shift) {
    frame = data - shift;
    esp_move(frame, data, net::kEthHeaderBytes + kept);
  } else {
    if (new_len > len + room.tail) return kIpsecDropNoRoom;
    esp_move(data + net::kEthHeaderBytes + kept + shift, old_ip + kept, carried);
  }
  uint8_t* out_ip = frame + net::kEthHeaderBytes;
  uint8_t* esp = out_ip + front;
  if (tunnel) {
    wire::store_be16(frame + 12, sa.mode == EspMode::Ipv4Tunnel ? net::kEtherTypeIpv4 : net::kEtherTypeIpv6);
    esp_write_outer(sa, traffic_class, seq, esp_bytes, out_ip);
  } else {
    out_ip[9] = kIpProtoEsp;
    wire::store_be16(out_ip + 2, uint16_t(front + esp_bytes));
    esp_set_ipv4_checksum(out_ip, front);
  }
  wire::store_be32(esp, sa.spi);
  wire::store_be32(esp + 4, uint32_t(seq));
  uint8_t* trailer = esp + kEspHeaderBytes + esp_iv_bytes(sa.cipher) + carried;
  for (uint32_t i = 0; i < pad; ++i) trailer[i] = uint8_t(i + 1);
  trailer[pad] = uint8_t(pad);
  trailer[pad + 1] = next_header;
  job = EspCryptoJob{esp, payload, seq};
  data = frame;
  len = new_len;
  return kIpsecGoOn;
}

// Where the ESP of an inbound packet lies, checked against its SA: the outer addresses of a tunnel
// SA, and room for the header, IV, a payload of whole blocks with its trailer, and the ICV.
// Returns kIpsecGoOn and fills `job` (its seq left to the caller), or why the packet is dropped.
GNF_INLINE IpsecCounter esp_locate(const IpsecSa& sa, const EspIp& ip, uint8_t* ip_start, EspCryptoJob& job) {
  if (esp_is_tunnel(sa.mode)) {
    const uint8_t family = sa.mode == EspMode::Ipv4Tunnel ? 4 : 6;
    const uint32_t bytes = family == 4 ? 4 : 16, at = family == 4 ? 12 : 8;
    if (ip.family != family) return kIpsecDropUnknownSpi;
    for (uint32_t i = 0; i < bytes; ++i)
      if (ip_start[at + i] != sa.tunnel_src[i] || ip_start[at + bytes + i] != sa.tunnel_dst[i])
        return kIpsecDropUnknownSpi;
  } else if (ip.family != 4) {
    return kIpsecDropUnknownSpi;
  }
  const uint32_t overhead = kEspHeaderBytes + esp_iv_bytes(sa.cipher) + esp_icv_bytes(sa.auth);
  const uint32_t esp_bytes = ip.length - ip.header_bytes;
  if (esp_bytes < overhead + kEspTrailerBytes) return kIpsecDropTruncated;
  const uint32_t payload = esp_bytes - overhead;
  if (sa.cipher == EspCipher::AesCbc128 && payload % 16 != 0) return kIpsecDropTruncated;
  job = EspCryptoJob{ip_start + ip.header_bytes, payload, 0};
  return kIpsecGoOn;
}

// After the cipher opened `job`: checks the trailer and removes ESP, leaving the inner packet
// (tunnel) or the restored IP packet (transport), described in `inner`, behind the Ethernet header,
// `data` moved forward. Returns kIpsecGoOn, or why the packet is dropped.
GNF_INLINE IpsecCounter esp_decapsulate(const IpsecSa& sa, const EspIp& ip, const EspCryptoJob& job, uint8_t*& data,
                                        uint32_t& len, EspIp& inner) {
  const uint8_t* plain = job.esp + kEspHeaderBytes + esp_iv_bytes(sa.cipher);
  const uint32_t pad = plain[job.payload - 2];
  const uint8_t next_header = plain[job.payload - 1];
  if (pad + kEspTrailerBytes > job.payload) return kIpsecDropBadPadding;
  const uint32_t carried = job.payload - kEspTrailerBytes - pad;
  for (uint32_t i = 0; i < pad; ++i)
    if (plain[carried + i] != uint8_t(i + 1)) return kIpsecDropBadPadding;
  if (next_header == kIpProtoNone) return kIpsecDropBadNextHeader;

  uint8_t* new_ip;
  if (esp_is_tunnel(sa.mode)) {
    if (next_header != kIpProtoIpv4 && next_header != kIpProtoIpv6) return kIpsecDropBadNextHeader;
    // What follows the inner packet's length is TFC padding (RFC 4303 §2.7).
    if (!esp_parse_ip(plain, carried, next_header == kIpProtoIpv4 ? 4 : 6, inner)) return kIpsecDropBadHeader;
    new_ip = const_cast<uint8_t*>(plain);
    wire::store_be16(data + 12, inner.family == 4 ? net::kEtherTypeIpv4 : net::kEtherTypeIpv6);
  } else {
    new_ip = const_cast<uint8_t*>(plain) - ip.header_bytes;
    esp_move(new_ip, job.esp - ip.header_bytes, ip.header_bytes);
    inner = EspIp{4, next_header, ip.header_bytes, ip.header_bytes + carried};
    new_ip[9] = next_header;
    wire::store_be16(new_ip + 2, uint16_t(inner.length));
    esp_set_ipv4_checksum(new_ip, ip.header_bytes);
  }
  uint8_t* frame = new_ip - net::kEthHeaderBytes;
  esp_move(frame, data, net::kEthHeaderBytes);
  data = frame;
  len = net::kEthHeaderBytes + inner.length;
  return kIpsecGoOn;
}

}  // namespace gnf::nf
