// Frames and buffers for the IPsec tests: UDP over IPv4 or IPv6 in Ethernet, in a buffer with room
// before and after it, as gnf's slots will have.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "nf/ipsec/esp.h"
#include "nf/ipsec/tables.h"

namespace gnf::test {

// An Ethernet frame of `size` bytes (at least 60) holding a UDP packet from `src` to `dst` (dotted
// IPv4 or IPv6 text), its payload bytes counting up from `seed`. 60-byte IPv4 frames come out as
// a short IP packet and Ethernet padding, as on a wire.
std::vector<uint8_t> udp_frame(const std::string& src, const std::string& dst, uint32_t size, uint8_t seed = 0,
                               uint8_t traffic_class = 0);

// A frame in a buffer with `head` bytes before it and `tail` after it.
struct Slot {
  Slot(const std::vector<uint8_t>& frame, uint32_t head, uint32_t tail);
  // data points into buffer: a move keeps the buffer where it is, a copy would not.
  Slot(Slot&&) = default;
  Slot& operator=(Slot&&) = default;
  Slot(const Slot&) = delete;
  std::vector<uint8_t> frame() const { return {data, data + len}; }
  nf::FrameRoom room() const;

  std::vector<uint8_t> buffer;
  uint8_t* data;
  uint32_t len;
};

// The frame without Ethernet padding: Ethernet header and IP packet.
std::vector<uint8_t> without_padding(const std::vector<uint8_t>& frame);

// The tables of an ipsec-secgw configuration text (the test's own options), gnf as both ends.
nf::IpsecConfig ipsec_config(const std::string& text, bool esn = false, uint32_t window = 64);

}  // namespace gnf::test

namespace gnf::nf {
// gtest prints a counter by its name.
inline void PrintTo(IpsecCounter c, std::ostream* os) { *os << (c < kIpsecCounterCount ? kIpsecCounterNames[c] : "go_on"); }
}  // namespace gnf::nf
