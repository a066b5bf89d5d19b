// The CPU's intel-ipsec-mb cipher (nf/ipsec/ipsec_mb_cipher.h) byte for byte against OpenSSL's
// (openssl_cipher.h), a library nobody here wrote against another: every algorithm, ESN on and
// off, payloads of 0 to 9000 bytes; per packet and in bursts that mix SAs of every algorithm, so
// that multi-buffer lanes hold packets of different keys and lengths; what one seals the other
// opens; a flipped bit, or the wrong high sequence half with ESN, is refused in a burst without
// touching its neighbours' outcomes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "random_esp.h"
#include "nf/ipsec/host_cipher.h"
#include "nf/ipsec/ipsec_mb_cipher.h"
#include "nf/ipsec/openssl_cipher.h"

using namespace gnf;
using namespace gnf::nf;
using test::job_of;
using test::random_packet;

namespace {

// Half small payloads (partial blocks, empty ones), half up to a jumbo frame's.
uint32_t random_payload(EspCipher cipher, std::mt19937_64& rng, int i) {
  const uint32_t bytes = uint32_t(i % 2 ? rng() % 9001 : rng() % 97);
  return bytes - bytes % esp_alignment(cipher);
}

}  // namespace

TEST(IpsecMbEspCipher, SealsPerPacketByteForByteAsOpensslAndOpensWhatOpensslSeals) {
  std::mt19937_64 rng(29);
  for (const test::EspAlgorithm& a : test::kEspAlgorithms) {
    for (const bool esn : {false, true}) {
      for (int key_set = 0; key_set < 4; ++key_set) {
        const std::vector<IpsecSa> sas = test::random_sa_pair(a, esn, rng);
        OpensslEspCipher openssl(sas);
        IpsecMbEspCipher mb(sas);
        for (int i = 0; i < 60; ++i) {
          const uint32_t payload = random_payload(a.cipher, rng, i);
          const uint64_t seq = esn ? rng() >> 1 : uint32_t(rng());
          const std::string where = std::string(a.name) + (esn ? " esn" : "") + " payload " + std::to_string(payload) +
                                    " on " + mb.arch();
          const std::vector<uint8_t> plain = random_packet(sas[0], seq, payload, rng);
          std::vector<uint8_t> by_openssl = plain, by_mb = plain;
          ASSERT_TRUE(openssl.seal(0, sas[0], job_of(by_openssl, payload, seq))) << where;
          ASSERT_TRUE(mb.seal(0, sas[0], job_of(by_mb, payload, seq))) << where;
          ASSERT_EQ(by_mb, by_openssl) << where;

          std::vector<uint8_t> opened = by_openssl;
          ASSERT_TRUE(mb.open(1, sas[1], job_of(opened, payload, seq))) << where;
          opened.resize(opened.size() - esp_icv_bytes(a.auth));  // the ICV is the received one, put back
          std::vector<uint8_t> expected = plain;
          std::copy(by_openssl.begin(), by_openssl.begin() + kEspHeaderBytes + esp_iv_bytes(a.cipher), expected.begin());
          expected.resize(opened.size());
          EXPECT_EQ(opened, expected) << where;
          if (a.auth == EspAuth::Null) continue;
          std::vector<uint8_t> flipped = by_openssl;
          const size_t bit = 32 + rng() % (flipped.size() * 8 - 32);
          flipped[bit / 8] ^= uint8_t(1 << bit % 8);
          const uint64_t seq_as_sent = (seq & ~0xFFFFFFFFull) | wire::load_be32(flipped.data() + 4);
          EXPECT_FALSE(mb.open(1, sas[1], job_of(flipped, payload, seq_as_sent))) << where << ", bit " << bit;
        }
      }
    }
  }
}

