// IPv4: gnf's Lpm4Table beside DPDK's rte_lpm (the layout it copies) and rte_fib (DIR24_8, 4-byte
// next hops), all three over the same routes and addresses.
#include <fmt/format.h>
#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_lpm.h>

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "families.h"
#include "gpu.h"
#include "nf/l3fwd/lpm4.h"
#include "util/error.h"

namespace gnf::lookup_bench {

namespace {

using oracle::Route4;

// The l3fwd NF's default tbl8 capacity (nf/l3fwd/l3fwd.h, lpm4_groups); every table gets it, or
// more where the routes need more.
constexpr uint32_t kDefaultGroups = 1u << 16;

// tbl8 groups the routes need: one per /24 that holds a route longer than /24.
uint32_t groups_needed(const std::vector<Route4>& routes) {
  std::unordered_set<uint32_t> slash24s;
  for (const Route4& r : routes) {
    if (r.depth > 24) slash24s.insert(r.prefix >> 8);
  }
  return uint32_t(slash24s.size());
}

uint32_t group_capacity(const std::vector<Route4>& routes) { return std::max(kDefaultGroups, groups_needed(routes)); }

// The lookups as code calls them. Not inlined into the pass: one call per address (scalar), as
// packet-at-a-time code makes one, or per batch, as burst-oriented code does; the library's inline
// lookup is inlined inside either. Addresses are independent, so the out-of-order core overlaps the
// cache misses of neighbouring lookups in both; a batch saves the call per address and lets the
// compiler schedule a loop of lookups.
[[gnu::noinline]] uint32_t gnf_one(const nf::Lpm4View& view, uint32_t addr) {
  uint32_t hop = kNoRoute;
  nf::lpm4_lookup(view, addr, hop);
  return hop;
}

[[gnu::noinline]] void gnf_batch(const nf::Lpm4View& view, const uint32_t* addrs, uint32_t n, uint32_t* hops) {
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t hop = kNoRoute;
    nf::lpm4_lookup(view, addrs[i], hop);
    hops[i] = hop;
  }
}

[[gnu::noinline]] uint32_t rte_lpm_one(const rte_lpm* lpm, uint32_t addr) {
  uint32_t hop;
  return rte_lpm_lookup(lpm, addr, &hop) == 0 ? hop : kNoRoute;
}

// rte_lpm_lookup_bulk is inline too; its answers keep rte_lpm's flag bits (RTE_LPM_LOOKUP_SUCCESS).
[[gnu::noinline]] void rte_lpm_batch(const rte_lpm* lpm, const uint32_t* addrs, uint32_t n, uint32_t* entries) {
  rte_lpm_lookup_bulk(lpm, addrs, entries, n);
}

uint32_t rte_lpm_answer(uint32_t entry) { return entry & RTE_LPM_LOOKUP_SUCCESS ? entry & 0x00ffffffu : kNoRoute; }

// rte_lpm_lookupx4 (SSE): four addresses per call, as DPDK's l3fwd example uses it.
[[gnu::noinline]] void rte_lpm_x4_pass(const rte_lpm* lpm, const uint32_t* addrs, uint64_t n, uint32_t* hops) {
  uint64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    rte_lpm_lookupx4(lpm, _mm_loadu_si128(reinterpret_cast<const __m128i*>(addrs + i)), hops + i, kNoRoute);
  }
  for (; i < n; ++i) hops[i] = rte_lpm_one(lpm, addrs[i]);
}

// rte_fib's lookup functions worth timing: its scalar one (every CPU) and AVX-512 (where the CPU has
// it; main lets EAL use 512-bit vectors).
struct FibLookup {
  rte_fib_lookup_type type;
  const char* name;
};
constexpr FibLookup kFibLookups[] = {{RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO, "rte_fib_lookup_bulk"},
                                     {RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512, "rte_fib_lookup_bulk/avx512"}};

std::string dotted(uint32_t a) { return fmt::format("{}.{}.{}.{}", a >> 24, a >> 16 & 0xff, a >> 8 & 0xff, a & 0xff); }

