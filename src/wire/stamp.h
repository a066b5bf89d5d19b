// The stamp: what the generator writes into each frame so that the far end can measure it.
//
// It sits at the start of the UDP payload (frame offset 42 for IPv4, 62 for IPv6, 4 more behind
// an 802.1Q tag) and says which flow, which packet of that flow, and when the packet was
// scheduled to leave. Wire form, 18 bytes, little-endian, packed:
//   flow_seq (8) | send_time_ns (8) | magic 0x6e66 (2)
// A one-way measurement of the GPU's tx side (gnf bench --one-way tx) extends it where the GPU
// hands the frame to the NIC: the magic becomes 0x6e67 and the departure time follows,
//   flow_seq (8) | send_time_ns (8) | magic 0x6e67 (2) | departure_ns (8)
// so that the sink times the frame from its departure while the measured window and loss
// accounting still go by the generator's send time.
#pragma once
#include <cstdint>
#include <optional>

#include "util/hd.h"
#include "util/net_headers.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

namespace gnf::wire {

inline constexpr uint32_t kStampBytes = 18;
inline constexpr uint32_t kDepartureBytes = 8;  // the extension behind a 0x6e67 stamp
inline constexpr uint16_t kStampMagic = 0x6e66;  // "nf"
inline constexpr uint16_t kStampMagicDeparted = 0x6e67;
// Flow ids are 16 bits: they sit above a 48-bit sequence number in flow_seq.
inline constexpr uint32_t kStampFlowShift = 48;
inline constexpr uint32_t kStampMaxFlows = 1u << 16;

struct Stamp {
  uint64_t flow_seq = 0;      // flow id << 48 | per-flow sequence number, starting at 0
  uint64_t send_time_ns = 0;  // scheduled departure of the first bit (CLOCK_MONOTONIC ns)
  uint64_t departure_ns = 0;  // when the GPU handed it to the NIC (extension), 0 if not stamped

