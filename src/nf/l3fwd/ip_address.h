// IPv4 and IPv6 addresses and prefixes as the router's control plane handles them: parsed from and
// printed as text, bytes in network order (as in a packet header).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gnf::nf {

struct IpAddress {
  uint8_t family = 4;    // 4 or 6
  uint8_t bytes[16]{};   // IPv4: the first 4

  uint32_t ipv4() const { return uint32_t(bytes[0]) << 24 | uint32_t(bytes[1]) << 16 | uint32_t(bytes[2]) << 8 | bytes[3]; }
  static IpAddress from_ipv4(uint32_t host_order);
  uint32_t bits() const { return family == 4 ? 32 : 128; }
  bool operator==(const IpAddress& other) const;
  std::string str() const;
};

struct IpPrefix {
  IpAddress address;  // bits beyond length are zero
  uint8_t length = 0;

  bool contains(const IpAddress& a) const;
  std::string str() const;
};

// The prefix of `length` bits that holds `address` (the bits beyond length cleared).
IpPrefix network_of(IpAddress address, uint8_t length);

// "10.0.0.1", "2001:db8::1". nullopt when the text is neither.
std::optional<IpAddress> parse_ip_address(std::string_view text);
// "10.0.0.0/8", "2001:db8::/32"; a bare address is a host route (/32, /128). Bits beyond the length
// are cleared. nullopt when malformed or the length is too long.
std::optional<IpPrefix> parse_ip_prefix(std::string_view text);
// The prefix an interface address implies: "10.0.1.1/24" -> address 10.0.1.1 and network 10.0.1.0/24.
std::optional<std::pair<IpAddress, IpPrefix>> parse_interface_address(std::string_view text);
// A network as route files, `gnf ctl route` and ACL rules take it: "10.0.0.0/8", "2001:db8::/32" (a
// bare address, a host route, only without `length_required`). Bits set beyond the length are
// refused, as `ip route add` refuses them ("Invalid prefix for given prefix length"): a typo there
// would route or match other packets than meant. nullopt and `problem` (quoting `shown`, the text
// as the user wrote it) when the text is no such network.
std::optional<IpPrefix> parse_network(std::string_view text, std::string_view shown, bool length_required,
                                      std::string& problem);

}  // namespace gnf::nf
