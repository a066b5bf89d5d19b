// What gnf-esp-bench measures (README.md here): ESP packets ready for the cipher, laid out as gnf's
// slots hold them, for one algorithm and one packet size; the GPU half (gpu.h) and the OpenSSL half
// (cpu.h) seal and open the same ones.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nf/ipsec/cipher.h"
#include "nf/ipsec/sa.h"
#include "util/hd.h"

namespace gnf::esp_bench {

struct Algorithm {
  const char* name;
  nf::EspCipher cipher;
  nf::EspAuth auth;
};
inline const Algorithm kAlgorithms[] = {{"aes-128-cbc+hmac-sha1-96", nf::EspCipher::AesCbc128, nf::EspAuth::HmacSha1_96},
                                        {"aes-128-gcm", nf::EspCipher::AesGcm128, nf::EspAuth::Gcm},
                                        {"aes-256-gcm", nf::EspCipher::AesGcm256, nf::EspAuth::Gcm}};

// Inner IP packet sizes: one, or IMIX's mix (0 stands for it).
inline constexpr uint32_t kImix = 0;
inline const uint32_t kSizes[] = {64, 512, 1420, kImix};
std::string size_name(uint32_t size);

// One packet's work, as a kernel reads it.
struct PacketJob {
  uint64_t offset;   // of the ESP header in the slots
  uint32_t payload;  // bytes to encrypt: the inner packet, padding and trailer
  uint32_t sa;       // outbound SA; its inbound twin is sa + 1
  uint64_t seq;
};

struct Workload {
  std::vector<nf::IpsecSa> sas;  // kSas outbound SAs, each followed by its inbound twin
  std::vector<PacketJob> jobs;   // packets spread over the SAs in turn
  std::vector<uint8_t> slots;    // the packets' bytes, plaintext
  uint64_t inner_bytes = 0;      // the inner packets' bytes together: what Gbit/s counts
};

inline constexpr uint32_t kSas = 16;
// A slot per packet, the ESP header behind an Ethernet and outer IPv4 header as in a tunnel.
inline constexpr uint32_t kSlotBytes = 2048;
inline constexpr uint32_t kEspAt = 14 + 20;

Workload make_workload(const Algorithm& a, uint32_t size, uint32_t packets, uint64_t seed);

// The job as the cipher takes it, in `slots` (the workload's or a copy).
GNF_INLINE nf::EspCryptoJob crypto_job(const PacketJob& j, uint8_t* slots) {
  return nf::EspCryptoJob{slots + j.offset, j.payload, j.seq};
}

}  // namespace gnf::esp_bench
