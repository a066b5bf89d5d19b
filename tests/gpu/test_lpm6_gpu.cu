// The IPv6 LPM lookup on the GPU: the same inline lpm6_lookup() over a copy of the tables in GPU
// memory answers exactly as on the host (where tests/oracle checks it against DPDK's rte_fib6, on
// the same synthetic table). The copy is made while no kernel reads it (the header's ordering note:
// updates between launches).
#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "../oracle/ipv6_routes.h"
#include "gpu_test.h"
#include "mem/block.h"
#include "nf/l3fwd/lpm6.h"
#include "util/cuda_check.h"

using namespace gnf;

namespace {

constexpr uint32_t kNoRoute = 0xFFFFFFFFu;

// addrs: count addresses of 16 bytes each, in network order, as they stand in IPv6 headers.
__global__ void lookup_all(nf::Lpm6View view, const uint8_t* addrs, uint32_t count, uint32_t* next_hops) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    uint32_t hop = kNoRoute;
    nf::lpm6_lookup(view, addrs + size_t(i) * 16, hop);
    next_hops[i] = hop;
  }
}

}  // namespace

TEST(Lpm6OnGpu, EveryLookupMatchesTheHostTable) {
  GNF_REQUIRE_GPU();
  const std::vector<oracle::Route6> routes = oracle::synthetic_bgp6_routes(220'000, 2026);
  const uint32_t groups = oracle::tbl8_groups_bound(routes, nf::kLpm6MaxTbl8Groups);
  nf::Lpm6Table table(groups);
  for (const oracle::Route6& r : routes) table.add(oracle::bytes_of(r.prefix).data(), r.depth, r.next_hop);

  // Random addresses, half of them inside a random route, then every route's edges: its first and
  // last address and the ones just outside.
  std::mt19937_64 rng(2026);
  std::vector<oracle::Ipv6Bytes> addrs;
  addrs.reserve(4'000'000 + routes.size() * 4);
  for (uint32_t i = 0; i < 4'000'000; ++i) {
    const uint64_t hi = rng();
    const oracle::U128 anywhere = oracle::U128(hi) << 64 | rng();
    const oracle::Route6& r = routes[rng() % routes.size()];
    addrs.push_back(oracle::bytes_of(i % 2 ? anywhere : r.prefix | (anywhere & oracle::host_mask(r.depth))));
  }
  for (const oracle::Route6& r : routes) {
    const oracle::U128 last = r.prefix | oracle::host_mask(r.depth);
    for (oracle::U128 a : {r.prefix, last, r.prefix - 1, last + 1}) addrs.push_back(oracle::bytes_of(a));
  }

  const nf::Lpm6View host = table.view();
  const size_t tbl24_bytes = size_t(nf::kLpm6Tbl24Entries) * 4, tbl8_bytes = size_t(groups) * nf::kLpm6GroupEntries * 4;
  mem::Block tbl24(mem::Domain::Device, tbl24_bytes), tbl8(mem::Domain::Device, tbl8_bytes);
  mem::Block in(mem::Domain::Device, addrs.size() * 16), out(mem::Domain::Device, addrs.size() * 4);
  GNF_CUDA_CHECK(cudaMemcpy(tbl24.data(), host.tbl24, tbl24_bytes, cudaMemcpyHostToDevice));
  GNF_CUDA_CHECK(cudaMemcpy(tbl8.data(), host.tbl8, tbl8_bytes, cudaMemcpyHostToDevice));
  GNF_CUDA_CHECK(cudaMemcpy(in.data(), addrs.data(), addrs.size() * 16, cudaMemcpyHostToDevice));
  const nf::Lpm6View device{reinterpret_cast<const uint32_t*>(tbl24.data()),
                            reinterpret_cast<const uint32_t*>(tbl8.data()), groups};
  lookup_all<<<1024, 256>>>(device, reinterpret_cast<const uint8_t*>(in.data()), uint32_t(addrs.size()),
                            reinterpret_cast<uint32_t*>(out.data()));
  GNF_CUDA_CHECK_LAUNCH();
  std::vector<uint32_t> got(addrs.size());
  GNF_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), got.size() * 4, cudaMemcpyDeviceToHost));

  uint64_t mismatches = 0, routed = 0;
  for (size_t i = 0; i < addrs.size(); ++i) {
    uint32_t want = kNoRoute;
    nf::lpm6_lookup(host, addrs[i].data(), want);
    routed += want != kNoRoute;
    if (got[i] != want && ++mismatches <= 5) {
      ADD_FAILURE() << "address #" << i << ": GPU " << got[i] << ", host " << want;
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(routed, addrs.size() / 3);  // most lookups inside a route hit: lookups mean something
  EXPECT_GT(table.tbl8_groups_used(), 100'000u);
  std::printf("IPv6 LPM on the GPU: %zu lookups (%llu routed), %u routes, %u tbl8 groups: %llu mismatches\n",
              addrs.size(), (unsigned long long)routed, table.rule_count(), table.tbl8_groups_used(),
              (unsigned long long)mismatches);
}
