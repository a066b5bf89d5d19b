// The l3fwd NF on the GPU over the router's GPU copy of its tables (nf/l3fwd/router.h,
// sync/device_mirror.h): it forwards, punts and drops exactly as on the CPU, on a real Internet
// routing table whose copy was made half-way and then kept up to date by replayed updates; and
// lookups racing route updates in a running kernel never see a half-made table.
#include <cuda_runtime.h>

#include <arpa/inet.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "../oracle/pyasn_routes.h"
#include "chain_on_gpu.h"
#include "gpu_test.h"
#include "mem/block.h"
#include "nf/chain.h"
#include "util/cuda_check.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

using namespace gnf;

namespace {

std::string routeviews(const char* file) {
  const char* dir = std::getenv("GNF_ROUTEVIEWS_DIR");
  return std::string(dir ? dir : "/usr/lib/python3/dist-packages/data") + "/" + file;
}

bool readable(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f) std::fclose(f);
  return f != nullptr;
}

nf::NfChain make_router_chain() {
  nf::Params params("gpu-test", 1, "nf[0]");
  params.set("lpm6_groups", nf::ParamValue{int64_t(1) << 17, 0});
  nf::NfContext context;
  context.ports = 2;
  for (uint16_t p = 0; p < 2; ++p) context.port_macs[p] = {0x02, 0, 0, 0, 0x01, uint8_t(p)};
  for (auto [port, text] : {std::pair{0, "10.0.0.1/24"}, {0, "2001:db8::1/64"}, {1, "10.0.1.1/24"}, {1, "2001:db8:1::1/64"}}) {
    auto parsed = *nf::parse_interface_address(text);
    context.addresses.push_back({uint16_t(port), parsed.first, parsed.second});
  }
  return nf::NfChain({nf::NfSpec{"l3fwd", params}}, context);
}

nf::IpAddress address_of(const std::array<uint8_t, 16>& bytes, uint8_t family) {
  nf::IpAddress a;
  a.family = family;
  std::copy(bytes.begin(), bytes.end(), a.bytes);
  return a;
}

// Each route goes via one of 200 gateways on port 1 (150 of them resolved), or every 7th is a
// DPDK-style port route, or every 50th a blackhole: every next-hop kind and outcome shows up.
nf::RouteTarget target_for(uint32_t line, uint8_t family) {
  nf::RouteTarget t;
  if (line % 50 == 0) {
    t.kind = nf::NextHopKind::Blackhole;
  } else if (line % 7 == 0) {
    t.kind = nf::NextHopKind::Port;
    t.port = 1;
    t.mac = {0x02, 0, 0, 0, 0, 1};
  } else {
    t.kind = nf::NextHopKind::Gateway;
    t.port = 1;
    t.gateway = *nf::parse_ip_address(family == 4 ? "10.0.1.0" : "2001:db8:1::");
    t.gateway.bytes[family == 4 ? 3 : 15] = uint8_t(2 + line % 200);
  }
  return t;
}

std::vector<uint8_t> frame_to(const uint8_t* dst, uint8_t family, std::mt19937& rng) {
  const bool v4 = family == 4;
  std::vector<uint8_t> f(v4 ? 60 : 78, 0);
  const uint8_t mac[6] = {0x02, 0, 0, 0, 0x01, 0};
  std::copy(mac, mac + 6, f.begin());
  f[6] = 0x02;
  f[11] = 0x09;
  wire::store_be16(&f[12], v4 ? 0x0800 : 0x86dd);
  uint8_t* ip = &f[14];
  if (v4) {
    ip[0] = 0x45;
    wire::store_be16(ip + 2, 46);
    ip[8] = uint8_t(1 + rng() % 64);  // some expire
    ip[9] = 17;
    const uint8_t src[4] = {10, 0, 0, 2};
    std::copy(src, src + 4, ip + 12);
    std::copy(dst, dst + 4, ip + 16);
    wire::store_be16(ip + 10, wire::checksum_finish(wire::checksum_add(0, ip, 20)));
    if (rng() % 40 == 0) ip[10] ^= 0x40;  // a bad checksum now and then
  } else {
    ip[0] = 0x60;
    wire::store_be16(ip + 4, 24);
    ip[6] = 17;
    ip[7] = uint8_t(1 + rng() % 64);
    nf::IpAddress src = *nf::parse_ip_address("2001:db8::2");
    std::copy(src.bytes, src.bytes + 16, ip + 8);
    std::copy(dst, dst + 16, ip + 24);
  }
  return f;
}

}  // namespace