// Bursts of up to kMaxBurst packets over SAs of every algorithm at once, some tampered with.
TEST(IpsecMbEspCipher, BurstsOfMixedSasMatchOpensslPacketByPacket) {
  std::mt19937_64 rng(31);
  std::vector<IpsecSa> sas;
  for (const test::EspAlgorithm& a : test::kEspAlgorithms)
    for (const bool esn : {false, true})
      for (const IpsecSa& sa : test::random_sa_pair(a, esn, rng)) sas.push_back(sa);
  OpensslEspCipher openssl(sas);
  IpsecMbEspCipher mb(sas);
  size_t sealed = 0, refused = 0;
  for (int burst = 0; burst < 40; ++burst) {
    const uint32_t n = 1 + uint32_t(rng() % IpsecMbEspCipher::kMaxBurst);
    std::vector<std::vector<uint8_t>> plain(n), by_mb(n), by_openssl(n);
    std::vector<EspBurstJob> seal_jobs(n), open_jobs(n);
    std::vector<bool> tampered(n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t out = 2 * uint32_t(rng() % (sas.size() / 2));
      const IpsecSa& sa = sas[out];
      const uint32_t payload = random_payload(sa.cipher, rng, int(rng() % 2));
      const uint64_t seq = sa.esn ? rng() >> 1 : uint32_t(rng());
      plain[i] = random_packet(sa, seq, payload, rng);
      by_mb[i] = by_openssl[i] = plain[i];
      seal_jobs[i] = {out, job_of(by_mb[i], payload, seq)};
      open_jobs[i] = {out + 1, job_of(by_openssl[i], payload, seq)};
      ASSERT_TRUE(openssl.seal(out, sa, job_of(by_openssl[i], payload, seq)));
      tampered[i] = sa.auth != EspAuth::Null && rng() % 4 == 0;
      if (tampered[i]) by_openssl[i][kEspHeaderBytes + rng() % (by_openssl[i].size() - kEspHeaderBytes)] ^= 0x10;
    }
    bool seal_ok[IpsecMbEspCipher::kMaxBurst], open_ok[IpsecMbEspCipher::kMaxBurst];
    mb.seal_burst(seal_jobs.data(), n, seal_ok);
    mb.open_burst(open_jobs.data(), n, open_ok);
    for (uint32_t i = 0; i < n; ++i) {
      const IpsecSa& sa = sas[seal_jobs[i].sa_index];
      const std::string where = "burst " + std::to_string(burst) + " packet " + std::to_string(i) + " (" +
                                std::to_string(int(sa.cipher)) + "/" + std::to_string(int(sa.auth)) + ")";
      ASSERT_TRUE(seal_ok[i]) << where;
      // by_openssl[i] was opened in place: the seal is compared with a fresh one, the opening with
      // the plaintext.
      std::vector<uint8_t> expected = plain[i];
      const EspCryptoJob& job = seal_jobs[i].job;
      ASSERT_TRUE(openssl.seal(seal_jobs[i].sa_index, sa, job_of(expected, job.payload, job.seq)));
      const size_t payload_at = kEspHeaderBytes + esp_iv_bytes(sa.cipher);
      if (!tampered[i]) {
        EXPECT_TRUE(std::equal(plain[i].begin() + payload_at, plain[i].begin() + payload_at + job.payload,
                               by_openssl[i].begin() + payload_at)) << where;
      }
      EXPECT_EQ(by_mb[i], expected) << where;
      EXPECT_EQ(open_ok[i], !tampered[i]) << where;
      ++sealed;
      refused += !open_ok[i];
    }
  }
  EXPECT_GT(sealed, 1000u);
  EXPECT_GT(refused, 100u);
}

// `[[nf]] cpu_library`'s names.
TEST(HostEspCipher, LibraryNamesRoundTrip) {
  for (const char* name : {"auto", "openssl", "ipsec-mb"})
    EXPECT_STREQ(cpu_crypto_library_name(cpu_crypto_library_from_name(name)), name);
  EXPECT_THROW(cpu_crypto_library_from_name("aesni_mb"), std::invalid_argument);
}

// Every library choice seals as OpenSSL does, and opens what it sealed.
TEST(HostEspCipher, EveryLibraryChoiceSealsAsOpenssl) {
  std::mt19937_64 rng(37);
  std::vector<IpsecSa> sas;
  for (const test::EspAlgorithm& a : test::kEspAlgorithms)
    for (const IpsecSa& sa : test::random_sa_pair(a, false, rng)) sas.push_back(sa);
  OpensslEspCipher openssl(sas);
  for (const CpuCryptoLibrary library : {CpuCryptoLibrary::Auto, CpuCryptoLibrary::Openssl, CpuCryptoLibrary::IpsecMb}) {
    HostEspCipher host(sas, library);
    for (uint32_t out = 0; out < sas.size(); out += 2) {
      const uint32_t payload = random_payload(sas[out].cipher, rng, 1);
      const std::vector<uint8_t> plain = random_packet(sas[out], 7, payload, rng);
      std::vector<uint8_t> a = plain, b = plain;
      ASSERT_TRUE(host.seal(out, sas[out], job_of(a, payload, 7)));
      ASSERT_TRUE(openssl.seal(out, sas[out], job_of(b, payload, 7)));
      EXPECT_EQ(a, b) << cpu_crypto_library_name(library) << " sa " << out;
      EXPECT_TRUE(host.open(out + 1, sas[out + 1], job_of(a, payload, 7)));
    }
    // The same as one burst a direction, of one, two (auto: a packet at a time) or every SA.
    for (const uint32_t n : {1u, 2u, uint32_t(sas.size() / 2)}) {
      std::vector<std::vector<uint8_t>> by_host, by_openssl;
      std::vector<EspBurstJob> seal_jobs, open_jobs;
      std::vector<uint32_t> payloads;
      for (uint32_t out = 0; out < 2 * n; out += 2) {
        payloads.push_back(random_payload(sas[out].cipher, rng, 1));
        by_host.push_back(random_packet(sas[out], 9, payloads.back(), rng));
        by_openssl.push_back(by_host.back());
      }
      for (uint32_t k = 0; k < by_host.size(); ++k) {
        seal_jobs.push_back({2 * k, job_of(by_host[k], payloads[k], 9)});
        open_jobs.push_back({2 * k + 1, job_of(by_host[k], payloads[k], 9)});
        ASSERT_TRUE(openssl.seal(2 * k, sas[2 * k], job_of(by_openssl[k], payloads[k], 9)));
      }
      bool sealed[16], opened[16];
      ASSERT_LE(by_host.size(), 16u);
      host.seal_burst(seal_jobs.data(), uint32_t(seal_jobs.size()), sealed);
      for (uint32_t k = 0; k < by_host.size(); ++k) {
        EXPECT_TRUE(sealed[k]);
        EXPECT_EQ(by_host[k], by_openssl[k]) << cpu_crypto_library_name(library) << " burst sa " << 2 * k;
      }
      host.open_burst(open_jobs.data(), uint32_t(open_jobs.size()), opened);
      for (uint32_t k = 0; k < by_host.size(); ++k) EXPECT_TRUE(opened[k]) << cpu_crypto_library_name(library);
    }
  }
}
