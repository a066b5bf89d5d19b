// The GPU's ESP cipher (nf/ipsec/device_cipher.h) in a kernel, a thread or a tile per packet, byte for
// byte against the CPU's OpensslEspCipher: every cipher, ESN on and off, payloads of 0 to 9000
// bytes at every alignment, one SA table for all of them in GPU memory and the AES tables staged
// in shared memory. The GPU seals what OpenSSL seals, opens what OpenSSL sealed, and refuses a
// packet with a flipped bit.
#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "../unit/random_esp.h"
#include "gpu_test.h"
#include "mem/block.h"
#include "nf/ipsec/device_cipher.h"
#include "nf/ipsec/openssl_cipher.h"
#include "util/cuda_check.h"

using namespace gnf;
using namespace gnf::nf;

namespace {

struct PacketJob {
  uint64_t offset;  // of the ESP header in the packet buffer
  uint32_t payload;
  uint32_t sa;
  uint64_t seq;
};

// kTile lanes per packet: 1 runs seal and open on a thread, more seal_tile and open_tile. The AES
// tables a copy per bank in shared memory (the cipher's own kernels), or where `in_global` has
// them (the NF in the drivers' kernels).
template <bool kSeal, uint32_t kTile, class Cipher>
__device__ void run_cipher(const Cipher& cipher, const IpsecSa* sas, const PacketJob* jobs, uint32_t count,
                           uint8_t* buffer, uint8_t* ok) {
  const Tile tile = tile_of(kTile);
  for (uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / kTile; i < count; i += gridDim.x * blockDim.x / kTile) {
    const PacketJob j = jobs[i];
    const EspCryptoJob job{buffer + j.offset, j.payload, j.seq};
    bool good;
    if constexpr (kTile == 1) good = kSeal ? cipher.seal(j.sa, sas[j.sa], job) : cipher.open(j.sa, sas[j.sa], job);
    else good = kSeal ? cipher.seal_tile(j.sa, sas[j.sa], job, tile) : cipher.open_tile(j.sa, sas[j.sa], job, tile);
    if (tile.leader()) ok[i] = good;
  }
}

template <bool kSeal, uint32_t kTile, bool kLaneTables>
__global__ void cipher_kernel(DeviceEspCipher in_global, const IpsecSa* sas, const PacketJob* jobs, uint32_t count,
                              uint8_t* buffer, uint8_t* ok) {
  extern __shared__ uint4 shared[];
  if constexpr (kLaneTables) run_cipher<kSeal, kTile>(esp_cipher_in_shared(in_global, shared), sas, jobs, count, buffer, ok);
  else run_cipher<kSeal, kTile>(in_global, sas, jobs, count, buffer, ok);
}

template <bool kSeal, uint32_t kTile, bool kLaneTables>
void launch_one(const DeviceEspCipher& cipher, const IpsecSa* sas, const PacketJob* jobs, uint32_t count, uint8_t* buffer,
                uint8_t* ok) {
  const auto kernel = cipher_kernel<kSeal, kTile, kLaneTables>;
  const uint32_t shared = kLaneTables ? kAesLaneTablesBytes : 0;
  GNF_CUDA_CHECK(esp_allow_lane_tables(kernel));
  kernel<<<264, 128, shared>>>(cipher, sas, jobs, count, buffer, ok);
  GNF_CUDA_CHECK_LAUNCH();
}

template <bool kSeal>
void launch(uint32_t tile, bool lane_tables, DeviceEspCipher cipher, const IpsecSa* sas, const PacketJob* jobs,
            uint32_t count, uint8_t* buffer, uint8_t* ok) {
  const auto go = [&](auto tile_size) {
    if (lane_tables) launch_one<kSeal, decltype(tile_size)::value, true>(cipher, sas, jobs, count, buffer, ok);
    else launch_one<kSeal, decltype(tile_size)::value, false>(cipher, sas, jobs, count, buffer, ok);
  };
  switch (tile) {
    case 1: go(std::integral_constant<uint32_t, 1>{}); break;
    case 4: go(std::integral_constant<uint32_t, 4>{}); break;
    case 16: go(std::integral_constant<uint32_t, 16>{}); break;
    case 32: go(std::integral_constant<uint32_t, 32>{}); break;
    default: FAIL() << "no kernel for a tile of " << tile;
  }
}

// Every algorithm with ESN off and on, each as an outbound SA (even index) and its inbound twin.
std::vector<IpsecSa> random_sas(std::mt19937_64& rng) {
  std::vector<IpsecSa> sas;
  for (const test::EspAlgorithm& a : test::kEspAlgorithms)
    for (const bool esn : {false, true})
      for (const IpsecSa& sa : test::random_sa_pair(a, esn, rng)) sas.push_back(sa);
  return sas;
}

uint32_t packet_bytes(const IpsecSa& sa, uint32_t payload) {
  return kEspHeaderBytes + esp_iv_bytes(sa.cipher) + payload + esp_icv_bytes(sa.auth);
}

// Runs the cipher over `buffer`'s packets on the GPU; returns the buffer after it and each packet's verdict.
template <bool kSeal>
std::vector<uint8_t> on_gpu(uint32_t tile, bool lane_tables, const DeviceEspCipher& cipher, const mem::Block& sas, const mem::Block& jobs,
                            uint32_t count, const std::vector<uint8_t>& buffer, std::vector<uint8_t>& ok) {
  mem::Block device_buffer(mem::Domain::Device, buffer.size()), device_ok(mem::Domain::Device, count);
  device_buffer.copy_in(device_buffer.data(), buffer.data(), buffer.size());
  launch<kSeal>(tile, lane_tables, cipher, reinterpret_cast<const IpsecSa*>(sas.data()),
                reinterpret_cast<const PacketJob*>(jobs.data()), count, device_buffer.data(), device_ok.data());
  GNF_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<uint8_t> out(buffer.size());
  device_buffer.copy_out(out.data(), device_buffer.data(), out.size());
  ok.resize(count);
  device_ok.copy_out(ok.data(), device_ok.data(), count);
  return out;
}

}  // namespace

