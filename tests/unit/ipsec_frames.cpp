#include "ipsec_frames.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "nf/l3fwd/ip_address.h"

namespace gnf::test {

std::vector<uint8_t> udp_frame(const std::string& src, const std::string& dst, uint32_t size, uint8_t seed,
                               uint8_t traffic_class) {
  const auto s = nf::parse_ip_address(src), d = nf::parse_ip_address(dst);
  if (!s || !d || s->family != d->family || size < 60) throw std::invalid_argument("udp_frame: bad arguments");
  const bool v4 = s->family == 4;
  const uint32_t ip_header = v4 ? 20 : 40;
  const uint32_t ip_length = size >= 64 ? size - 14 : ip_header + 8 + 2;  // shorter: Ethernet padding
  std::vector<uint8_t> f(14 + ip_length, 0);
  const uint8_t macs[12] = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2};
  std::memcpy(f.data(), macs, 12);
  wire::store_be16(&f[12], v4 ? net::kEtherTypeIpv4 : net::kEtherTypeIpv6);
  uint8_t* ip = &f[14];
  if (v4) {
    ip[0] = 0x45;
    ip[1] = traffic_class;
    wire::store_be16(ip + 2, uint16_t(ip_length));
    wire::store_be16(ip + 4, 0x1234);
    ip[8] = 63;
    ip[9] = 17;
    std::memcpy(ip + 12, s->bytes, 4);
    std::memcpy(ip + 16, d->bytes, 4);
    nf::esp_set_ipv4_checksum(ip, 20);
  } else {
    ip[0] = uint8_t(0x60 | traffic_class >> 4);
    ip[1] = uint8_t(traffic_class << 4);
    wire::store_be16(ip + 4, uint16_t(ip_length - 40));
    ip[6] = 17;
    ip[7] = 63;
    std::memcpy(ip + 8, s->bytes, 16);
    std::memcpy(ip + 24, d->bytes, 16);
  }
  uint8_t* udp = ip + ip_header;
  wire::store_be16(udp, 1024);
  wire::store_be16(udp + 2, 4789);
  wire::store_be16(udp + 4, uint16_t(ip_length - ip_header));
  for (uint32_t i = 8; i < ip_length - ip_header; ++i) udp[i] = uint8_t(seed + i);
  f.resize(std::max<size_t>(f.size(), size), 0);
  return f;
}

Slot::Slot(const std::vector<uint8_t>& frame, uint32_t head, uint32_t tail)
    : buffer(head + frame.size() + tail, 0xEE), data(buffer.data() + head), len(uint32_t(frame.size())) {
  std::memcpy(data, frame.data(), frame.size());
}

nf::FrameRoom Slot::room() const {
  return nf::FrameRoom{uint32_t(data - buffer.data()), uint32_t(buffer.data() + buffer.size() - (data + len))};
}

std::vector<uint8_t> without_padding(const std::vector<uint8_t>& frame) {
  nf::EspIp ip;
  if (!nf::esp_parse_frame(frame.data(), uint32_t(frame.size()), ip)) throw std::invalid_argument("not IP");
  return {frame.begin(), frame.begin() + 14 + ip.length};
}

nf::IpsecConfig ipsec_config(const std::string& text, bool esn, uint32_t window) {
  return nf::parse_ipsec_config(text, "test.cfg", nf::IpsecOptions{esn, window});
}

}  // namespace gnf::test
