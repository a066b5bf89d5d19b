// Oracle: gnf's Lpm4Table (nf/l3fwd/lpm4.h) against DPDK's rte_lpm, on a real Internet routing table
// (RouteViews, 2014-05-13, ~512k IPv4 prefixes, as shipped by Debian's python3-pyasn).
//
// rte_lpm keeps its rules in one array per depth and searches it linearly on every add and delete,
// so 270k /24s would take it minutes: the routes go to kShards rte_lpm tables by their first octet
// (every route here is /8 or longer, so each lies within one octet's shard, and a lookup asks the
// shard of its address's first octet: the same answer one big rte_lpm would give, each shard a
// plain rte_lpm).
//
// Both tables get the same routes (next hop = the route's line number in the file, so every route
// answers with its own id); then every route's first, middle and last address, the addresses just
// outside it, and 10 M random addresses must get the same answer from both. The same again after a
// quarter of the routes are removed and after half of those come back with new next hops.
//
// Usage: lpm4_vs_rte_lpm ROUTES.dat.gz [random_addresses]
// Exit: 0 all agree, 1 a mismatch or a bad input, 77 (CTest's SKIP_RETURN_CODE) DPDK's EAL could not
// start here (printed with DPDK's reason).
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lpm.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "eal.h"
#include "nf/l3fwd/lpm4.h"
#include "pyasn_routes.h"

using gnf::nf::Lpm4Table;

namespace {

struct Route {
  uint32_t prefix;
  uint8_t depth;
  uint32_t next_hop;
};

std::vector<Route> read_routes(const char* path) {
  std::vector<Route> routes;
  for (const auto& r : gnf::oracle::read_pyasn_routes(path, AF_INET)) {
    const auto& b = r.prefix;
    routes.push_back(Route{uint32_t(b[0]) << 24 | b[1] << 16 | b[2] << 8 | b[3], r.depth, r.line});
  }
  return routes;
}

constexpr int kShards = 8;
int shard(uint32_t addr) { return int(addr >> 24) % kShards; }

uint32_t last_address(const Route& r) { return r.prefix | (r.depth == 0 ? ~0u : ~(~0u << (32 - r.depth))); }

// Compares both tables on every route's edges (all routes, removed ones too) and `random` addresses.
// Returns the number of addresses compared; prints and counts mismatches.
uint64_t compare(rte_lpm* const* lpm, const Lpm4Table& table, const std::vector<Route>& routes, uint64_t random,
                 std::mt19937_64& rng, uint64_t& mismatches) {
  gnf::nf::Lpm4View view = table.view();
  uint64_t compared = 0;
  auto one = [&](uint32_t addr) {
    uint32_t theirs = 0, ours = 0;
    bool their_hit = rte_lpm_lookup(lpm[shard(addr)], addr, &theirs) == 0;
    bool our_hit = gnf::nf::lpm4_lookup(view, addr, ours);
    ++compared;
    if (their_hit != our_hit || (our_hit && theirs != ours)) {
      if (++mismatches <= 10) {
        printf("MISMATCH %u.%u.%u.%u: rte_lpm %s %u, lpm4 %s %u\n", addr >> 24, addr >> 16 & 0xff, addr >> 8 & 0xff,
               addr & 0xff, their_hit ? "hit" : "miss", theirs, our_hit ? "hit" : "miss", ours);
      }
    }
  };
  for (const Route& r : routes) {
    uint32_t last = last_address(r);
    for (uint32_t a : {r.prefix, last, r.prefix - 1, last + 1, r.prefix + (last - r.prefix) / 2}) one(a);
  }
  for (uint64_t i = 0; i < random; ++i) one(uint32_t(rng()));
  return compared;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s ROUTES.dat.gz [random_addresses]\n", argv[0]);
    return 1;
  }
  uint64_t random = argc > 2 ? std::stoull(argv[2]) : 10'000'000;
  auto start = std::chrono::steady_clock::now();
  std::vector<Route> routes;
  try {
    routes = read_routes(argv[1]);
  } catch (const std::exception& e) {
    fprintf(stderr, "lpm4_vs_rte_lpm: %s\n", e.what());
    return 1;
  }

  if (!gnf::oracle::start_eal("lpm4_vs_rte_lpm", "1024")) return 77;

  const uint32_t tbl8_groups = 4096;  // the table has ~2k /24s holding routes longer than /24
  rte_lpm* lpm[kShards];
  for (int s = 0; s < kShards; ++s) {
    rte_lpm_config config{};
    config.max_rules = uint32_t(routes.size()) + 1024;
    config.number_tbl8s = tbl8_groups;
    lpm[s] = rte_lpm_create(("lpm4_oracle" + std::to_string(s)).c_str(), SOCKET_ID_ANY, &config);
    if (!lpm[s]) {
      printf("lpm4_vs_rte_lpm: rte_lpm_create failed: %s\n", rte_strerror(rte_errno));
      return 1;
    }
  }
  Lpm4Table table(tbl8_groups);
  for (const Route& r : routes) {
    if (r.depth < 8) {
      printf("lpm4_vs_rte_lpm: route %u is shorter than /8: the shards by first octet do not hold it\n", r.next_hop);
      return 1;
    }
    if (rte_lpm_add(lpm[shard(r.prefix)], r.prefix, r.depth, r.next_hop) != 0) {
      printf("lpm4_vs_rte_lpm: rte_lpm_add of route %u failed\n", r.next_hop);
      return 1;
    }
    table.add(r.prefix, r.depth, r.next_hop);
  }

  std::mt19937_64 rng(20140513);
  uint64_t compared = 0, mismatches = 0;
  compared += compare(lpm, table, routes, random, rng, mismatches);
  uint32_t groups_full = table.tbl8_groups_used();

  // Remove a quarter of the routes, chosen at random, from both; then put half of those back with
  // new next hops.
  std::vector<size_t> order(routes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  size_t removed = order.size() / 4;
  for (size_t k = 0; k < removed; ++k) {
    const Route& r = routes[order[k]];
    bool theirs = rte_lpm_delete(lpm[shard(r.prefix)], r.prefix, r.depth) == 0;
    bool ours = table.remove(r.prefix, r.depth);
    if (theirs != ours) {
      printf("MISMATCH removing route %u: rte_lpm %d, lpm4 %d\n", r.next_hop, theirs, ours);
      ++mismatches;
    }
  }
  compared += compare(lpm, table, routes, random / 4, rng, mismatches);
  for (size_t k = 0; k < removed / 2; ++k) {
    Route& r = routes[order[k]];
    r.next_hop += uint32_t(routes.size());
    rte_lpm_add(lpm[shard(r.prefix)], r.prefix, r.depth, r.next_hop);
    table.add(r.prefix, r.depth, r.next_hop);
  }
  compared += compare(lpm, table, routes, random / 4, rng, mismatches);

  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printf("lpm4_vs_rte_lpm: %zu routes (%u tbl8 groups), %zu removed, %zu re-added; %llu addresses compared, "
         "%llu mismatches (%.1f s)\n",
         routes.size(), groups_full, removed, removed / 2, (unsigned long long)compared,
         (unsigned long long)mismatches, seconds);
  for (rte_lpm* l : lpm) rte_lpm_free(l);
  rte_eal_cleanup();
  return mismatches == 0 ? 0 : 1;
}
