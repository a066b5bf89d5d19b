// Oracle: gnf's Lpm6Table (nf/l3fwd/lpm6.h) against DPDK's rte_fib6 (TRIE, the layout lpm6 copies),
// in two passes:
//   - a real Internet routing table: the IPv6 routes of RouteViews, 2015-11-01 (~27.7k prefixes, as
//     shipped by Debian's python3-pyasn), next hop = the route's line number in the file;
//   - a synthetic BGP-shaped table of 220k routes from a fixed seed (ipv6_routes.h: RIR allocations
//     under 2000::/3, /48s and others under them, some /64 and /128), for the size the issue asks
//     for; next hop = the route's index + 1.
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
#include <string>
#include <vector>

#include "eal.h"
#include "ipv6_routes.h"
#include "nf/l3fwd/lpm6.h"
#include "pyasn_routes.h"

using gnf::nf::Lpm6Table;

namespace {

using gnf::oracle::bytes_of;
using gnf::oracle::host_mask;
using gnf::oracle::Ipv6Bytes;
using gnf::oracle::U128;
using Route = gnf::oracle::Route6;

// rte_fib6 answers its default next hop where no route covers an address: 0 here, which no route
// has (line numbers and indexes count from 1).
constexpr uint64_t kNoRoute = 0;
// Removed routes come back with next hop + this: distinct from every original next hop, and below
// lpm6's limit of 2^24.
constexpr uint32_t kReAddedOffset = 1u << 23;

std::vector<Route> real_routes(const char* path) {
  std::vector<Route> routes;
  for (const auto& r : gnf::oracle::read_pyasn_routes(path, AF_INET6)) {
    routes.push_back(Route{gnf::oracle::value_of(r.prefix), r.depth, r.line});
  }
  return routes;
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
  const Ipv6Bytes prefix = bytes_of(r.prefix);
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
  // Both sized for the most groups the routes can need. rte_fib6 gets an eighth more: it reserves
  // groups per route on add and releases them on delete by the covering route of that moment,
  // which can release fewer than were reserved.
  const uint32_t groups = gnf::oracle::tbl8_groups_bound(routes, gnf::nf::kLpm6MaxTbl8Groups);
  rte_fib6_conf config{};
  config.type = RTE_FIB6_TRIE;
  config.default_nh = kNoRoute;
  config.max_routes = int(routes.size()) + 1024;
  config.trie.nh_sz = RTE_FIB6_TRIE_4B;
  config.trie.num_tbl8 = groups + groups / 8;
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
    const Ipv6Bytes prefix = bytes_of(r.prefix);
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

  // 2 GiB: the synthetic pass's tbl8 groups (rte_fib6 zeroes all it is given).
  if (!gnf::oracle::start_eal("lpm6_vs_rte_fib6", "2048")) return 77;

  const int64_t real = run_pass("routeviews-2015-11-01", std::move(routes), random, 20151101);
  const int64_t synthetic =
      real < 0 ? -1 : run_pass("synthetic-bgp", gnf::oracle::synthetic_bgp6_routes(220'000, 2026), random, 2026);
  rte_eal_cleanup();
  return real == 0 && synthetic == 0 ? 0 : 1;
}
