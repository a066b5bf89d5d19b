// What a traffic generator sends: stamped UDP test traffic at a given rate, size mix and flow count.
//
// Frames are UDP/IPv4 or UDP/IPv6 from the RFC 2544 benchmarking ranges. Each carries a stamp
// (stamp.h) so that a MeasuringSink can compute latency, loss and reordering per flow.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace gnf::wire {

struct GeneratorOptions {
  int ip_version = 4;                    // 4 or 6
  std::vector<uint32_t> sizes = {64};    // frame sizes with FCS, cycled; IPv4 64..9018, IPv6 84..9018
  bool imix = false;                     // replaces `sizes` by simple IMIX: 7:4:1 of 64, 594, 1518 B
                                         // (84 B instead of 64 B for IPv6), interleaved
  uint32_t flows = 1;                    // 1..65536
  double rate_pps = 0;                   // at most one of rate_pps and rate_gbps_l1
  double rate_gbps_l1 = 0;               // layer-1 Gbit/s (preamble, IFG and FCS included)
  double line_gbps = 10;                 // rate when none is given, and the cap on any rate
  uint64_t count = 0;                    // frames to send in all; 0 = unlimited
  uint64_t duration_ns = 0;              // send frames scheduled before start + duration; 0 = unlimited
  std::array<uint8_t, 6> src_mac = {0x02, 0, 0, 0, 0, 0x01};
  std::array<uint8_t, 6> dst_mac = {0x02, 0, 0, 0, 0, 0x02};
  // Flow f uses base + f (IPv6: added to the last 32 bits).
  std::array<uint8_t, 4> src_ipv4 = {198, 18, 0, 1};
  std::array<uint8_t, 4> dst_ipv4 = {198, 19, 0, 1};
  std::array<uint8_t, 16> src_ipv6 = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  std::array<uint8_t, 16> dst_ipv6 = {0x20, 0x01, 0x0d, 0xb8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  uint16_t src_port_base = 1024;         // flow f uses src_port_base + f % 50000
  uint16_t dst_port = 5001;
};

}  // namespace gnf::wire
