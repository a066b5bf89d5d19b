// Random SAs of every ESP algorithm gnf implements, for the cipher tests on the host
// (test_ipsec_device_cipher.cpp) and on the GPU (tests/gpu/test_esp_cipher_gpu.cu).
#pragma once
#include <random>
#include <vector>

#include "nf/ipsec/cipher.h"
#include "nf/ipsec/sa.h"
#include "wire/bytes.h"

namespace gnf::test {

struct EspAlgorithm {
  const char* name;
  nf::EspCipher cipher;
  nf::EspAuth auth;
};
inline const EspAlgorithm kEspAlgorithms[] = {
    {"null", nf::EspCipher::Null, nf::EspAuth::Null},
    {"null + hmac-sha1-96", nf::EspCipher::Null, nf::EspAuth::HmacSha1_96},
    {"aes-128-cbc + hmac-sha1-96", nf::EspCipher::AesCbc128, nf::EspAuth::HmacSha1_96},
    {"aes-128-gcm", nf::EspCipher::AesGcm128, nf::EspAuth::Gcm},
    {"aes-256-gcm", nf::EspCipher::AesGcm256, nf::EspAuth::Gcm}};

// An outbound SA with random SPI, keys and salt, then its inbound twin.
inline std::vector<nf::IpsecSa> random_sa_pair(const EspAlgorithm& a, bool esn, std::mt19937_64& rng) {
  nf::IpsecSa sa{};
  sa.spi = uint32_t(rng());
  sa.cipher = a.cipher;
  sa.auth = a.auth;
  sa.esn = esn;
  for (uint8_t& b : sa.cipher_key) b = uint8_t(rng());
  for (uint8_t& b : sa.salt) b = uint8_t(rng());
  for (uint8_t& b : sa.auth_key) b = uint8_t(rng());
  nf::IpsecSa in = sa;
  in.direction = nf::IpsecDirection::In;
  return {sa, in};
}

// An ESP packet's bytes for the cipher: header, room for the IV, `payload` random bytes, room for the ICV.
inline std::vector<uint8_t> random_packet(const nf::IpsecSa& sa, uint64_t seq, uint32_t payload, std::mt19937_64& rng) {
  std::vector<uint8_t> p(nf::kEspHeaderBytes + nf::esp_iv_bytes(sa.cipher) + payload + nf::esp_icv_bytes(sa.auth));
  for (uint8_t& b : p) b = uint8_t(rng());
  wire::store_be32(p.data(), sa.spi);
  wire::store_be32(p.data() + 4, uint32_t(seq));
  return p;
}

inline nf::EspCryptoJob job_of(std::vector<uint8_t>& packet, uint32_t payload, uint64_t seq) {
  return nf::EspCryptoJob{packet.data(), payload, seq};
}

}  // namespace gnf::test
