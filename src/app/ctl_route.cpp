// `gnf ctl show route | route add | route del`: the router's routes at run time, changed through
// the Router's own functions, as the route file and netlink change them (nf/l3fwd/router.h).
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "app/ctl_actions.h"
#include "nf/l3fwd/route_file.h"
#include "nf/l3fwd/router.h"
#include "util/error.h"

namespace gnf::app {

namespace {

// `show route` lists this many routes at most; a prefix or an address asks for one.
constexpr size_t kShowRoutesMax = 256;

// A prefix as the route file takes it (nf::parse_network).
nf::IpPrefix parse_prefix(const std::string& text) {
  std::string problem;
  const std::optional<nf::IpPrefix> prefix = nf::parse_network(text, ctl_printable(text), false, problem);
  if (!prefix) throw UserError(problem);
  return *prefix;
}

uint16_t parse_port_number(const std::string& text) {
  unsigned port = 0;
  const char* end = text.data() + text.size();
  auto [at, error] = std::from_chars(text.data(), end, port);
  if (error != std::errc() || at != end || text.empty() || port > 0xffff)
    throw UserError(fmt::format("'{}' is not a port number", ctl_printable(text)));
  return uint16_t(port);
}

// route add's arguments: PREFIX (via GATEWAY [port N] | port N | blackhole).
struct RouteSpec {
  nf::IpPrefix prefix;
  nf::NextHopKind kind = nf::NextHopKind::Gateway;
  nf::IpAddress gateway;
  std::optional<uint16_t> port;
};

RouteSpec parse_route_add(const std::vector<std::string>& args) {
  if (args.empty()) throw UserError("no prefix");
  RouteSpec spec;
  spec.prefix = parse_prefix(args[0]);
  const size_t n = args.size();
  if (n == 2 && args[1] == "blackhole") {
    spec.kind = nf::NextHopKind::Blackhole;
  } else if (n == 3 && args[1] == "port") {
    spec.kind = nf::NextHopKind::Port;
    spec.port = parse_port_number(args[2]);
  } else if ((n == 3 || (n == 5 && args[3] == "port")) && args[1] == "via") {
    auto gateway = nf::parse_ip_address(args[2]);
    if (!gateway || gateway->family != spec.prefix.address.family)
      throw UserError(fmt::format("'{}' is not an IPv{} gateway address", ctl_printable(args[2]), spec.prefix.address.family));
    spec.gateway = *gateway;
    if (n == 5) spec.port = parse_port_number(args[4]);
  } else {
    throw UserError("after the prefix: via GATEWAY [port N], port N, or blackhole");
  }
  return spec;
}

// The router the route commands change: the chain's first l3fwd's, as the slow path's and netlink's.
nf::Router& router_of(const CtlTarget& target) {
  for (const CtlTarget::Nf& nf : target.nfs)
    if (auto* router = dynamic_cast<nf::Router*>(nf.tables)) return *router;
  throw UserError("the NF chain has no l3fwd: there is no router to ask");
}

const char* kind_name(nf::NextHopKind kind) {
  switch (kind) {
    case nf::NextHopKind::Local: return "local";
    case nf::NextHopKind::Connected: return "connected";
    case nf::NextHopKind::Gateway: return "gateway";
    case nf::NextHopKind::Port: return "port";
    case nf::NextHopKind::Blackhole: return "blackhole";
  }
  return "?";
}

nlohmann::json route_json(const nf::Router::Route& route, const CtlTarget& target) {
  const nf::NextHop& hop = route.next_hop;
  nlohmann::json out = {{"prefix", route.prefix.str()}, {"type", kind_name(hop.kind)}};
  if (hop.kind != nf::NextHopKind::Local && hop.kind != nf::NextHopKind::Blackhole)
    out["port"] = nf::port_label(hop.port, target.port_names);
  if (hop.kind == nf::NextHopKind::Gateway) out["via"] = nf::next_hop_gateway(hop).str();
  out["line"] = nf::route_line(route, target.port_names);
  return out;
}

nlohmann::json answer(nlohmann::json json, std::string text) { return {{"json", std::move(json)}, {"text", std::move(text)}}; }

nlohmann::json show_routes(const nf::Router& router, const CtlTarget& target) {
  const nf::Router::Usage usage = router.usage();
  nlohmann::json routes = nlohmann::json::array();
  std::string text;
  for (const nf::Router::Route& route : router.routes(kShowRoutesMax)) {
    routes.push_back(route_json(route, target));
    text += routes.back()["line"].get<std::string>() + "\n";
  }
  const uint64_t all = uint64_t(usage.ipv4_routes) + usage.ipv6_routes;
  const uint64_t more = all > routes.size() ? all - routes.size() : 0;
  if (more) text += fmt::format("... and {} more (show route PREFIX or ADDRESS asks for one)\n", more);
  return answer({{"ipv4_routes", usage.ipv4_routes}, {"ipv6_routes", usage.ipv6_routes}, {"routes", routes}, {"more", more}},
                text);
}

nlohmann::json show_route(const nf::Router& router, const CtlTarget& target, const std::string& what) {
  if (what.find('/') != std::string::npos) {
    const nf::IpPrefix prefix = parse_prefix(what);
    const std::optional<nf::Router::Route> route = router.route(prefix);
    if (!route) return answer({{"prefix", prefix.str()}, {"found", false}}, "no route " + prefix.str() + "\n");
    return answer({{"prefix", prefix.str()}, {"found", true}, {"route", route_json(*route, target)}},
                  nf::route_line(*route, target.port_names) + "\n");
  }
  const nf::IpAddress destination = *nf::parse_ip_address(what);
  const std::string line = nf::route_get_line(router, destination, target.port_names);
  nlohmann::json json = {{"destination", destination.str()}, {"line", line}};
  if (const std::optional<nf::Router::Lookup> hop = router.lookup(destination)) {
    json["type"] = kind_name(hop->kind);
    if (hop->kind != nf::NextHopKind::Local && hop->kind != nf::NextHopKind::Blackhole)
      json["port"] = nf::port_label(hop->port, target.port_names);
    if (hop->kind == nf::NextHopKind::Gateway) json["via"] = hop->neighbour.str();
  } else {
    json["type"] = "unreachable";
  }
  return answer(json, line + "\n");
}

// Routes a namespace's kernel tables give (ctl/netlink_sync.h) are that namespace's to change.
void check_routes_are_ours(const CtlTarget& target) {
  if (!target.netlink_netns.empty())
    throw UserError(fmt::format("the routes come from netlink (namespace {}): change them there with ip route",
                                target.netlink_netns));
}

nlohmann::json add_route(nf::Router& router, const CtlTarget& target, const std::vector<std::string>& args) {
  check_routes_are_ours(target);
  const RouteSpec spec = parse_route_add(args);
  nf::RouteTarget to;
  to.kind = spec.kind;
  if (spec.kind != nf::NextHopKind::Blackhole) {
    if (spec.port && *spec.port >= router.ports())
      throw UserError(fmt::format("port {} is none: the ports are 0..{}", *spec.port, router.ports() - 1));
    if (spec.kind == nf::NextHopKind::Gateway) {
      to.gateway = spec.gateway;
      const std::optional<uint16_t> port = spec.port ? spec.port : router.connected_port(spec.gateway);
      if (!port)
        throw UserError(fmt::format("{} is in none of the ports' networks; name the port (via {} port N)",
                                    spec.gateway.str(), spec.gateway.str()));
      to.port = *port;
    } else {
      to.port = *spec.port;
      to.mac = nf::port_route_mac(to.port);
    }
  }
  const bool replaced = router.route(spec.prefix).has_value();
  router.add_route(spec.prefix, to);  // throws UserError when a table is full
  const nf::Router::Route route = *router.route(spec.prefix);
  return answer({{"added", route_json(route, target)}, {"replaced", replaced}},
                fmt::format("{} {}\n", replaced ? "replaced" : "added", nf::route_line(route, target.port_names)));
}

nlohmann::json remove_route(nf::Router& router, const CtlTarget& target, const std::string& text) {
  check_routes_are_ours(target);
  const nf::IpPrefix prefix = parse_prefix(text);
  const std::optional<nf::Router::Route> route = router.route(prefix);
  if (!route || !router.remove_route(prefix))
    throw UserError(fmt::format("no route {} (show route lists the routes)", prefix.str()));
  return answer({{"removed", route_json(*route, target)}},
                fmt::format("removed {}\n", nf::route_line(*route, target.port_names)));
}

}  // namespace

void check_route_args(CtlCommand command, const std::vector<std::string>& args) {
  switch (command) {
    case CtlCommand::ShowRoute:
      if (args.size() > 1) throw UserError("one address or prefix at most");
      if (args.size() == 1 && args[0].find('/') != std::string::npos) parse_prefix(args[0]);
      else if (args.size() == 1 && !nf::parse_ip_address(args[0]))
        throw UserError(fmt::format("'{}' is no IPv4 or IPv6 address, nor a prefix", ctl_printable(args[0])));
      break;
    case CtlCommand::RouteAdd: parse_route_add(args); break;
    default:
      if (args.size() != 1) throw UserError("one prefix");
      parse_prefix(args[0]);
  }
}

nlohmann::json answer_route(const CtlRequest& request, const CtlTarget& target) {
  nf::Router& router = router_of(target);
  switch (request.command) {
    case CtlCommand::ShowRoute:
      return request.args.empty() ? show_routes(router, target) : show_route(router, target, request.args[0]);
    case CtlCommand::RouteAdd: return add_route(router, target, request.args);
    default: return remove_route(router, target, request.args[0]);
  }
}

}  // namespace gnf::app
