// A synthetic BGP-shaped IPv4 table of any size, for the lookup benchmark (bench/lookup/): the
// issue asks for >= 1 M routes, twice the RouteViews table of 2014 that python3-pyasn ships.
// (Host code only.)
#pragma once
#include <array>
#include <cstdint>
#include <random>
#include <unordered_set>
#include <vector>

namespace gnf::oracle {

struct Route4 {
  uint32_t prefix;  // host order: 10.0.0.0 is 0x0a000000
  uint8_t depth;
  uint32_t next_hop;
};

// The host bits of a /depth: the address bits the route leaves free.
inline uint32_t host_mask4(int depth) { return depth == 0 ? ~0u : depth == 32 ? 0u : ~0u >> depth; }

// `count` unique routes with the depth mix of the RouteViews table of 2014-05-13 (ipasn_20140513:
// 53 % /24, 28 % /20../23, 11 % /16../19, 0.7 % /8../15, 0.7 % longer than /24). Routes of /16 and
// shorter lie anywhere in 1.0.0.0 .. 223.255.255.255; nine in ten longer ones lie inside one of
// them, as assignments inside allocations do. Next hop = index + 1. The same `seed` gives the same
// table.
inline std::vector<Route4> synthetic_bgp4_routes(size_t count, uint64_t seed) {
  // Routes per depth in the 2014 table, /8 .. /32.
  static constexpr std::array<uint32_t, 25> kDepthCounts = {
      16,    12,    30,    90,     259, 487,  974, 1726, 13017, 7050, 11917, 24936, 35828,
      37624, 57782, 47385, 270023, 918, 1060, 537, 138,  292,   331,  20,    169};
  std::mt19937_64 rng(seed);
  std::discrete_distribution<int> depth_of(kDepthCounts.begin(), kDepthCounts.end());
  auto anywhere = [&](uint8_t depth) {
    const uint32_t first_octet = 1 + uint32_t(rng() % 223);
    return (first_octet << 24 | (uint32_t(rng()) & 0x00ffffffu)) & ~host_mask4(depth);
  };
  std::vector<uint32_t> allocations;  // indexes of the routes of /16 and shorter
  std::unordered_set<uint64_t> seen;
  std::vector<Route4> routes;
  routes.reserve(count);
  while (routes.size() < count) {
    const uint8_t depth = uint8_t(8 + depth_of(rng));
    uint32_t prefix;
    if (depth <= 16 || allocations.empty() || rng() % 10 == 0) {
      prefix = anywhere(depth);
    } else {
      const Route4& a = routes[allocations[rng() % allocations.size()]];
      prefix = (a.prefix | (uint32_t(rng()) & host_mask4(a.depth))) & ~host_mask4(depth);
    }
    if (!seen.insert(uint64_t(prefix) << 8 | depth).second) continue;
    if (depth <= 16) allocations.push_back(uint32_t(routes.size()));
    routes.push_back(Route4{prefix, depth, uint32_t(routes.size()) + 1});
  }
  return routes;
}

}  // namespace gnf::oracle
