// Oracle: gnf's Lpm6Table (nf/l3fwd/lpm6.h) against DPDK's rte_fib6 (TRIE, the layout lpm6 copies),
// in two passes:
//   - a real Internet routing table: the IPv6 routes of RouteViews, 2015-11-01 (~27.7k prefixes, as
//     shipped by Debian's python3-pyasn), next hop = the route's line number in the file;
//   - a synthetic BGP-shaped table of 220k routes from a fixed seed, to exercise the size the
//     issue asks for: RIR allocations (/29../32) under 2000::/3, assignments under them (mostly /48,
//     some /33../47), some /64 and /128, a few short routes; next hop = the route's index + 1.
// Each pass loads both tables with the same routes; then every route's first, middle and last
// address, the addresses just outside it, and N random addresses (half anywhere, half inside a
// random route, so that most hit) must get the same answer from both. The same again after a quarter
// of the routes are removed, and after half of those come back with new next hops while as many of
// the routes that stayed get a new next hop in place.
//
// Usage: lpm6_vs_rte_fib6 ROUTES.dat.gz [random_addresses]
// Exit: 0 all agree, 1 a mismatch or a bad input, 77 (CTest's SKIP_RETURN_CODE) DPDK's EAL could not
// start here (printed with DPDK's reason).
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_fib6.h>
#include <rte_memory.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "nf/l3fwd/lpm6.h"
#include "pyasn_routes.h"

using gnf::nf::Lpm6Table;

namespace {

using U128 = unsigned __int128;
using Bytes = std::array<uint8_t, 16>;

Bytes bytes_of(U128 a) {
  Bytes b;
  for (int i = 15; i >= 0; --i, a >>= 8) b[i] = uint8_t(a);
  return b;
}

U128 value_of(const Bytes& b) {
  U128 a = 0;
  for (uint8_t x : b) a = a << 8 | x;
  return a;
}

U128 host_mask(int depth) { return depth == 0 ? ~U128(0) : depth == 128 ? 0 : ~U128(0) >> depth; }

struct Route {
  U128 prefix;
  uint8_t depth;
  uint32_t next_hop;
};

// rte_fib6 answers its default next hop where no route covers an address: 0 here, which no route
// has (line numbers and indexes count from 1).
constexpr uint64_t kNoRoute = 0;
// Removed routes come back with next hop + this: distinct from every original next hop, and below
// lpm6's limit of 2^24.
constexpr uint32_t kReAddedOffset = 1u << 23;

std::vector<Route> real_routes(const char* path) {
  std::vector<Route> routes;
  for (const auto& r : gnf::oracle::read_pyasn_routes(path, AF_INET6)) {
    routes.push_back(Route{value_of(r.prefix), r.depth, r.line});
  }
  return routes;
}

// The synthetic table (see the top of the file). Unique prefixes; order as generated.
std::vector<Route> synthetic_routes(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto random_u128 = [&] { return U128(rng()) << 64 | rng(); };
  const U128 global_unicast = U128(1) << 125;  // 2000::/3
  std::vector<std::pair<U128, uint8_t>> allocations;
  std::set<std::pair<U128, uint8_t>> seen;
  std::vector<Route> routes;
  auto under = [&](U128 prefix, uint8_t depth, uint8_t longer) {
    return (prefix | (random_u128() & host_mask(depth))) & ~host_mask(longer);
  };
  while (routes.size() < count) {
    const uint32_t r = rng() % 1000;
    U128 prefix;
    uint8_t depth;
    if (r < 250 || allocations.empty()) {
      depth = rng() % 100 < 85 ? 32 : uint8_t(29 + rng() % 3);
      prefix = under(global_unicast, 3, depth);
      allocations.emplace_back(prefix, depth);
    } else if (r < 990) {
      if (r < 700)
        depth = 48;
      else if (r < 900)
        depth = uint8_t(33 + rng() % 15);
      else if (r < 960)
        depth = 64;
      else
        depth = 128;
      const auto& [alloc, alloc_depth] = allocations[rng() % allocations.size()];
      prefix = rng() % 10 == 0 ? under(global_unicast, 3, depth) : under(alloc, alloc_depth, depth);
    } else {
      depth = uint8_t(16 + rng() % 13);
      prefix = under(global_unicast, 3, depth);
    }
    if (seen.insert({prefix, depth}).second) routes.push_back(Route{prefix, depth, uint32_t(routes.size()) + 1});
  }
  return routes;
}

// Groups either table can need at most: ceil((depth - 24) / 8) per route, none shared.
uint32_t groups_bound(const std::vector<Route>& routes) {
  uint64_t groups = 0;
  for (const Route& r : routes) groups += r.depth > 24 ? (r.depth - 24 + 7) / 8 : 0;
  return uint32_t(std::min<uint64_t>(groups + 1024, gnf::nf::kLpm6MaxTbl8Groups));
}

class Comparison {
 public:
  Comparison(rte_fib6* fib, const Lpm6Table& table) : fib_(fib), view_(table.view()) {}