// A thread per packet (tile 1), and tiles of lanes (GCM dealt out over them, the rest on the
// leader); the AES tables in shared memory (a copy per bank) or in global memory.
class EspCipherOnGpu : public ::testing::TestWithParam<std::tuple<uint32_t, bool>> {};

TEST_P(EspCipherOnGpu, SealsAndOpensByteForByteAsOpenssl) {
  GNF_REQUIRE_GPU();
  const auto [tile, lane_tables] = GetParam();
  std::mt19937_64 rng(4303);
  const std::vector<IpsecSa> sas = random_sas(rng);
  OpensslEspCipher openssl(sas);
  const EspKeys keys(sas);
  const DeviceEspKeys device_keys(keys);

  // Packets one after another at every alignment, plaintext in `plain`; the outbound jobs name
  // the even SAs, the inbound ones their odd twins.
  constexpr uint32_t kPackets = 20'000;
  std::vector<PacketJob> seal_jobs, open_jobs;
  std::vector<uint8_t> plain;
  for (uint32_t i = 0; i < kPackets; ++i) {
    const uint32_t out_sa = 2 * uint32_t(rng() % (sas.size() / 2));
    const IpsecSa& sa = sas[out_sa];
    const uint32_t bytes = uint32_t(i % 2 ? rng() % 9001 : rng() % 97);
    const uint32_t payload = bytes - bytes % esp_alignment(sa.cipher);
    const uint64_t seq = sa.esn ? rng() >> 1 : uint32_t(rng());
    const uint64_t offset = plain.size() + rng() % 8;
    plain.resize(offset + packet_bytes(sa, payload));
    for (uint64_t b = offset; b < plain.size(); ++b) plain[b] = uint8_t(rng());
    wire::store_be32(&plain[offset], sa.spi);
    wire::store_be32(&plain[offset + 4], uint32_t(seq));
    seal_jobs.push_back(PacketJob{offset, payload, out_sa, seq});
    open_jobs.push_back(PacketJob{offset, payload, out_sa + 1, seq});
  }
  mem::Block device_sas(mem::Domain::Device, sas.size() * sizeof(IpsecSa)),
      device_seal_jobs(mem::Domain::Device, kPackets * sizeof(PacketJob)),
      device_open_jobs(mem::Domain::Device, kPackets * sizeof(PacketJob));
  device_sas.copy_in(device_sas.data(), sas.data(), device_sas.size());
  device_seal_jobs.copy_in(device_seal_jobs.data(), seal_jobs.data(), device_seal_jobs.size());
  device_open_jobs.copy_in(device_open_jobs.data(), open_jobs.data(), device_open_jobs.size());

  std::vector<uint8_t> by_openssl = plain;
  for (const PacketJob& j : seal_jobs)
    ASSERT_TRUE(openssl.seal(j.sa, sas[j.sa], EspCryptoJob{by_openssl.data() + j.offset, j.payload, j.seq}));
  std::vector<uint8_t> ok;
  const std::vector<uint8_t> by_gpu = on_gpu<true>(tile, lane_tables, device_keys.view(), device_sas, device_seal_jobs, kPackets, plain, ok);
  size_t mismatches = 0;
  for (uint32_t i = 0; i < kPackets; ++i) {
    const PacketJob& j = seal_jobs[i];
    const uint32_t bytes = packet_bytes(sas[j.sa], j.payload);
    EXPECT_TRUE(ok[i]) << "packet " << i;
    if (!std::equal(by_gpu.begin() + j.offset, by_gpu.begin() + j.offset + bytes, by_openssl.begin() + j.offset) &&
        ++mismatches <= 5)
      ADD_FAILURE() << "packet " << i << " (SA " << j.sa << ", payload " << j.payload << "): sealed differently";
  }
  EXPECT_EQ(mismatches, 0u);

  // Every third packet with a bit flipped from its sequence number on (cipher.h: the SPI picks
  // the SA before the cipher is asked); the receiver's sequence number is the one it reads.
  std::vector<uint8_t> to_open = by_openssl;
  std::vector<bool> forged(kPackets, false);
  for (uint32_t i = 0; i < kPackets; i += 3) {
    PacketJob& j = open_jobs[i];
    if (sas[j.sa].auth == EspAuth::Null) continue;
    const uint64_t bit = 32 + rng() % (packet_bytes(sas[j.sa], j.payload) * 8 - 32);
    to_open[j.offset + bit / 8] ^= uint8_t(1 << bit % 8);
    j.seq = (j.seq & ~0xFFFFFFFFull) | wire::load_be32(&to_open[j.offset + 4]);
    forged[i] = true;
  }
  device_open_jobs.copy_in(device_open_jobs.data(), open_jobs.data(), device_open_jobs.size());
  const std::vector<uint8_t> opened = on_gpu<false>(tile, lane_tables, device_keys.view(), device_sas, device_open_jobs, kPackets, to_open, ok);
  size_t refused = 0, wrong = 0;
  for (uint32_t i = 0; i < kPackets; ++i) {
    const PacketJob& j = open_jobs[i];
    if (forged[i]) {
      EXPECT_FALSE(ok[i]) << "packet " << i << ": a flipped bit was accepted";
      ++refused;
      continue;
    }
    EXPECT_TRUE(ok[i]) << "packet " << i;
    const uint64_t at = j.offset + kEspHeaderBytes + esp_iv_bytes(sas[j.sa].cipher);
    if (!std::equal(opened.begin() + at, opened.begin() + at + j.payload, plain.begin() + at) && ++wrong <= 5)
      ADD_FAILURE() << "packet " << i << " (SA " << j.sa << "): opened to other bytes";
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(refused, kPackets / 5);
  std::printf("ESP cipher on the GPU, %u lane(s) a packet, AES tables in %s memory: %u packets sealed as OpenSSL does, "
              "opened, %zu forgeries refused\n", tile, lane_tables ? "shared" : "global", kPackets, refused);
}

INSTANTIATE_TEST_SUITE_P(LanesPerPacket, EspCipherOnGpu,
                         ::testing::Values(std::make_tuple(1u, true), std::make_tuple(4u, true), std::make_tuple(16u, true),
                                           std::make_tuple(32u, true), std::make_tuple(1u, false),
                                           std::make_tuple(16u, false)));
