// The stamp: what the generator writes into each frame so that the far end can measure it.
//
// It sits at the start of the UDP payload (frame offset 42 for IPv4, 62 for IPv6, 4 more behind
// an 802.1Q tag) and says which flow, which packet of that flow, and when the packet was
// scheduled to leave. Wire form, 18 bytes, little-endian, packed:
//   flow_seq (8) | send_time_ns (8) | magic 0x6e66 (2)
#pragma once
#include <cstdint>
#include <optional>

#include "wire/bytes.h"

namespace gnf::wire {

inline constexpr uint32_t kStampBytes = 18;
inline constexpr uint16_t kStampMagic = 0x6e66;  // "nf"
// Flow ids are 16 bits: they sit above a 48-bit sequence number in flow_seq.
inline constexpr uint32_t kStampFlowShift = 48;
inline constexpr uint32_t kStampMaxFlows = 1u << 16;

struct Stamp {
  uint64_t flow_seq = 0;      // flow id << 48 | per-flow sequence number, starting at 0
  uint64_t send_time_ns = 0;  // scheduled departure of the first bit (CLOCK_MONOTONIC ns)

  static constexpr uint64_t make_flow_seq(uint32_t flow, uint64_t seq) {
    return uint64_t(flow) << kStampFlowShift | (seq & ((uint64_t(1) << kStampFlowShift) - 1));
  }
  uint32_t flow() const { return uint32_t(flow_seq >> kStampFlowShift); }
  uint64_t seq() const { return flow_seq & ((uint64_t(1) << kStampFlowShift) - 1); }
};

// Writes the 18-byte wire form of `s` at `p`.
inline void encode_stamp(uint8_t* p, const Stamp& s) {
  store_le64(p, s.flow_seq);
  store_le64(p + 8, s.send_time_ns);
  store_le16(p + 16, kStampMagic);
}

// The stamp carried by an Ethernet frame (without FCS), or nullopt if the frame is not
// Ethernet [+ one 802.1Q tag] / IPv4 (any IHL, first fragment) or IPv6 (no extension headers) /
// UDP with a stamp whose magic matches. Lengths in the IP and UDP headers must fit inside the
// frame, so a truncated frame never yields a stamp. Safe on any input, including garbage.
std::optional<Stamp> decode_stamp(const uint8_t* frame, uint32_t len);

}  // namespace gnf::wire
