#include "nf/l3fwd/ip_address.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace gnf::nf {

IpAddress IpAddress::from_ipv4(uint32_t host_order) {
  IpAddress a;
  for (int i = 0; i < 4; ++i) a.bytes[i] = uint8_t(host_order >> (24 - 8 * i));
  return a;
}

bool IpAddress::operator==(const IpAddress& other) const {
  return family == other.family && std::memcmp(bytes, other.bytes, family == 4 ? 4 : 16) == 0;
}

std::string IpAddress::str() const {
  char text[INET6_ADDRSTRLEN];
  inet_ntop(family == 4 ? AF_INET : AF_INET6, bytes, text, sizeof text);
  return text;
}

bool IpPrefix::contains(const IpAddress& a) const {
  if (a.family != address.family) return false;
  for (uint32_t bit = 0; bit < length; bit += 8) {
    uint32_t take = length - bit < 8 ? length - bit : 8;
    uint8_t mask = uint8_t(0xff00 >> take);
    if ((a.bytes[bit / 8] & mask) != (address.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

std::string IpPrefix::str() const { return address.str() + "/" + std::to_string(length); }

std::optional<IpAddress> parse_ip_address(std::string_view text) {
  std::string s(text);
  IpAddress a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes) == 1) {
    a.family = 4;
    return a;
  }
  if (inet_pton(AF_INET6, s.c_str(), a.bytes) == 1) {
    a.family = 6;
    return a;
  }
  return std::nullopt;
}

namespace {

std::optional<std::pair<IpAddress, uint8_t>> split_prefix(std::string_view text) {
  size_t slash = text.find('/');
  auto address = parse_ip_address(text.substr(0, slash));
  if (!address) return std::nullopt;
  unsigned length = address->bits();
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), length);
    if (err != std::errc() || end != digits.data() + digits.size() || digits.empty() || length > address->bits())
      return std::nullopt;
  }
  return std::make_pair(*address, uint8_t(length));
}


}  // namespace

IpPrefix network_of(IpAddress a, uint8_t length) {
  for (uint32_t bit = 0; bit < 128; bit += 8) {
    uint32_t keep = length > bit ? (length - bit < 8 ? length - bit : 8) : 0;
    a.bytes[bit / 8] &= uint8_t(0xff00 >> keep);
  }
  return IpPrefix{a, length};
}

std::optional<IpPrefix> parse_ip_prefix(std::string_view text) {
  auto parts = split_prefix(text);
  if (!parts) return std::nullopt;
  return network_of(parts->first, parts->second);
}

std::optional<std::pair<IpAddress, IpPrefix>> parse_interface_address(std::string_view text) {
  auto parts = split_prefix(text);
  if (!parts) return std::nullopt;
  return std::make_pair(parts->first, network_of(parts->first, parts->second));
}

std::optional<IpPrefix> parse_network(std::string_view text, std::string_view shown, bool length_required,
                                      std::string& problem) {
  const auto given = length_required && text.find('/') == text.npos ? std::nullopt : parse_interface_address(text);
  if (!given) {
    problem = fmt::format("'{}' is not a prefix like 10.0.0.0/8 or 2001:db8::/32", shown);
    return std::nullopt;
  }
  if (!(given->first == given->second.address)) {
    problem = fmt::format("'{}' has bits set beyond its length: the network is {}", shown, given->second.str());
    return std::nullopt;
  }
  return given->second;
}

}  // namespace gnf::nf
