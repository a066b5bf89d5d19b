// The router's tables and the one place that changes them: routes (IPv4 and IPv6 LPM), next hops,
// neighbours and the router's own addresses. The control plane (route files, netlink, the slow
// path's ARP/ND) calls it from any thread; the l3fwd NF reads the tables through L3FwdTables.
//
// GPU: device_tables() makes a copy of every table in GPU memory (sync/device_mirror.h) on first use;
// from then on each change is applied to both, the GPU's through the mirror's replay kernel, while
// kernels keep reading. The order of publication is what readers rely on (records.h, lpm4.h): next
// hops and neighbour records first, in one replay, then LPM entries and neighbour slots in the next.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sync/device_mirror.h"
#include "sync/readers.h"
#include "sync/table_log.h"
#include "nf/l3fwd/ip_address.h"
#include "nf/l3fwd/l3fwd.h"
#include "nf/tables.h"

namespace gnf::nf {

struct RouterOptions {
  uint32_t lpm4_tbl8_groups = 1u << 16;  // 64 MiB of tbl8 at most (pages are touched as used)
  uint32_t lpm6_groups = 1u << 16;
  uint32_t next_hops = 1u << 16;
  uint32_t neighbour_slots = 1u << 16;
  uint32_t neighbour_records = 1u << 18;
};

// What a route leads to, before it is a record.
struct RouteTarget {
  NextHopKind kind = NextHopKind::Gateway;
  uint16_t port = 0;
  IpAddress gateway;              // Gateway
  std::array<uint8_t, 6> mac{};   // Port
};

// The owner of l3fwd's tables (nf/tables.h).
class Router final : public NfTablesFor<L3FwdView> {
 public:
  Router(const RouterOptions& options, uint16_t ports);
  ~Router() override;

  // The router's address on a port: `address` becomes a local (to-host) host route and `network`
  // a connected route out of `port`, as Linux does for `ip addr add`.
  void add_address(uint16_t port, const IpAddress& address, const IpPrefix& network);
  void remove_address(uint16_t port, const IpAddress& address, const IpPrefix& network);
  // Adds or replaces a route. Throws gnf::UserError when a table is full (the message says which).
  void add_route(const IpPrefix& prefix, const RouteTarget& target);
  bool remove_route(const IpPrefix& prefix);
  // A permanent neighbour (the neighbours file, netlink): nothing from the link changes it. Throws
  // gnf::UserError when the table has no room even after evicting learnt neighbours.
  void set_neighbour(uint16_t port, const IpAddress& address, const std::array<uint8_t, 6>& mac);
  // A neighbour learnt from the link (ARP, ND): updates a learnt entry, and adds one only with
  // `create` (NeighbourTable::set says how room is made).
  NeighbourTable::Outcome learn_neighbour(uint16_t port, const IpAddress& address, const std::array<uint8_t, 6>& mac,
                                          bool create);
  bool remove_neighbour(uint16_t port, const IpAddress& address);

  // The port whose connected network holds `address` (for "prefix gateway" routes), if any.
  std::optional<uint16_t> connected_port(const IpAddress& address) const;
  // The router's own address on `port` of a family, if it has one (the slow path answers from it).
  std::optional<IpAddress> address_on(uint16_t port, uint8_t family) const;
  bool is_local(const IpAddress& address) const;
  // Whether `address` can be a neighbour on `port`: inside one of the port's networks, not one of
  // the router's addresses, nor the network or broadcast address of an IPv4 network of /30 or
  // shorter; IPv6 link-local addresses are on every port's link.
  bool on_link(uint16_t port, const IpAddress& address) const;
  // Whether `address` is the network or broadcast address of one of `port`'s IPv4 networks of /30
  // or shorter: not answered for in ARP even when configured as the router's (Linux answers only
  // for addresses whose route is local, and these are broadcast routes).
  bool network_or_broadcast(uint16_t port, const IpAddress& address) const;

