// IPv6: gnf's Lpm6Table beside DPDK's rte_fib6 (TRIE, 4-byte next hops: the layout lpm6 copies),
// over the same routes and addresses.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <rte_errno.h>
#include <rte_fib6.h>
#include <rte_memory.h>

#include <algorithm>
#include <memory>

#include "families.h"
#include "gpu.h"
#include "nf/l3fwd/lpm6.h"

namespace gnf::lookup_bench {

namespace {

using oracle::Ipv6Bytes;
using oracle::Route6;

constexpr uint32_t kDefaultGroups = 1u << 16;  // the l3fwd NF's default (lpm6_groups)

// Groups the routes can need (ipv6_routes.h's bound, none shared), at least the NF's default.
uint32_t group_capacity(const std::vector<Route6>& routes) {
  return std::max(kDefaultGroups, oracle::tbl8_groups_bound(routes, nf::kLpm6MaxTbl8Groups));
}
// rte_fib6 gets an eighth more, as the oracle found it needs (tests/oracle/lpm6_vs_rte_fib6.cpp).
uint32_t fib6_groups(uint32_t groups) { return groups + groups / 8; }

// As ipv4.cpp: one call per address or per batch, the inline lookup inlined inside.
[[gnu::noinline]] uint32_t gnf_one(const nf::Lpm6View& view, const uint8_t* addr) {
  uint32_t hop = kNoRoute;
  nf::lpm6_lookup(view, addr, hop);
  return hop;
}

[[gnu::noinline]] void gnf_batch(const nf::Lpm6View& view, const Ipv6Bytes* addrs, uint32_t n, uint32_t* hops) {
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t hop = kNoRoute;
    nf::lpm6_lookup(view, addrs[i].data(), hop);
    hops[i] = hop;
  }
}

struct Fib6Lookup {
  rte_fib6_lookup_type type;
  const char* name;
};
constexpr Fib6Lookup kFib6Lookups[] = {{RTE_FIB6_LOOKUP_TRIE_SCALAR, "rte_fib6_lookup_bulk"},
                                       {RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512, "rte_fib6_lookup_bulk/avx512"}};

std::string text(const Ipv6Bytes& a) {
  char out[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, a.data(), out, sizeof out);
  return out;
}

}  // namespace

uint64_t ipv6_dpdk_bytes(const Table6& table) {
  // tbl24, tbl8, the RIB's nodes (~96 B each).
  return kTbl24Bytes + fib6_groups(group_capacity(table.routes)) * kGroupBytes + table.routes.size() * 96;
}

void bench_ipv6(const Table6& table, const Options& o, bool gpu, Report& report) {
  const std::vector<Route6>& routes = table.routes;
  const uint32_t groups = group_capacity(routes);
  std::unique_ptr<nf::Lpm6Table> gnf;
  nlohmann::json gnf_cost = build_gnf_table("gnf lpm6", gnf, groups, [&](nf::Lpm6Table& t) {
    for (const Route6& r : routes) t.add(oracle::bytes_of(r.prefix).data(), r.depth, r.next_hop);
  });

  rte_fib6* fib = nullptr;
  nlohmann::json fib_cost = measure_build([&] {
    rte_fib6_conf config{};
    config.type = RTE_FIB6_TRIE;
    config.default_nh = kNoRoute;
    config.max_routes = int(routes.size()) + 1024;
    config.trie.nh_sz = RTE_FIB6_TRIE_4B;
    config.trie.num_tbl8 = fib6_groups(groups);
    fib = rte_fib6_create("bench_fib6", SOCKET_ID_ANY, &config);
    if (!fib) throw std::runtime_error(std::string("rte_fib6_create failed: ") + rte_strerror(rte_errno));
    for (const Route6& r : routes) {
      if (int rc = rte_fib6_add(fib, oracle::bytes_of(r.prefix).data(), r.depth, r.next_hop); rc != 0) {
        throw std::runtime_error(fmt::format("rte_fib6_add of route {} failed: {}", r.next_hop, rte_strerror(-rc)));
      }
    }
  });
  fib_cost.update({{"implementation", "rte_fib6 (TRIE, 4 B)"},
                   {"allocated_bytes", fib_cost["dpdk_heap_bytes"]},
                   {"lookup_bytes", nullptr},
                   {"detail",
                    "allocated (from DPDK's heap): tbl24 (written whole at create), num_tbl8 groups, the "
                    "RIB's node per route"}});
  fprintf(stderr, "ipv6: rte_fib6 built in %.2f s\n", fib_cost["build_s"].get<double>());

  const nf::Lpm6View view = gnf->view();
  std::vector<Ipv6Bytes> addrs;
  std::vector<uint32_t> out32(o.count);
  std::vector<uint64_t> out64(o.count);
  auto from32 = [&](uint64_t i) { return out32[i]; };
  std::vector<CpuLookup> lookups;
  lookups.push_back({cpu_measurement("ipv6", "lpm6_lookup", "gnf", "scalar", 0),
                     [&] { one_per_call(addrs, out32, [&](const Ipv6Bytes& a) { return gnf_one(view, a.data()); }); },
                     from32});
  for (uint32_t b : o.batches) {
    lookups.push_back({cpu_measurement("ipv6", "lpm6_lookup", "gnf", "batch", b),
                       [&, b] {
                         per_batch(addrs, out32, b,
                                   [&](Ipv6Bytes* a, uint32_t k, uint32_t* h) { gnf_batch(view, a, k, h); });
                       },
                       from32});
  }
  for (const Fib6Lookup& f : kFib6Lookups) {
    if (rte_fib6_select_lookup(fib, f.type) != 0) {
      report.note(fmt::format("{} is not measured: rte_fib6_select_lookup refused it on this CPU", f.name));
      continue;
    }
    for (uint32_t b : o.batches) {
      lookups.push_back({cpu_measurement("ipv6", f.name, "dpdk", "batch", b),
                         [&, b, type = f.type] {
                           rte_fib6_select_lookup(fib, type);
                           per_batch(addrs, out64, b, [&](Ipv6Bytes* a, uint32_t k, uint64_t* h) {
                             rte_fib6_lookup_bulk(fib, reinterpret_cast<uint8_t(*)[16]>(a->data()), h, int(k));
                           });
                         },
                         [&](uint64_t i) { return uint32_t(out64[i]); }});
    }
  }

  std::unique_ptr<Lpm6OnGpu> device;
  if (gpu) {
    device = std::make_unique<Lpm6OnGpu>(*gnf);
    gnf_cost["device_bytes"] = device->device_bytes();
  }
  report.tables["ipv6"] = {{"source", table.source},
                           {"routes", routes.size()},
                           {"tbl8_capacity", groups},
                           {"implementations", {gnf_cost, fib_cost}}};

  run_sets(
      "ipv6", o, report, addrs, [&](const std::string& set) { return ipv6_addresses(set, routes, o); }, lookups,
      device.get(), text);
  // rte_fib6 stays until EAL's cleanup (measure_build says why).
}

}  // namespace gnf::lookup_bench
