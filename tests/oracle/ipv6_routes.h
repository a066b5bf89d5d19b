// IPv6 addresses as 128-bit numbers, and a synthetic BGP-shaped IPv6 table, for the lpm6 tests: the
// rte_fib6 oracle checks lpm6 on this table, and the GPU test reuses it. (Host code only: unsigned
// __int128 is a GCC/Clang extension.)
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace gnf::oracle {

using U128 = unsigned __int128;
using Ipv6Bytes = std::array<uint8_t, 16>;  // network order

inline Ipv6Bytes bytes_of(U128 a) {
  Ipv6Bytes b;
  for (int i = 15; i >= 0; --i, a >>= 8) b[i] = uint8_t(a);
  return b;
}

inline U128 value_of(const Ipv6Bytes& b) {
  U128 a = 0;
  for (uint8_t x : b) a = a << 8 | x;
  return a;
}

// The host bits of a /depth: the address bits the route leaves free.
inline U128 host_mask(int depth) { return depth == 0 ? ~U128(0) : depth == 128 ? 0 : ~U128(0) >> depth; }

struct Route6 {
  U128 prefix;
  uint8_t depth;
  uint32_t next_hop;
};

// `count` unique routes shaped like a BGP table (the RouteViews IPv6 table of 2015: mostly /48 and
// /32): a quarter RIR allocations (/32, some /29../31) anywhere in 2000::/3; seven tenths
// assignments, nine in ten under an allocation: /48 mostly, /33../47, some /64 and /128; a few
// routes /16../28. Next hop = index + 1. The same `seed` gives the same table.
inline std::vector<Route6> synthetic_bgp6_routes(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const U128 global_unicast = U128(1) << 125;  // 2000::/3
  // A random /longer inside prefix/depth.
  auto under = [&](U128 prefix, int depth, uint8_t longer) {
    const uint64_t hi = rng(), lo = rng();  // in this order: an expression's calls have none
    const U128 random = U128(hi) << 64 | lo;
    return (prefix | (random & host_mask(depth))) & ~host_mask(longer);
  };
  auto assignment_depth = [&](uint32_t r) {
    if (r < 700) return uint8_t(48);
    if (r < 900) return uint8_t(33 + rng() % 15);
    return uint8_t(r < 960 ? 64 : 128);
  };
  std::vector<std::pair<U128, uint8_t>> allocations;
  std::set<std::pair<U128, uint8_t>> seen;
  std::vector<Route6> routes;
  while (routes.size() < count) {
    const uint32_t r = rng() % 1000;
    U128 prefix;
    uint8_t depth;
    if (r < 250 || allocations.empty()) {
      depth = rng() % 100 < 85 ? 32 : uint8_t(29 + rng() % 3);
      prefix = under(global_unicast, 3, depth);
      allocations.emplace_back(prefix, depth);
    } else if (r < 990) {
      depth = assignment_depth(r);
      const auto& [alloc, alloc_depth] = allocations[rng() % allocations.size()];
      prefix = rng() % 10 == 0 ? under(global_unicast, 3, depth) : under(alloc, alloc_depth, depth);
    } else {
      depth = uint8_t(16 + rng() % 13);
      prefix = under(global_unicast, 3, depth);
    }
    if (seen.insert({prefix, depth}).second) routes.push_back(Route6{prefix, depth, uint32_t(routes.size()) + 1});
  }
  return routes;
}

// The tbl8 groups a trie table (lpm6, rte_fib6) can need for `routes` at most: ceil((depth - 24) / 8)
// per route, as if none were shared; capped at `limit`.
inline uint32_t tbl8_groups_bound(const std::vector<Route6>& routes, uint32_t limit) {
  uint64_t groups = 0;
  for (const Route6& r : routes) groups += r.depth > 24 ? (r.depth - 24 + 7) / 8 : 0;
  return uint32_t(std::min<uint64_t>(groups, limit));
}

}  // namespace gnf::oracle
