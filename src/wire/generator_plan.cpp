#include "wire/generator_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "util/error.h"
#include "util/net_headers.h"
#include "wire/bytes.h"
#include "wire/checksum.h"
#include "wire/frame_size.h"
#include "wire/stamp.h"

namespace gnf::wire {

namespace {

constexpr uint8_t kTtl = 64;
constexpr uint32_t kSrcPortSpread = 50000;
// The smallest frame (with FCS) that holds the headers and a stamp: 64 and 84 B.
constexpr uint32_t kMinSizeIpv4 = net::kEthHeaderBytes + net::kIpv4MinHeaderBytes + net::kUdpHeaderBytes + kStampBytes + kFcsBytes;
constexpr uint32_t kMinSizeIpv6 = net::kEthHeaderBytes + net::kIpv6HeaderBytes + net::kUdpHeaderBytes + kStampBytes + kFcsBytes;
constexpr uint32_t kMaxSize = kMaxJumboFrameBytes + kFcsBytes;

// Simple IMIX, 7:4:1 of small, 594 and 1518 B, interleaved so that no size comes in a burst.
constexpr uint32_t kImixSmall = 0;
constexpr uint32_t kImixPattern[] = {kImixSmall, 594, kImixSmall, kImixSmall, 594, kImixSmall,
                                     1518, kImixSmall, 594, kImixSmall, 594, kImixSmall};

uint32_t udp_offset(int ip_version) { return net::kEthHeaderBytes + (ip_version == 4 ? net::kIpv4MinHeaderBytes : net::kIpv6HeaderBytes); }

// ns per unit in fixed point with as many fraction bits as fit beside the integer part: about
// 2^-40 relative, so a schedule drifts by well under a nanosecond in 10^12 frames or bytes.
void to_fixed_point(double ns_per_unit, uint64_t& value, unsigned& shift) {
  const unsigned integer_bits = unsigned(std::bit_width(uint64_t(std::ceil(ns_per_unit)) + 1));
  shift = 63 - integer_bits;
  value = uint64_t(std::llround((long double)ns_per_unit * (long double)(uint64_t(1) << shift)));
}

}  // namespace

GeneratorPlan::GeneratorPlan(const GeneratorOptions& opts) : opts_(opts) {
  if (opts_.ip_version != 4 && opts_.ip_version != 6)
    throw UserError(fmt::format("generator: ip_version must be 4 or 6, not {}", opts_.ip_version));
  uint32_t min_size = opts_.ip_version == 4 ? kMinSizeIpv4 : kMinSizeIpv6;
  if (opts_.imix) {
    opts_.sizes.clear();
    for (uint32_t s : kImixPattern) opts_.sizes.push_back(s == kImixSmall ? min_size : s);
  }
  if (opts_.sizes.empty()) throw UserError("generator: no frame sizes given");
  for (uint32_t size : opts_.sizes) {
    if (size < min_size || size > kMaxSize)
      throw UserError(fmt::format(
          "generator: frame size {} B is out of range: UDP/IPv{} test frames are {}..{} B "
          "(sizes include the 4-byte FCS)",
          size, opts_.ip_version, min_size, kMaxSize));
  }
  if (opts_.flows == 0 || opts_.flows > kStampMaxFlows)
    throw UserError(fmt::format("generator: flows must be 1..{}, not {}", kStampMaxFlows, opts_.flows));
  if (!(opts_.line_gbps > 0))
    throw UserError(fmt::format("generator: line_gbps must be positive, not {}", opts_.line_gbps));
  if (opts_.rate_pps < 0 || opts_.rate_gbps_l1 < 0 || (opts_.rate_pps > 0 && opts_.rate_gbps_l1 > 0))
    throw UserError("generator: give at most one of rate_pps and rate_gbps_l1, and no negative rate");

  // A pps rate is compared with the line rate over one whole size cycle: individual large
  // frames may still exceed it, and the port's line-rate pacing spaces those.
  for (uint32_t size : opts_.sizes) cycle_l1_bytes_ += l1_bytes(size - kFcsBytes);
  mean_l1_bytes_ = double(cycle_l1_bytes_) / double(opts_.sizes.size());
  double line_pps = opts_.line_gbps * 1e9 / (8 * mean_l1_bytes_);
  if (opts_.rate_pps > 0 && opts_.rate_pps <= line_pps) {
    ns_per_frame_ = 1e9 / opts_.rate_pps;
  } else {
    double gbps = opts_.rate_gbps_l1 > 0 ? opts_.rate_gbps_l1 : opts_.line_gbps;
    clamped_ = opts_.rate_pps > line_pps || gbps > opts_.line_gbps;
    ns_per_l1_byte_ = 8 / std::min(gbps, opts_.line_gbps);
  }
  by_bytes_ = ns_per_l1_byte_ > 0;
  to_fixed_point(by_bytes_ ? ns_per_l1_byte_ : ns_per_frame_, ns_per_unit_, shift_);

  if (opts_.ip_version == 4) {
    src_ip_base_ = load_be32(opts_.src_ipv4.data());
    dst_ip_base_ = load_be32(opts_.dst_ipv4.data());
  } else {
    src_ip_base_ = load_be32(opts_.src_ipv6.data() + 12);
    dst_ip_base_ = load_be32(opts_.dst_ipv6.data() + 12);
  }
  for (uint32_t size : opts_.sizes) {
    uint32_t i = 0;
    while (i < templates_.size() && templates_[i].bytes.size() + kFcsBytes != size) ++i;
    if (i == templates_.size()) templates_.push_back(make_template(size));
    cycle_.push_back(i);
  }
}

double GeneratorPlan::rate_pps() const {
  return ns_per_frame_ > 0 ? 1e9 / ns_per_frame_ : rate_gbps_l1() * 1e9 / (8 * mean_l1_bytes_);
}

double GeneratorPlan::rate_gbps_l1() const {
  return ns_per_l1_byte_ > 0 ? 8 / ns_per_l1_byte_ : rate_pps() * 8 * mean_l1_bytes_ / 1e9;
}

uint32_t GeneratorPlan::largest_frame_len() const {
  uint32_t largest = 0;
  for (const Template& t : templates_) largest = std::max(largest, uint32_t(t.bytes.size()));
  return largest;
}

bool GeneratorPlan::frames_may_overlap() const {
  if (by_bytes_) return false;
  return double(l1_bytes(largest_frame_len())) * 8 / opts_.line_gbps > ns_per_frame_;
}

// Everything but the per-frame fields (addresses, source port, stamp, checksum), which stay
// zero here so that `sum` covers only the constant part.
GeneratorPlan::Template GeneratorPlan::make_template(uint32_t size) const {
  Template t;
  uint32_t len = size - kFcsBytes;
  t.bytes.assign(len, 0);
  uint8_t* f = t.bytes.data();
  std::memcpy(f, opts_.dst_mac.data(), 6);
  std::memcpy(f + 6, opts_.src_mac.data(), 6);
  uint8_t* ip = f + net::kEthHeaderBytes;
  uint32_t udp_off = udp_offset(opts_.ip_version);
  uint8_t* udp = f + udp_off;
  uint16_t udp_len = uint16_t(len - udp_off);
  store_be16(udp + 2, opts_.dst_port);
  store_be16(udp + 4, udp_len);
  for (uint32_t i = udp_off + net::kUdpHeaderBytes + kStampBytes; i < len; ++i) f[i] = uint8_t(i);

  if (opts_.ip_version == 4) {
    store_be16(f + 12, 0x0800);
    ip[0] = 0x45;
    store_be16(ip + 2, uint16_t(len - net::kEthHeaderBytes));
    // Identification 0 with DF set is fine for atomic datagrams (RFC 6864).
    store_be16(ip + 6, 0x4000);
    ip[8] = kTtl;
    ip[9] = net::kIpProtoUdp;
    t.sum = checksum_add(0, ip, net::kIpv4MinHeaderBytes);
  } else {
    store_be16(f + 12, 0x86dd);
    ip[0] = 0x60;
    store_be16(ip + 4, udp_len);
    ip[6] = net::kIpProtoUdp;
    ip[7] = kTtl;
    std::memcpy(ip + 8, opts_.src_ipv6.data(), 12);
    std::memcpy(ip + 24, opts_.dst_ipv6.data(), 12);
    // UDP checksum over the pseudo-header (addresses, upper-layer length, next header) and the
    // whole datagram (RFC 8200 section 8.1).
    t.sum = checksum_add(0, ip + 8, 32) + udp_len + net::kIpProtoUdp;
    t.sum = checksum_add(t.sum, udp, udp_len);
  }
  return t;
}

namespace {
// The 16-bit words of a 32-bit field, for a checksum (RFC 1071 sums them in any order).
uint64_t words_of(uint32_t v) { return (v >> 16) + (v & 0xffff); }
}  // namespace

void GeneratorPlan::write(uint8_t* dst, uint32_t template_index, uint32_t flow, uint64_t seq, uint64_t send_ns) const {
  const Template& t = templates_[template_index];
  std::memcpy(dst, t.bytes.data(), t.bytes.size());
  uint32_t udp_off = udp_offset(opts_.ip_version);
  uint8_t* udp = dst + udp_off;
  uint8_t* stamp = udp + net::kUdpHeaderBytes;
  const uint16_t src_port = uint16_t(opts_.src_port_base + (flow < kSrcPortSpread ? flow : flow - kSrcPortSpread));
  const uint32_t src_ip = src_ip_base_ + flow, dst_ip = dst_ip_base_ + flow;
  store_be16(udp, src_port);
  encode_stamp(stamp, Stamp{Stamp::make_flow_seq(flow, seq), send_ns});
  uint8_t* ip = dst + net::kEthHeaderBytes;
  if (opts_.ip_version == 4) {
    store_be32(ip + 12, src_ip);
    store_be32(ip + 16, dst_ip);
    store_be16(ip + 10, checksum_finish(t.sum + words_of(src_ip) + words_of(dst_ip)));
  } else {
    store_be32(ip + 20, src_ip);
    store_be32(ip + 36, dst_ip);
    const uint64_t sum = checksum_add(t.sum + words_of(src_ip) + words_of(dst_ip) + src_port, stamp, kStampBytes);
    uint16_t csum = checksum_finish(sum);
    // 0 means "no checksum", which IPv6 forbids; all-ones is the same value in one's complement.
    store_be16(udp + 6, csum ? csum : 0xffff);
  }
}

}  // namespace gnf::wire