  // Where a packet to `destination` goes: the route's next hop, and for Connected / Gateway the
  // address whose neighbour entry gives the MAC. nullopt without a route.
  struct Lookup {
    NextHopKind kind;
    uint16_t port;
    IpAddress neighbour;
  };
  std::optional<Lookup> lookup(const IpAddress& destination) const;

  // A route as `gnf ctl show route` lists it (router_routes.cpp).
  struct Route {
    IpPrefix prefix;
    NextHop next_hop;
  };
  // The route for exactly `prefix`, if there is one.
  std::optional<Route> route(const IpPrefix& prefix) const;
  // The first `limit` routes in order: IPv4 before IPv6, then by address, shorter before longer.
  // Costs a look at every route (log limit each), and memory for `limit`.
  std::vector<Route> routes(size_t limit) const;

  // Readers whose grace periods freed table groups and records wait for (sync/readers.h).
  void set_readers(sync::ReaderRegistry* readers) override;

  L3FwdTables host_tables() const;
  // GPU copies (made on first call; throws UserError without CUDA).
  L3FwdTables device_tables();
  void device_view(L3FwdView& view) override { view.tables = device_tables(); }

  struct Usage {
    uint32_t ipv4_routes, ipv6_routes, lpm4_groups, lpm6_groups, next_hops, neighbours;
    uint32_t next_hop_records, neighbour_records;  // in use, or waiting for the readers' grace period
    size_t host_bytes_touched_max, device_bytes;
  };
  Usage usage() const;
  uint16_t ports() const { return ports_; }

 private:
  uint32_t next_hop_index(const RouteTarget& target);  // existing or new record
  void route_to(uint32_t next_hop);                    // a route now points to it
  void unroute(uint32_t next_hop);                     // one less route does: freed at none
  void commit();                                      // brings the GPU copy up to date

  mutable std::mutex mutex_;
  uint16_t ports_;
  RouterOptions options_;
  Lpm4Table lpm4_;
  Lpm6Table lpm6_;
  std::vector<NextHop> next_hops_;
  std::vector<uint32_t> next_hop_routes_;  // per next hop: how many routes point to it
  std::vector<uint32_t> free_next_hops_;   // a stack; the lowest index on top first
  sync::Recycler next_hop_recycler_{free_next_hops_};  // freed next hops wait for the readers' grace
  std::map<std::array<uint8_t, sizeof(NextHop)>, uint32_t> next_hop_ids_;
  NeighbourTable neighbours_;
  struct Address {
    uint16_t port;
    IpAddress address;
    IpPrefix network;
  };
  std::vector<Address> addresses_;
  // The IPv4 sources `addresses` make martian (martian_sources.h), each once.
  static std::vector<uint32_t> martian_sources_of(const std::vector<Address>& addresses);
  MartianSources martian_sources_;

  std::unique_ptr<sync::DeviceMirror> mirror_;
  sync::TableLog records_log_;  // replayed first: next hops and neighbour records
  sync::TableLog entries_log_;  // then: LPM entries and neighbour slots
  uint32_t next_hop_region_ = 0;
  L3FwdTables device_tables_{};
};

// A port as the lines below name it: port_names[port], or "portN" past their end.
std::string port_label(uint16_t port, const std::vector<std::string>& port_names);
// A gateway next hop's gateway as an address.
IpAddress next_hop_gateway(const NextHop& hop);

// Where a packet to `destination` goes, in one line as `ip route get` says it, ports named by
// `port_names`: "ADDR via GATEWAY dev PORT", "ADDR dev PORT" (a connected network, or a DPDK-style
// port route), "local ADDR" (the router's own), "blackhole ADDR", or "unreachable ADDR" (no route).
std::string route_get_line(const Router& router, const IpAddress& destination,
                           const std::vector<std::string>& port_names);

// A route in one line as `ip route` lists it: "PREFIX via GATEWAY dev PORT", "PREFIX dev PORT",
// "local PREFIX", "blackhole PREFIX".
std::string route_line(const Router::Route& route, const std::vector<std::string>& port_names);

}  // namespace gnf::nf
