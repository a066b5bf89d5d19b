// The IPv4 LPM lookup on the GPU: the same inline lpm4_lookup() over a copy of the tables in GPU
// memory answers exactly as on the host (where tests/oracle checks it against DPDK's rte_lpm).
// The copy is made while no kernel reads it (the header's ordering note: updates between launches).
#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "gpu_test.h"
#include "mem/block.h"
#include "nf/l3fwd/lpm4.h"
#include "util/cuda_check.h"

using namespace gnf;

namespace {

constexpr uint32_t kNoRoute = 0xFFFFFFFFu;

__global__ void lookup_all(nf::Lpm4View view, const uint32_t* addrs, uint32_t count, uint32_t* next_hops) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    uint32_t hop = kNoRoute;
    nf::lpm4_lookup(view, addrs[i], hop);
    next_hops[i] = hop;
  }
}

// Routes shaped like a BGP table: mostly /24 and /16-/23, some longer (tbl8 groups) and shorter.
uint8_t route_depth(std::mt19937& rng) {
  const uint32_t r = rng() % 100;
  if (r < 55) return 24;
  if (r < 85) return uint8_t(16 + rng() % 8);
  if (r < 95) return uint8_t(25 + rng() % 8);
  return uint8_t(8 + rng() % 8);
}

}  // namespace

TEST(Lpm4OnGpu, EveryLookupMatchesTheHostTable) {
  GNF_REQUIRE_GPU();
  std::mt19937 rng(2026);
  constexpr uint32_t kRoutes = 300'000, kGroups = 1u << 16;
  nf::Lpm4Table table(kGroups);
  std::vector<std::pair<uint32_t, uint8_t>> routes;
  while (routes.size() < kRoutes) {
    const uint8_t depth = route_depth(rng);
    const uint32_t prefix = depth ? uint32_t(rng()) & ~((depth == 32 ? 0u : 0xFFFFFFFFu >> depth)) : 0;
    table.add(prefix, depth, rng() % (nf::kLpm4MaxNextHop + 1));
    routes.emplace_back(prefix, depth);
  }
  // Random addresses, then every route's edges: its first and last address and the ones just outside.
  std::vector<uint32_t> addrs(4'000'000);
  for (uint32_t& a : addrs) a = rng();
  for (const auto& [prefix, depth] : routes) {
    const uint32_t last = prefix | (depth == 32 ? 0u : 0xFFFFFFFFu >> depth);
    for (uint32_t a : {prefix, last, prefix - 1, last + 1}) addrs.push_back(a);
  }

  const nf::Lpm4View host = table.view();
  const size_t tbl24_bytes = size_t(nf::kLpm4Tbl24Entries) * 4, tbl8_bytes = size_t(kGroups) * nf::kLpm4GroupEntries * 4;
  mem::Block tbl24(mem::Domain::Device, tbl24_bytes), tbl8(mem::Domain::Device, tbl8_bytes);
  mem::Block in(mem::Domain::Device, addrs.size() * 4), out(mem::Domain::Device, addrs.size() * 4);
  GNF_CUDA_CHECK(cudaMemcpy(tbl24.data(), host.tbl24, tbl24_bytes, cudaMemcpyHostToDevice));
  GNF_CUDA_CHECK(cudaMemcpy(tbl8.data(), host.tbl8, tbl8_bytes, cudaMemcpyHostToDevice));
  GNF_CUDA_CHECK(cudaMemcpy(in.data(), addrs.data(), addrs.size() * 4, cudaMemcpyHostToDevice));
  const nf::Lpm4View device{reinterpret_cast<const uint32_t*>(tbl24.data()),
                            reinterpret_cast<const uint32_t*>(tbl8.data()), kGroups};
  lookup_all<<<1024, 256>>>(device, reinterpret_cast<const uint32_t*>(in.data()), uint32_t(addrs.size()),
                            reinterpret_cast<uint32_t*>(out.data()));
  GNF_CUDA_CHECK_LAUNCH();
  std::vector<uint32_t> got(addrs.size());
  GNF_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), got.size() * 4, cudaMemcpyDeviceToHost));

  uint64_t mismatches = 0, routed = 0;
  for (size_t i = 0; i < addrs.size(); ++i) {
    uint32_t want = kNoRoute;
    nf::lpm4_lookup(host, addrs[i], want);
    routed += want != kNoRoute;
    if (got[i] != want && ++mismatches <= 5)
      ADD_FAILURE() << "address " << std::hex << addrs[i] << ": GPU " << got[i] << ", host " << want;
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(routed, addrs.size() / 4);  // the table covers a good part of the space: lookups mean something
  EXPECT_GT(table.tbl8_groups_used(), 1000u);
  std::printf("LPM on the GPU: %zu lookups (%llu routed), %u routes, %u tbl8 groups: %llu mismatches\n", addrs.size(),
              (unsigned long long)routed, table.rule_count(), table.tbl8_groups_used(), (unsigned long long)mismatches);
}
