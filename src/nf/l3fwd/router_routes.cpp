// The router's routes as the control plane lists them (`gnf ctl show route`): read from the LPM
// tables' rules, which hold every route with its next hop.
#include <algorithm>
#include <cstring>
#include <queue>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nf/l3fwd/router.h"

namespace gnf::nf {

namespace {

// The listing order: family, address bytes, length.
bool before(const Router::Route& a, const Router::Route& b) {
  if (a.prefix.address.family != b.prefix.address.family) return a.prefix.address.family < b.prefix.address.family;
  if (int c = std::memcmp(a.prefix.address.bytes, b.prefix.address.bytes, 16); c != 0) return c < 0;
  return a.prefix.length < b.prefix.length;
}

IpPrefix ipv4_prefix(uint32_t prefix, uint8_t depth) { return IpPrefix{IpAddress::from_ipv4(prefix), depth}; }

IpPrefix ipv6_prefix(const uint8_t* bytes, uint8_t depth) {
  IpPrefix p;
  p.address.family = 6;
  std::memcpy(p.address.bytes, bytes, 16);
  p.length = depth;
  return p;
}

}  // namespace

std::optional<Router::Route> Router::route(const IpPrefix& prefix) const {
  std::lock_guard lock(mutex_);
  uint32_t index = 0;
  const bool v4 = prefix.address.family == 4;
  const bool found = v4 ? lpm4_.find(prefix.address.ipv4(), prefix.length, index)
                        : lpm6_.find(prefix.address.bytes, prefix.length, index);
  if (!found || index >= next_hops_.size()) return std::nullopt;
  return Route{network_of(prefix.address, prefix.length), next_hops_[index]};
}

std::vector<Router::Route> Router::routes(size_t limit) const {
  if (limit == 0) return {};
  // The `limit` first in order: a heap whose top is the last of those kept so far.
  std::priority_queue<Route, std::vector<Route>, decltype(&before)> kept(&before);
  auto keep = [&](const IpPrefix& prefix, uint32_t index) {
    if (index >= next_hops_.size()) return;
    Route r{prefix, next_hops_[index]};
    if (kept.size() < limit) kept.push(r);
    else if (before(r, kept.top())) {
      kept.pop();
      kept.push(r);
    }
  };
  {
    std::lock_guard lock(mutex_);
    lpm4_.each_rule([&](uint32_t prefix, uint8_t depth, uint32_t index) { keep(ipv4_prefix(prefix, depth), index); });
    lpm6_.each_rule([&](const uint8_t* prefix, uint8_t depth, uint32_t index) { keep(ipv6_prefix(prefix, depth), index); });
  }
  std::vector<Route> out(kept.size());
  for (size_t i = out.size(); i-- > 0; kept.pop()) out[i] = kept.top();
  return out;
}

std::string port_label(uint16_t port, const std::vector<std::string>& port_names) {
  return port < port_names.size() ? port_names[port] : fmt::format("port{}", port);
}

IpAddress next_hop_gateway(const NextHop& hop) {
  IpAddress gateway;
  gateway.family = hop.family;
  std::memcpy(gateway.bytes, hop.gateway, 16);
  return gateway;
}

std::string route_line(const Router::Route& route, const std::vector<std::string>& port_names) {
  const NextHop& hop = route.next_hop;
  const std::string prefix = route.prefix.str();
  const std::string port = port_label(hop.port, port_names);
  switch (hop.kind) {
    case NextHopKind::Local: return "local " + prefix;
    case NextHopKind::Blackhole: return "blackhole " + prefix;
    case NextHopKind::Gateway: return fmt::format("{} via {} dev {}", prefix, next_hop_gateway(hop).str(), port);
    case NextHopKind::Connected: return fmt::format("{} dev {}", prefix, port);
    case NextHopKind::Port: break;
  }
  // DPDK l3fwd's port route: a fixed destination MAC, no neighbour.
  return fmt::format("{} dev {} lladdr {:02x}", prefix, port, fmt::join(hop.mac, ":"));
}

}  // namespace gnf::nf