TEST(L3FwdOnGpu, ForwardsAsTheCpuDoesOverARealRoutingTableUpdatedWhileMirrored) {
  GNF_REQUIRE_GPU();
  const std::string v4_file = routeviews("ipasn_20140513.dat.gz"), v6_file = routeviews("ipasn6_20151101.dat.gz");
  if (!readable(v4_file) || !readable(v6_file))
    GTEST_SKIP() << "no RouteViews tables at " << v4_file << ": set GNF_ROUTEVIEWS_DIR (the bundle has them in data/)";
  const auto routes4 = oracle::read_pyasn_routes(v4_file.c_str(), AF_INET);
  const auto routes6 = oracle::read_pyasn_routes(v6_file.c_str(), AF_INET6);
  nf::NfChain chain = make_router_chain();
  nf::Router& router = *chain.router(0);
  for (uint32_t g = 2; g < 152; ++g) {
    for (const char* base : {"10.0.1.0", "2001:db8:1::"}) {
      nf::IpAddress a = *nf::parse_ip_address(base);
      a.bytes[a.family == 4 ? 3 : 15] = uint8_t(g);
      router.set_neighbour(1, a, {0x02, 0xbb, 0, 0, 0, uint8_t(g)});
    }
  }
  // Half the routes before the GPU copy is made, the rest after (replayed), then a tenth removed.
  auto add = [&](const oracle::PyasnRoute& r, uint8_t family) {
    router.add_route(nf::IpPrefix{address_of(r.prefix, family), r.depth}, target_for(r.line, family));
  };
  for (size_t i = 0; i < routes4.size() / 2; ++i) add(routes4[i], 4);
  for (size_t i = 0; i < routes6.size() / 2; ++i) add(routes6[i], 6);
  const nf::NfChainView device_view = chain.device_view();
  for (size_t i = routes4.size() / 2; i < routes4.size(); ++i) add(routes4[i], 4);
  for (size_t i = routes6.size() / 2; i < routes6.size(); ++i) add(routes6[i], 6);
  for (size_t i = 0; i < routes4.size(); i += 10) router.remove_route(nf::IpPrefix{address_of(routes4[i].prefix, 4), routes4[i].depth});
  for (size_t i = 0; i < routes6.size(); i += 10) router.remove_route(nf::IpPrefix{address_of(routes6[i].prefix, 6), routes6[i].depth});

  // Frames to addresses inside random routes (and 1 in 8 anywhere), IPv4 and IPv6.
  constexpr uint32_t kPackets = 1u << 18, kSlot = 128;
  std::mt19937 rng(7);
  std::vector<uint8_t> frames(size_t(kPackets) * kSlot);
  std::vector<nf::PacketRef> host_refs(kPackets);
  for (uint32_t i = 0; i < kPackets; ++i) {
    const bool v4 = i % 4 != 0;
    const auto& routes = v4 ? routes4 : routes6;
    const oracle::PyasnRoute& r = routes[rng() % routes.size()];
    std::array<uint8_t, 16> dst = r.prefix;
    const uint32_t bits = v4 ? 32 : 128;
    for (uint32_t b = r.depth; b < bits; ++b)
      if (rng() & 1) dst[b / 8] |= uint8_t(0x80 >> (b % 8));
    if (i % 8 == 1)
      for (auto& byte : dst) byte = uint8_t(rng());
    std::vector<uint8_t> f = frame_to(dst.data(), v4 ? 4 : 6, rng);
    std::copy(f.begin(), f.end(), frames.begin() + size_t(i) * kSlot);
    host_refs[i] = nf::PacketRef{&frames[size_t(i) * kSlot], uint32_t(f.size()), 0, 0, 0, nf::Verdict::Forward, nf::HostReason::Unspecified};
  }

  // The GPU first: it works on a copy of the frames as they are; the CPU then rewrites them in place.
  const test::ChainOnGpu gpu = test::run_chain_on_gpu(device_view, frames, host_refs);
  std::vector<nf::NfCounters> host_counters(nf::kMaxChainLength);
  nf::PacketBatch batch{host_refs.data(), kPackets};
  nf::run_chain(chain.view(), batch, host_counters.data());

  for (uint32_t i = 0; i < kPackets; ++i) {
    ASSERT_EQ(gpu.refs[i].verdict, host_refs[i].verdict) << "packet " << i;
    if (host_refs[i].verdict == nf::Verdict::Forward) ASSERT_EQ(gpu.refs[i].out_port, host_refs[i].out_port) << i;
  }
  EXPECT_TRUE(gpu.frames == frames) << "the GPU rewrote some frame differently";
  for (int c = 0; c < nf::L3FwdView::kCounterCount; ++c)
    EXPECT_EQ(gpu.counters[c], host_counters[0].value[c]) << nf::L3FwdView::kCounterNames[c];
  // Every outcome the routes were made to give did happen.
  for (int c : {nf::L3FwdView::kForwardedIpv4, nf::L3FwdView::kForwardedIpv6, nf::L3FwdView::kToHostTtl,
                nf::L3FwdView::kToHostNoRoute, nf::L3FwdView::kToHostNoNeighbour, nf::L3FwdView::kDropBadChecksum,
                nf::L3FwdView::kDropBlackhole})
    EXPECT_GT(host_counters[0].value[c], 0u) << nf::L3FwdView::kCounterNames[c];
  const nf::Router::Usage u = router.usage();
  std::printf("routes: %u IPv4, %u IPv6; groups %u / %u; next hops %u; GPU copy %.1f MiB\n", u.ipv4_routes,
              u.ipv6_routes, u.lpm4_groups, u.lpm6_groups, u.next_hops, double(u.device_bytes) / (1 << 20));
}

