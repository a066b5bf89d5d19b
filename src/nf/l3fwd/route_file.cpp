#include "nf/l3fwd/route_file.h"

#include <charconv>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "util/error.h"
#include "util/files.h"
#include "util/mac.h"

namespace gnf::nf {

namespace {

// Calls `line_fn(words, fail)` for every non-empty line, words split on blanks, comments cut.
// Route and neighbour files are text: a full Internet table is some 60 MiB of it.
constexpr size_t kMaxTableFileBytes = size_t(1) << 30;

// Calls `line_fn(words, fail)` for every non-empty line, words split on blanks, comments cut.
template <typename LineFn>
uint32_t each_line(const std::string& path, LineFn line_fn) {
  std::istringstream in(read_input_file(path, kMaxTableFileBytes));
  std::string text;
  uint32_t count = 0;
  for (int number = 1; std::getline(in, text); ++number) {
    auto fail = [&](const std::string& message) {
      throw UserError(fmt::format("{}:{}: {}", path, number, message));
    };
    // A NUL would end the message that quotes the line, and no address or name holds one.
    if (text.find('\0') != std::string::npos) fail("the line holds a NUL byte: this is not a text file");
    if (size_t hash = text.find('#'); hash != std::string::npos) text.resize(hash);
    std::istringstream words_in(text);
    std::vector<std::string> words;
    for (std::string w; words_in >> w;) words.push_back(w);
    if (words.empty()) continue;
    try {
      line_fn(words, fail);
    } catch (const UserError& e) {
      if (std::string(e.what()).rfind(path + ":", 0) == 0) throw;
      fail(e.what());  // a table's own error (full, bad port): add the line it came from
    }
    ++count;
  }
  return count;
}

template <typename Fail>
uint16_t parse_port(const std::string& text, const Router& router, Fail fail) {
  unsigned port = 0;
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (err != std::errc() || end != text.data() + text.size() || port >= router.ports())
    fail(fmt::format("'{}' is not a port number (0..{})", text, router.ports() - 1));
  return uint16_t(port);
}

template <typename Fail>
uint16_t port_of_network(const IpAddress& address, const Router& router, Fail fail) {
  auto port = router.connected_port(address);
  if (!port) fail(fmt::format("{} is in none of the ports' networks; name the port", address.str()));
  return *port;
}

}  // namespace

std::array<uint8_t, 6> port_route_mac(uint16_t port) { return {0x02, 0, 0, 0, uint8_t(port >> 8), uint8_t(port)}; }

uint32_t load_route_file(const std::string& path, Router& router) {
  return each_line(path, [&](const std::vector<std::string>& w, auto fail) {
    const bool dpdk = w[0][0] == 'R';
    const std::string text = dpdk ? w[0].substr(1) : w[0];
    std::string problem;
    const std::optional<IpPrefix> prefix = parse_network(text, w[0], false, problem);
    if (!prefix) fail(problem);
    RouteTarget target;
    if (dpdk) {
      if (w.size() != 2) fail("a DPDK route line is R<prefix>/<length> <port>");
      target.kind = NextHopKind::Port;
      target.port = parse_port(w[1], router, fail);
      target.mac = port_route_mac(target.port);
    } else if (w.size() == 2 && w[1] == "blackhole") {
      target.kind = NextHopKind::Blackhole;
    } else {
      if (w.size() != 2 && w.size() != 3) fail("a route line is <prefix> <gateway> [port] or <prefix> blackhole");
      auto gateway = parse_ip_address(w[1]);
      if (!gateway || gateway->family != prefix->address.family)
        fail(fmt::format("'{}' is not an IPv{} gateway address", w[1], prefix->address.family));
      target.kind = NextHopKind::Gateway;
      target.gateway = *gateway;
      target.port = w.size() == 3 ? parse_port(w[2], router, fail) : port_of_network(*gateway, router, fail);
    }
    router.add_route(*prefix, target);
  });
}

uint32_t load_neighbour_file(const std::string& path, Router& router) {
  return each_line(path, [&](const std::vector<std::string>& w, auto fail) {
    if (w.size() != 2 && w.size() != 3) fail("a neighbour line is <address> <mac> [port]");
    auto address = parse_ip_address(w[0]);
    if (!address) fail(fmt::format("'{}' is not an IP address", w[0]));
    auto mac = parse_mac(w[1]);
    if (!mac) fail(fmt::format("'{}' is not a MAC address like 02:00:00:00:00:01", w[1]));
    uint16_t port = w.size() == 3 ? parse_port(w[2], router, fail) : port_of_network(*address, router, fail);
    router.set_neighbour(port, *address, *mac);
  });
}

}  // namespace gnf::nf