// rte_lpm_add looks for an existing rule by scanning every rule of the route's depth, so a build
// takes time quadratic in the routes per depth. Gives up (returns null) once the time so far passes
// limit_s, or the time projected from it (quadratically) does: from a quarter of the routes on, or
// earlier where the projection is four times the limit (the first routes predict the rest poorly:
// a pyasn file is sorted by prefix).
rte_lpm* build_rte_lpm(const std::vector<Route4>& routes, uint32_t groups, double limit_s, Report& report) {
  rte_lpm_config config{};
  config.max_rules = uint32_t(routes.size()) + 1024;
  config.number_tbl8s = groups;
  rte_lpm* lpm = rte_lpm_create("bench_lpm", SOCKET_ID_ANY, &config);
  if (!lpm) throw std::runtime_error(std::string("rte_lpm_create failed: ") + rte_strerror(rte_errno));
  const auto start = std::chrono::steady_clock::now();
  for (size_t k = 0; k < routes.size(); ++k) {
    if (rte_lpm_add(lpm, routes[k].prefix, routes[k].depth, routes[k].next_hop) != 0) {
      throw std::runtime_error(fmt::format("rte_lpm_add of {}/{} failed", dotted(routes[k].prefix), routes[k].depth));
    }
    if (k % 8192 != 8191) continue;
    const double elapsed = seconds_since(start), done = double(k + 1) / double(routes.size());
    const double projected = elapsed / (done * done);
    if (elapsed > limit_s || (done >= 0.25 && projected > limit_s) || (elapsed > 2 && projected > 4 * limit_s)) {
      report.note(fmt::format(
          "rte_lpm is not measured on this table: after {} of {} routes in {:.1f} s its build was heading for about "
          "{:.0f} s (rte_lpm_add scans the rules of the route's depth: quadratic), above --rte-lpm-limit-s {:g}. "
          "rte_fib (DIR24_8) stands for DPDK on this table.",
          k + 1, routes.size(), elapsed, projected, limit_s));
      return nullptr;  // not freed: see measure_build
    }
  }
  return lpm;
}

uint32_t rte_lpm_groups_used(const rte_lpm* lpm, uint32_t groups) {
  uint32_t used = 0;
  for (uint32_t g = 0; g < groups; ++g) used += lpm->tbl8[size_t(g) * RTE_LPM_TBL8_GROUP_NUM_ENTRIES].valid_group;
  return used;
}

}  // namespace

uint64_t ipv4_dpdk_bytes(const Table4& table) {
  const uint64_t groups = group_capacity(table.routes);
  // rte_lpm: tbl24, tbl8, 8 B per rule; rte_fib: tbl24, tbl8, its RIB's nodes (~64 B each).
  return 2 * (kTbl24Bytes + groups * kGroupBytes) + table.routes.size() * (8 + 64);
}