  static constexpr uint64_t make_flow_seq(uint32_t flow, uint64_t seq) {
    return uint64_t(flow) << kStampFlowShift | (seq & ((uint64_t(1) << kStampFlowShift) - 1));
  }
  uint32_t flow() const { return uint32_t(flow_seq >> kStampFlowShift); }
  uint64_t seq() const { return flow_seq & ((uint64_t(1) << kStampFlowShift) - 1); }
  // Where the frame's latency is counted from.
  uint64_t latency_origin_ns() const { return departure_ns ? departure_ns : send_time_ns; }
};

// Writes the 18-byte wire form of `s` at `p` (the extension is the GPU's to write).
inline void encode_stamp(uint8_t* p, const Stamp& s) {
  store_le64(p, s.flow_seq);
  store_le64(p + 8, s.send_time_ns);
  store_le16(p + 16, kStampMagic);
}

// Where a frame's stamp would sit, judged by its headers alone.
struct StampPlace {
  uint32_t offset = 0;  // of the stamp in the frame; 0: the frame has no UDP payload to hold one
  uint32_t room = 0;    // UDP payload bytes from there on
  uint32_t udp = 0;     // offset of the UDP header
};

namespace detail {

// The UDP datagram inside an IPv4 packet at frame[off, len), judged only by headers that fit;
// false if there is no whole UDP datagram to look into.
GNF_HD inline bool find_udp_ipv4(const uint8_t* frame, uint32_t len, uint32_t off, uint32_t& udp, uint32_t& end) {
  if (len - off < net::kIpv4MinHeaderBytes) return false;
  const uint8_t* ip = frame + off;
  const uint32_t ihl = (ip[0] & 0x0f) * 4u;
  const uint32_t total = load_be16(ip + 2);
  // A later fragment carries the middle of a datagram, where a stamp-like pattern means nothing.
  const bool later_fragment = (load_be16(ip + 6) & net::kIpv4FragOffsetMask) != 0;
  if (ip[0] >> 4 != 4 || ihl < net::kIpv4MinHeaderBytes || total < ihl || total > len - off) return false;
  if (ip[9] != net::kIpProtoUdp || later_fragment) return false;
  udp = off + ihl;
  end = off + total;
  return true;
}

GNF_HD inline bool find_udp_ipv6(const uint8_t* frame, uint32_t len, uint32_t off, uint32_t& udp, uint32_t& end) {
  if (len - off < net::kIpv6HeaderBytes) return false;
  const uint8_t* ip = frame + off;
  const uint32_t payload = load_be16(ip + 4);
  if (ip[0] >> 4 != 6 || ip[6] != net::kIpProtoUdp || payload > len - off - net::kIpv6HeaderBytes) return false;
  udp = off + net::kIpv6HeaderBytes;
  end = udp + payload;
  return true;
}

}  // namespace detail

// The stamp's place in an Ethernet frame (without FCS) that is Ethernet [+ one 802.1Q tag] /
// IPv4 (any IHL, first fragment) or IPv6 (no extension headers) / UDP with room for a stamp and
// the stamp magic (either one) there. Lengths in the IP and UDP headers must fit inside the frame,
// so a truncated frame never yields a place. Safe on any input, including garbage.
GNF_HD inline StampPlace find_stamp(const uint8_t* frame, uint32_t len) {
  uint32_t off = net::kEthHeaderBytes;
  if (len < off) return {};
  uint16_t type = load_be16(frame + 12);
  if (type == net::kEtherTypeVlan) {
    off += net::kVlanTagBytes;
    if (len < off) return {};
    type = load_be16(frame + 16);
  }
  uint32_t udp = 0, end = 0;
  const bool found = type == net::kEtherTypeIpv4   ? detail::find_udp_ipv4(frame, len, off, udp, end)
                     : type == net::kEtherTypeIpv6 ? detail::find_udp_ipv6(frame, len, off, udp, end)
                                                   : false;
  if (!found || end - udp < net::kUdpHeaderBytes + kStampBytes) return {};
  const uint32_t udp_len = load_be16(frame + udp + 4);
  if (udp_len < net::kUdpHeaderBytes + kStampBytes || udp_len > end - udp) return {};
  const uint32_t at = udp + net::kUdpHeaderBytes;
  const uint16_t magic = load_le16(frame + at + 16);
  if (magic != kStampMagic && magic != kStampMagicDeparted) return {};
  return StampPlace{at, udp_len - net::kUdpHeaderBytes, udp};
}

// Adds the departure extension to the stamp at `place` (from find_stamp) and keeps a UDP checksum
// right (RFC 1624 incremental update; the changed words sit at even offsets of the datagram).
// False, and the frame unchanged, if the UDP payload has no room for the extension.
GNF_HD inline bool mark_departure(uint8_t* frame, const StampPlace& place, uint64_t departure_ns) {
  if (place.offset == 0 || place.room < kStampBytes + kDepartureBytes) return false;
  uint8_t* changed = frame + place.offset + 16;  // magic, then the extension
  constexpr uint32_t kChangedBytes = 2 + kDepartureBytes;
  uint8_t* csum = frame + place.udp + 6;
  const uint16_t old_csum = load_be16(csum);
  uint64_t sum = uint16_t(~old_csum);
  for (uint32_t i = 0; i < kChangedBytes; i += 2) sum += uint16_t(~load_be16(changed + i));
  store_le16(changed, kStampMagicDeparted);
  store_le64(changed + 2, departure_ns);
  if (old_csum != 0) {  // 0: IPv4 without a UDP checksum
    sum = checksum_add(sum, changed, kChangedBytes);
    const uint16_t c = checksum_finish(sum);
    store_be16(csum, c ? c : 0xffff);  // 0 would mean "no checksum"; all-ones is the same value
  }
  return true;
}

// The stamp carried by an Ethernet frame (without FCS), or nullopt if find_stamp finds no place;
// a 0x6e67 stamp without room for its extension is not a stamp.
std::optional<Stamp> decode_stamp(const uint8_t* frame, uint32_t len);

}  // namespace gnf::wire