  void address(U128 addr) {
    memcpy(batch_[size_], bytes_of(addr).data(), 16);
    if (++size_ == kBatch) flush();
  }

  // Compares the addresses still waiting.
  void flush() {
    uint64_t theirs[kBatch];
    rte_fib6_lookup_bulk(fib_, batch_, theirs, int(size_));
    for (uint32_t i = 0; i < size_; ++i) {
      uint32_t hop = 0;
      const uint64_t ours = gnf::nf::lpm6_lookup(view_, batch_[i], hop) ? hop : kNoRoute;
      routed_ += theirs[i] != kNoRoute;
      if (ours != theirs[i] && ++mismatches_ <= 10) {
        char text[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, batch_[i], text, sizeof text);
        printf("MISMATCH %s: rte_fib6 %llu, lpm6 %llu (0: no route)\n", text, (unsigned long long)theirs[i],
               (unsigned long long)ours);
      }
    }
    compared_ += size_;
    size_ = 0;
  }

  uint64_t compared() const { return compared_; }
  uint64_t routed() const { return routed_; }
  uint64_t mismatches() const { return mismatches_; }

 private:
  static constexpr uint32_t kBatch = 256;
  rte_fib6* fib_;
  gnf::nf::Lpm6View view_;
  uint8_t batch_[kBatch][16];
  uint32_t size_ = 0;
  uint64_t compared_ = 0, routed_ = 0, mismatches_ = 0;
};

// Compares both tables on every route's edges (all routes, removed ones too) and `random` addresses.
void compare(Comparison& c, const std::vector<Route>& routes, uint64_t random, std::mt19937_64& rng) {
  for (const Route& r : routes) {
    const U128 last = r.prefix | host_mask(r.depth);
    for (U128 a : {r.prefix, last, r.prefix - 1, last + 1, r.prefix + (last - r.prefix) / 2}) c.address(a);
  }
  for (uint64_t i = 0; i < random; ++i) {
    const U128 anywhere = U128(rng()) << 64 | rng();
    if (i % 2 == 0) {
      c.address(anywhere);
    } else {
      const Route& r = routes[rng() % routes.size()];
      c.address(r.prefix | (anywhere & host_mask(r.depth)));
    }
  }
  c.flush();
}

// Adds (or replaces) r in both tables. rte_fib6 refusing it is a failure of the set-up, not a
// mismatch: printed, and false.
bool add_both(rte_fib6* fib, Lpm6Table& table, const Route& r, const char* name) {
  const Bytes prefix = bytes_of(r.prefix);
  if (int rc = rte_fib6_add(fib, prefix.data(), r.depth, r.next_hop); rc != 0) {
    printf("lpm6_vs_rte_fib6: %s: rte_fib6_add of route %u failed: %s\n", name, r.next_hop, rte_strerror(-rc));
    return false;
  }
  table.add(prefix.data(), r.depth, r.next_hop);
  return true;
}

// One pass: load, compare; remove a quarter, compare; re-add half of those and replace the next hop
// of as many routes that stayed, compare. Returns the mismatches (of lookups or of remove results);
// -1 when rte_fib6 could not be made or refused a route.
int64_t run_pass(const char* name, std::vector<Route> routes, uint64_t random, uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  const uint32_t groups = groups_bound(routes);
  rte_fib6_conf config{};
  config.type = RTE_FIB6_TRIE;
  config.default_nh = kNoRoute;
  config.max_routes = int(routes.size()) + 1024;
  config.trie.nh_sz = RTE_FIB6_TRIE_4B;
  config.trie.num_tbl8 = groups;
  rte_fib6* fib = rte_fib6_create(name, SOCKET_ID_ANY, &config);
  if (!fib) {
    printf("lpm6_vs_rte_fib6: %s: rte_fib6_create (%u tbl8 groups) failed: %s\n", name, groups,
           rte_strerror(rte_errno));
    return -1;
  }
  Lpm6Table table(groups);
  auto fail = [&] {
    rte_fib6_free(fib);
    return -1;
  };
  for (const Route& r : routes) {
    if (!add_both(fib, table, r, name)) return fail();
  }

  std::mt19937_64 rng(seed);
  Comparison c(fib, table);
  compare(c, routes, random, rng);
  const uint32_t groups_full = table.tbl8_groups_used();

  // Remove a quarter of the routes, chosen at random, from both.
  std::vector<size_t> order(routes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  const size_t removed = order.size() / 4;
  uint64_t remove_mismatches = 0;
  for (size_t k = 0; k < removed; ++k) {
    const Route& r = routes[order[k]];
    const Bytes prefix = bytes_of(r.prefix);
    const bool theirs = rte_fib6_delete(fib, prefix.data(), r.depth) == 0;
    const bool ours = table.remove(prefix.data(), r.depth);
    if (theirs != ours && ++remove_mismatches <= 10) {
      printf("MISMATCH removing route %u: rte_fib6 %d, lpm6 %d\n", r.next_hop, theirs, ours);
    }
  }
  const uint32_t groups_removed = table.tbl8_groups_used();
  compare(c, routes, random / 4, rng);

  // Put half of the removed routes back, and replace the next hop of as many that stayed: both with
  // new next hops.
  const size_t re_added = removed / 2;
  for (size_t k = 0; k < re_added; ++k) {
    for (size_t i : {order[k], order[removed + k]}) {
      routes[i].next_hop += kReAddedOffset;
      if (!add_both(fib, table, routes[i], name)) return fail();
    }
  }
  compare(c, routes, random / 4, rng);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printf(
      "lpm6_vs_rte_fib6: %s: %zu routes (%u tbl8 groups; %u after removing), %zu removed, %zu re-added, %zu "
      "replaced; %llu addresses compared (%llu routed), %llu mismatches (%.1f s)\n",
      name, routes.size(), groups_full, groups_removed, removed, re_added, re_added, (unsigned long long)c.compared(),
      (unsigned long long)c.routed(), (unsigned long long)(c.mismatches() + remove_mismatches), seconds);
  rte_fib6_free(fib);
  return int64_t(c.mismatches() + remove_mismatches);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s ROUTES.dat.gz [random_addresses]\n", argv[0]);
    return 1;
  }
  const uint64_t random = argc > 2 ? std::stoull(argv[2]) : 10'000'000;
  std::vector<Route> routes;
  try {
    routes = real_routes(argv[1]);
  } catch (const std::exception& e) {
    fprintf(stderr, "lpm6_vs_rte_fib6: %s\n", e.what());
    return 1;
  }

  // As lpm4_vs_rte_lpm: no hugepages, no devices, no files under /var/run; rte_fib6 needs only EAL's
  // heap (anonymous memory, touched only where used). 2 GiB: the synthetic pass's tbl8 groups.
  const char* eal_args[] = {
      "lpm6_vs_rte_fib6",         "--no-huge", "--no-pci", "--no-shconf", "--no-telemetry", "-m", "2048", "-l", "0",
      "--log-level=lib.eal:error"};
  const int eal_argc = int(sizeof eal_args / sizeof eal_args[0]);
  if (rte_eal_init(eal_argc, const_cast<char**>(eal_args)) < 0) {
    printf("lpm6_vs_rte_fib6: SKIP: DPDK's EAL did not initialise: %s\n", rte_strerror(rte_errno));
    return 77;
  }

  const int64_t real = run_pass("routeviews-2015-11-01", std::move(routes), random, 20151101);
  const int64_t synthetic = real < 0 ? -1 : run_pass("synthetic-bgp", synthetic_routes(220'000, 2026), random, 2026);
  rte_eal_cleanup();
  return real == 0 && synthetic == 0 ? 0 : 1;
}