namespace {

struct RaceResult {
  unsigned long long lookups, wrong;
};

// Until *stop: every thread looks up 198.18.0.x and 2001:db8:18::x, which must always route via a
// gateway on port 1 (a covering route stays while longer ones come and go).
__global__ void race_lookups(nf::L3FwdTables tables, const volatile int* stop, RaceResult* result) {
  unsigned long long lookups = 0, wrong = 0;
  uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x18};
  for (uint32_t round = 0; !*stop; ++round) {
    const uint32_t host = (threadIdx.x + round * 37) & 0xff;
    v6[15] = uint8_t(host);
    v6[14] = uint8_t(round);
    uint32_t index4 = 0, index6 = 0;
    nf::NextHop hop4{}, hop6{};
    const bool ok4 = nf::lpm4_lookup(tables.lpm4, 0xc6120000u | host, index4) &&
                     nf::next_hop_at(tables.next_hops, index4, hop4) && hop4.kind == nf::NextHopKind::Gateway &&
                     hop4.port == 1;
    const bool ok6 = nf::lpm6_lookup(tables.lpm6, v6, index6) && nf::next_hop_at(tables.next_hops, index6, hop6) &&
                     hop6.kind == nf::NextHopKind::Gateway && hop6.port == 1;
    wrong += !ok4 + !ok6;
    lookups += 2;
  }
  atomicAdd(&result->lookups, lookups);
  atomicAdd(&result->wrong, wrong);
}

}  // namespace

TEST(L3FwdOnGpu, LookupsRacingRouteUpdatesNeverSeeAHalfMadeTable) {
  GNF_REQUIRE_GPU();
  nf::NfChain chain = make_router_chain();
  nf::Router& router = *chain.router(0);
  auto via = [](const char* gateway) { return nf::RouteTarget{nf::NextHopKind::Gateway, 1, *nf::parse_ip_address(gateway)}; };
  router.add_route(*nf::parse_ip_prefix("198.18.0.0/24"), via("10.0.1.2"));
  router.add_route(*nf::parse_ip_prefix("2001:db8:18::/48"), via("2001:db8:1::2"));
  const nf::L3FwdTables tables = chain.device_view().elements[0].l3fwd.tables;

  mem::Block control(mem::Domain::HostPinned, 4096);
  auto* stop = reinterpret_cast<volatile int*>(control.data());
  auto* result = reinterpret_cast<RaceResult*>(control.data() + 64);
  cudaStream_t stream;
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  race_lookups<<<8, 256, 0, stream>>>(tables, stop, result);
  GNF_CUDA_CHECK_LAUNCH();

  // Longer routes come and go with new next hops (new records each round), for a second.
  uint32_t rounds = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (; std::chrono::steady_clock::now() < end; ++rounds) {
    const std::string g4 = "10.0.1." + std::to_string(3 + rounds % 250), g6 = "2001:db8:1::" + std::to_string(3 + rounds % 250);
    for (int depth = 25; depth <= 32; ++depth) router.add_route(*nf::parse_ip_prefix("198.18.0.0/" + std::to_string(depth)), via(g4.c_str()));
    for (int depth = 56; depth <= 128; depth += 8)
      router.add_route(*nf::parse_ip_prefix("2001:db8:18::/" + std::to_string(depth)), via(g6.c_str()));
    for (int depth = 25; depth <= 32; ++depth) router.remove_route(*nf::parse_ip_prefix("198.18.0.0/" + std::to_string(depth)));
    for (int depth = 56; depth <= 128; depth += 8) router.remove_route(*nf::parse_ip_prefix("2001:db8:18::/" + std::to_string(depth)));
  }
  *stop = 1;
  GNF_CUDA_CHECK(cudaStreamSynchronize(stream));
  GNF_CUDA_CHECK(cudaStreamDestroy(stream));
  std::printf("%u update rounds (%u route changes) against %llu GPU lookups\n", rounds, rounds * 36, result->lookups);
  EXPECT_GT(rounds, 10u);
  EXPECT_GT(result->lookups, 1'000'000ull);
  EXPECT_EQ(result->wrong, 0ull);
}
