// The routing tables and the address sets the lookups run over: RouteViews tables from pyasn's
// files (tests/oracle/pyasn_routes.h) or synthetic BGP-shaped ones from a seed
// (tests/oracle/ipv4_routes.h, ipv6_routes.h); uniform, routed or working-set addresses.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ipv4_routes.h"
#include "ipv6_routes.h"

namespace gnf::lookup_bench {

struct Options;

struct Table4 {
  std::string source;  // the file, or "synthetic (N routes, seed S)"
  std::vector<oracle::Route4> routes;
};
struct Table6 {
  std::string source;
  std::vector<oracle::Route6> routes;
};

// spec: a pyasn file (next hop = the route's line number), or "synthetic:N" (N may end in k or M;
// next hop = index + 1). Throws gnf::UserError on a bad spec or file.
Table4 load_ipv4_table(const std::string& spec, uint64_t seed);
Table6 load_ipv6_table(const std::string& spec, uint64_t seed);

// The address sets (o.count addresses each):
//   uniform      every address equally likely (IPv6: mostly outside every route)
//   routed       inside a route drawn at random: every lookup finds a route, as a router's traffic
//   working-set  o.working_set addresses drawn as `routed`, repeated: lookups stay in the caches
// Throws gnf::UserError for another name.
std::vector<uint32_t> ipv4_addresses(const std::string& set, const std::vector<oracle::Route4>& routes,
                                     const Options& o);
std::vector<oracle::Ipv6Bytes> ipv6_addresses(const std::string& set, const std::vector<oracle::Route6>& routes,
                                              const Options& o);
// How many distinct addresses a set has (o.working_set for working-set, else o.count).
uint64_t distinct_addresses(const std::string& set, const Options& o);

}  // namespace gnf::lookup_bench
