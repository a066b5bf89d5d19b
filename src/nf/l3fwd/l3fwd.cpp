#include "nf/l3fwd/l3fwd.h"

#include <cstring>

#include "nf/l3fwd/route_file.h"
#include "util/error.h"
#include "util/files.h"
#include "util/memory_budget.h"

#include <fmt/format.h>

namespace gnf::nf {

std::unique_ptr<Router> configure_l3fwd(const Params& params, const NfContext& context, L3FwdView& view) {
  RouterOptions options;
  options.lpm4_tbl8_groups = uint32_t(params.get_int("lpm4_groups", options.lpm4_tbl8_groups, 1, 1 << 24));
  options.lpm6_groups = uint32_t(params.get_int("lpm6_groups", options.lpm6_groups, 1, 1 << 24));
  options.next_hops = uint32_t(params.get_int("next_hops", options.next_hops, 1, 1 << 24));
  const std::string routes = params.get_path("routes");
  const std::string neighbours = params.get_path("neighbours");
  view = L3FwdView{};
  view.check_dst_mac = params.get_bool("check_dst_mac", true);
  params.reject_unknown();
  // The tables are allocated whole (DPDK's rte_lpm does the same): checked before they are.
  const struct {
    const char* key;
    uint32_t groups;
    uint64_t group_bytes;
  } tables[] = {
      {"lpm4_groups", options.lpm4_tbl8_groups, kLpm4GroupEntries * sizeof(uint32_t)},
      {"lpm6_groups", options.lpm6_groups, kLpm6GroupEntries * (sizeof(uint32_t) + 1)},  // entry + depth
  };
  for (const auto& t : tables)
    if (std::string problem = memory_problem(t.groups * t.group_bytes, fmt::format("{} groups", t.groups));
        !problem.empty())
      params.fail(t.key, problem);
  for (const char* key : {"neighbours", "routes"}) {
    try {
      if (const std::string file = params.get_path(key); !file.empty()) check_input_file(file);
    } catch (const UserError& e) {
      params.fail(key, e.what());
    }
  }

  auto router = std::make_unique<Router>(options, context.ports);
  for (const NfContext::PortAddress& a : context.addresses) router->add_address(a.port, a.address, a.network);
  if (!neighbours.empty()) load_neighbour_file(neighbours, *router);
  if (!routes.empty()) load_route_file(routes, *router);

  view.tables = router->host_tables();
  view.ports = context.ports;
  for (uint16_t port = 0; port < kMaxPorts; ++port) view.mtu[port] = context.port_mtu[port];
  for (uint16_t port = 0; port < kMaxPorts; ++port) std::memcpy(view.port_mac[port], context.port_macs[port].data(), 6);
  return router;
}

}  // namespace gnf::nf
