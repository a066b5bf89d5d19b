// One address family's run: build gnf's table and DPDK's from the same routes (timed, with their
// memory), then for each address set check that every implementation gives the same answers and
// time each on this CPU core, and on the GPU when `gpu` is set.
#pragma once
#include <rte_malloc.h>

#include <cstdint>
#include <cstdio>
#include <memory>

#include "lookup_bench.h"
#include "tables.h"

namespace gnf::lookup_bench {

// Both gnf tables and DPDK's have a 2^24-entry tbl24 and groups of 256 entries, 4 bytes each here.
inline constexpr uint64_t kTbl24Bytes = uint64_t(1) << 24 << 2;
inline constexpr uint64_t kGroupBytes = 256 * 4;

void bench_ipv4(const Table4& table, const Options& o, bool gpu, Report& report);
void bench_ipv6(const Table6& table, const Options& o, bool gpu, Report& report);

// EAL heap the family's DPDK tables need (bytes, a generous estimate): main sizes EAL by it.
uint64_t ipv4_dpdk_bytes(const Table4& table);
uint64_t ipv6_dpdk_bytes(const Table6& table);

// Bytes allocated from DPDK's heap, on every socket.
inline uint64_t dpdk_heap_allocated() {
  uint64_t bytes = 0;
  for (unsigned i = 0; i < rte_socket_count(); ++i) {
    rte_malloc_socket_stats stats{};
    if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &stats) == 0) bytes += stats.heap_allocsz_bytes;
  }
  return bytes;
}

// Times `build`, with the resident memory it added (the pages it touched: both libraries reserve
// tables zeroed, and a page nobody writes stays untouched) and what it took from DPDK's heap:
// {"build_s", "rss_delta_bytes", "dpdk_heap_bytes"}. DPDK's tables are never freed before the run
// ends: freed heap memory stays resident, and a later table built in it would add nothing to RSS.
template <typename Build>
nlohmann::json measure_build(Build&& build) {
  const uint64_t rss = resident_bytes(), heap = dpdk_heap_allocated();
  const auto start = std::chrono::steady_clock::now();
  build();
  const double seconds = seconds_since(start);
  const uint64_t rss_after = resident_bytes(), heap_after = dpdk_heap_allocated();
  return {{"build_s", seconds},
          {"rss_delta_bytes", rss_after > rss ? rss_after - rss : 0},
          {"dpdk_heap_bytes", heap_after > heap ? heap_after - heap : 0}};
}

// The share of a tbl24's 4 KiB pages that some entry was written to (not all zero). Lookups in the
// others read zeros: from the kernel's one shared zero page where the table was never touched
// there, which stays in every cache.
inline double tbl24_pages_written(const uint32_t* tbl24) {
  constexpr uint32_t kPageEntries = 1024, kPages = (1u << 24) / kPageEntries;
  uint32_t written = 0;
  for (uint32_t p = 0; p < kPages; ++p) {
    const uint32_t* page = tbl24 + size_t(p) * kPageEntries;
    written += std::any_of(page, page + kPageEntries, [](uint32_t e) { return e != 0; });
  }
  return double(written) / kPages;
}

// out[i] = one(addrs[i]) over the whole set, one call per address. The loop works on the vectors'
// data pointers, kept in registers whatever the function it calls may touch.
template <typename Address, typename Out, typename One>
void one_per_call(const std::vector<Address>& addrs, std::vector<Out>& out, One&& one) {
  const Address* a = addrs.data();
  Out* o = out.data();
  const uint64_t n = addrs.size();
  for (uint64_t i = 0; i < n; ++i) o[i] = one(a[i]);
}

// batch(addresses, k, answers) over the whole set in pieces of `size` addresses (k = size, or what
// is left at the end), as one_per_call does.
template <typename Address, typename Out, typename Batch>
void per_batch(std::vector<Address>& addrs, std::vector<Out>& out, uint32_t size, Batch&& batch) {
  Address* a = addrs.data();
  Out* o = out.data();
  const uint64_t n = addrs.size();
  for (uint64_t i = 0; i < n; i += size) batch(a + i, uint32_t(std::min<uint64_t>(size, n - i)), o + i);
}

// gnf's table `name` (Lpm4Table or Lpm6Table, with `groups` of tbl8 capacity), built by `build`:
// its build time and memory (measure_build), its size and the share of tbl24 pages it wrote.
template <typename Table, typename Build>
nlohmann::json build_gnf_table(const char* name, std::unique_ptr<Table>& table, uint32_t groups, Build&& build) {
  nlohmann::json cost = measure_build([&] {
    table = std::make_unique<Table>(groups);
    build(*table);
  });
  cost.update({{"implementation", name},
               {"allocated_bytes", kTbl24Bytes + groups * kGroupBytes},
               {"lookup_bytes", kTbl24Bytes + table->tbl8_groups_used() * kGroupBytes},
               {"tbl8_groups", table->tbl8_groups_used()},
               {"tbl24_pages_written", tbl24_pages_written(table->tbl24_words())},
               {"detail",
                "allocated: tbl24 + tbl8 capacity, reserved zeroed (pages untouched until written); lookup: tbl24 "
                "+ the groups in use; RSS: + the builder's rule maps (lpm6: and its depth bytes)"}});
  fprintf(stderr, "%s built in %.2f s\n", name, cost["build_s"].get<double>());
  return cost;
}

// For each address set: makes it into `addrs` (which the lookups' passes read), records it, checks
// and times the CPU lookups, then the GPU's where `device` is there. `text` prints an address.
template <typename Address, typename Make, typename Gpu, typename Text>
void run_sets(const char* family, const Options& o, Report& report, std::vector<Address>& addrs, Make&& make,
              std::vector<CpuLookup>& lookups, Gpu* device, Text&& text) {
  for (const std::string& set : o.address_sets) {
    addrs = make(set);
    report.address_sets.push_back(
        {{"family", family}, {"name", set}, {"addresses", o.count}, {"distinct", distinct_addresses(set, o)}});
    const std::vector<uint32_t> expected =
        verify_and_time(report, set, o.count, lookups, o, [&](uint64_t i) { return text(addrs[i]); });
    if (device) device->run(set, addrs, expected, o, report);
  }
}

}  // namespace gnf::lookup_bench