void bench_ipv4(const Table4& table, const Options& o, bool gpu, Report& report) {
  const std::vector<Route4>& routes = table.routes;
  const uint32_t groups = group_capacity(routes);
  nlohmann::json costs = nlohmann::json::array();

  std::unique_ptr<nf::Lpm4Table> gnf;
  nlohmann::json gnf_cost = build_gnf_table("gnf lpm4", gnf, groups, [&](nf::Lpm4Table& t) {
    for (const Route4& r : routes) t.add(r.prefix, r.depth, r.next_hop);
  });

  rte_lpm* lpm = nullptr;
  nlohmann::json lpm_cost = measure_build([&] { lpm = build_rte_lpm(routes, groups, o.rte_lpm_limit_s, report); });
  if (lpm) {
    const uint32_t used = rte_lpm_groups_used(lpm, groups);
    lpm_cost.update({{"implementation", "rte_lpm"},
                     {"allocated_bytes", lpm_cost["dpdk_heap_bytes"]},
                     {"lookup_bytes", kTbl24Bytes + used * kGroupBytes},
                     {"tbl8_groups", used},
                     {"tbl24_pages_written", tbl24_pages_written(reinterpret_cast<const uint32_t*>(lpm->tbl24))},
                     {"detail",
                      "allocated (from DPDK's heap): struct rte_lpm (tbl24), tbl8, 8 B per rule "
                      "(max_rules)"}});
    costs.push_back(lpm_cost);
    fprintf(stderr, "ipv4: rte_lpm built in %.2f s\n", lpm_cost["build_s"].get<double>());
  }

  rte_fib* fib = nullptr;
  nlohmann::json fib_cost = measure_build([&] {
    rte_fib_conf config{};
    config.type = RTE_FIB_DIR24_8;
    config.default_nh = kNoRoute;
    config.max_routes = int(routes.size()) + 1024;
    config.dir24_8.nh_sz = RTE_FIB_DIR24_8_4B;
    config.dir24_8.num_tbl8 = groups;
    fib = rte_fib_create("bench_fib", SOCKET_ID_ANY, &config);
    if (!fib) throw std::runtime_error(std::string("rte_fib_create failed: ") + rte_strerror(rte_errno));
    for (const Route4& r : routes) {
      if (rte_fib_add(fib, r.prefix, r.depth, r.next_hop) != 0) {
        throw std::runtime_error(fmt::format("rte_fib_add of {}/{} failed", dotted(r.prefix), r.depth));
      }
    }
  });
  fib_cost.update({{"implementation", "rte_fib (DIR24_8, 4 B)"},
                   {"allocated_bytes", fib_cost["dpdk_heap_bytes"]},
                   {"lookup_bytes", nullptr},
                   {"detail",
                    "allocated (from DPDK's heap): tbl24 (written whole at create), num_tbl8 + 1 groups, "
                    "the RIB's node per route"}});
  costs.push_back(fib_cost);
  fprintf(stderr, "ipv4: rte_fib built in %.2f s\n", fib_cost["build_s"].get<double>());

  const nf::Lpm4View view = gnf->view();
  std::vector<uint32_t> addrs, out32(o.count);
  std::vector<uint64_t> out64(o.count);
  auto from32 = [&](uint64_t i) { return out32[i]; };
  std::vector<CpuLookup> lookups;
  lookups.push_back({cpu_measurement("ipv4", "lpm4_lookup", "gnf", "scalar", 0),
                     [&] { one_per_call(addrs, out32, [&](uint32_t a) { return gnf_one(view, a); }); }, from32});
  for (uint32_t b : o.batches) {
    lookups.push_back({cpu_measurement("ipv4", "lpm4_lookup", "gnf", "batch", b),
                       [&, b] {
                         per_batch(addrs, out32, b,
                                   [&](uint32_t* a, uint32_t k, uint32_t* h) { gnf_batch(view, a, k, h); });
                       },
                       from32});
  }
  if (lpm) {
    lookups.push_back({cpu_measurement("ipv4", "rte_lpm_lookup", "dpdk", "scalar", 0),
                       [&] { one_per_call(addrs, out32, [&](uint32_t a) { return rte_lpm_one(lpm, a); }); }, from32});
    for (uint32_t b : o.batches) {
      lookups.push_back({cpu_measurement("ipv4", "rte_lpm_lookup_bulk", "dpdk", "batch", b),
                         [&, b] {
                           per_batch(addrs, out32, b,
                                     [&](uint32_t* a, uint32_t k, uint32_t* e) { rte_lpm_batch(lpm, a, k, e); });
                         },
                         [&](uint64_t i) { return rte_lpm_answer(out32[i]); }});
    }
    lookups.push_back({cpu_measurement("ipv4", "rte_lpm_lookupx4", "dpdk", "x4", 4),
                       [&] { rte_lpm_x4_pass(lpm, addrs.data(), addrs.size(), out32.data()); }, from32});
  }
  for (const FibLookup& f : kFibLookups) {
    if (rte_fib_select_lookup(fib, f.type) != 0) {
      report.note(fmt::format("{} is not measured: rte_fib_select_lookup refused it on this CPU", f.name));
      continue;
    }
    for (uint32_t b : o.batches) {
      lookups.push_back({cpu_measurement("ipv4", f.name, "dpdk", "batch", b),
                         [&, b, type = f.type] {
                           rte_fib_select_lookup(fib, type);
                           per_batch(addrs, out64, b,
                                     [&](uint32_t* a, uint32_t k, uint64_t* h) { rte_fib_lookup_bulk(fib, a, h, k); });
                         },
                         [&](uint64_t i) { return uint32_t(out64[i]); }});
    }
  }

  std::unique_ptr<Lpm4OnGpu> device;
  if (gpu) {
    device = std::make_unique<Lpm4OnGpu>(*gnf);
    gnf_cost["device_bytes"] = device->device_bytes();
  }
  costs.insert(costs.begin(), gnf_cost);
  report.tables["ipv4"] = {
      {"source", table.source}, {"routes", routes.size()}, {"tbl8_capacity", groups}, {"implementations", costs}};

  run_sets(
      "ipv4", o, report, addrs, [&](const std::string& set) { return ipv4_addresses(set, routes, o); }, lookups,
      device.get(), dotted);
  // DPDK's tables stay until EAL's cleanup (measure_build says why).
}

}  // namespace gnf::lookup_bench
