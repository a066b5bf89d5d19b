// The GPU's ESP cipher: cipher.h's seal and open over gnf's own AES (aes.h), GCM (gcm.h) and
// HMAC-SHA1 (sha1.h), one thread per packet, host and device from one source. On the host the
// same code is held byte for byte to OpensslEspCipher (tests/unit/test_ipsec_device_cipher.cpp);
// in a kernel it is the device branch of the ipsec NF.
//
// DeviceEspCipher is a view, trivially copyable, passed to kernels by value: the AES tables and
// one EspSaKeys per SA, indexed by the SA's index, everything a packet needs precomputed on the
// host when the SAs are loaded (key schedules, GHASH's tables, HMAC's midstates). EspKeys makes
// them in host memory, DeviceEspKeys copies them into GPU memory. The tables are AesTables by
// address (host memory, or global memory in the NF inside the drivers' kernels); the cipher's own
// kernels first copy them into shared memory, a copy per bank (esp_cipher_in_shared below,
// aes_lanes.cuh says why), and run LaneEspCipher. The per-SA keys stay in global memory, read
// through L1 (shared by every packet of that SA); a packet's loop copies its round keys into
// registers (aes.h's AesRoundKeys).
//
// GCM also runs on a tile of lanes per packet (seal_tile, open_tile: gcm.h's aes_gcm_lane), the
// lanes' loads and stores then neighbouring bytes; the other algorithms are serial per packet
// (CBC's chain, SHA-1's), and on a tile its leader runs them alone.
#pragma once
#include <cstdint>
#include <type_traits>
#include <vector>

#include "mem/block.h"
#include "nf/ipsec/aes.h"
#include "nf/ipsec/cipher.h"
#include "nf/ipsec/gcm.h"
#include "nf/ipsec/sha1.h"
#include "util/hd.h"
#if defined(__CUDACC__)
#include "nf/ipsec/aes_lanes.cuh"
#include "nf/tile.cuh"
#endif

namespace gnf::nf {

struct EspSaKeys {
  AesKey encryption;  // GCM's counter mode, CBC's encryption and its IV
  AesKey decryption;  // CBC's decryption
  GhashPowers ghash;  // GCM: H^1 for a thread per packet, H^1 .. H^32 for tiles
  HmacSha1Key hmac;   // HMAC-SHA1-96
};

// Whether the first `bytes` of a and b are equal, in time that does not depend on where they differ.
GNF_INLINE bool esp_icv_equal(const uint8_t* a, const uint8_t* b, uint32_t bytes) {
  uint32_t difference = 0;
  for (uint32_t i = 0; i < bytes; ++i) difference |= uint32_t(a[i] ^ b[i]);
  return difference == 0;
}

template <class Tables>  // AesTablesAt or, in a kernel of the cipher's own, AesLaneTables
struct BasicEspCipher {
  Tables tables;
  const EspSaKeys* keys;  // keys[sa_index]

  GNF_HD bool seal(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job) const {
    const EspSaKeys& k = keys[sa_index];
    uint8_t* payload = esp_payload(sa, job);
    if (sa.auth == EspAuth::Gcm) {
      esp_gcm_iv(job.seq, esp_iv(job));
      aes_store(esp_icv(sa, job), gcm(k, esp_gcm_input(sa, job), payload, job.payload, true));
      return true;
    }
    if (sa.cipher == EspCipher::AesCbc128) {
      uint8_t nonce[kAesBlockBytes];
      esp_cbc_iv_nonce(sa.spi, job.seq, nonce);
      aes_store(esp_iv(job), aes_encrypt(tables, k.encryption, aes_load(nonce)));
      aes_cbc_encrypt(tables, k.encryption, esp_iv(job), payload, job.payload);
    }
    if (sa.auth == EspAuth::HmacSha1_96) {
      uint8_t digest[kSha1DigestBytes];
      icv_of(k, sa, job, digest);
      uint8_t* icv = esp_icv(sa, job);
      for (uint32_t i = 0; i < esp_icv_bytes(sa.auth); ++i) icv[i] = digest[i];
    }
    return true;
  }

  GNF_HD bool open(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job) const {
    const EspSaKeys& k = keys[sa_index];
    uint8_t* payload = esp_payload(sa, job);
    if (sa.auth == EspAuth::Gcm) {
      uint8_t tag[16];
      aes_store(tag, gcm(k, esp_gcm_input(sa, job), payload, job.payload, false));
      return esp_icv_equal(tag, esp_icv(sa, job), 16);
    }
    if (sa.auth == EspAuth::HmacSha1_96) {
      uint8_t digest[kSha1DigestBytes];
      icv_of(k, sa, job, digest);
      if (!esp_icv_equal(digest, esp_icv(sa, job), esp_icv_bytes(sa.auth))) return false;
    }
    if (sa.cipher == EspCipher::AesCbc128) aes_cbc_decrypt(tables, k.decryption, esp_iv(job), payload, job.payload);
    return true;
  }

#if defined(__CUDACC__)
  // seal and open on a tile: every lane of `tile` calls them with the same packet and gets the
  // same answer. The bytes are seal's and open's.
  __device__ bool seal_tile(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job, const Tile& tile) const {
    if (sa.auth != EspAuth::Gcm) return tile.from(0, tile.leader() ? seal(sa_index, sa, job) : false);
    return seal_gcm_tile(sa_index, sa, job, tile);
  }
  __device__ bool open_tile(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job, const Tile& tile) const {
    if (sa.auth != EspAuth::Gcm) return tile.from(0, tile.leader() ? open(sa_index, sa, job) : false);
    return open_gcm_tile(sa_index, sa, job, tile);
  }

  // The same for an SA that is GCM's: a kernel that only ever runs GCM SAs calls these and carries
  // none of the serial algorithms' code, so it needs fewer registers (gnf-esp-bench's GCM kernels).
  __device__ bool seal_gcm_tile(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job, const Tile& tile) const {
    // The IV is in place before any lane reads it into the nonce (the tile's barrier orders memory).
    if (tile.leader()) esp_gcm_iv(job.seq, esp_iv(job));
    __syncwarp(tile.mask);
    const AesBlock tag = gcm_tile(keys[sa_index], esp_gcm_input(sa, job), esp_payload(sa, job), job.payload, true, tile);
    if (tile.leader()) aes_store(esp_icv(sa, job), tag);
    return true;
  }
  __device__ bool open_gcm_tile(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job, const Tile& tile) const {
    const AesBlock tag = gcm_tile(keys[sa_index], esp_gcm_input(sa, job), esp_payload(sa, job), job.payload, false, tile);
    uint8_t bytes[16];
    aes_store(bytes, tag);
    return tile.from(0, tile.leader() ? esp_icv_equal(bytes, esp_icv(sa, job), 16) : false);
  }
#endif

 private:
  GNF_HD AesBlock gcm(const EspSaKeys& k, const EspGcmInput& in, uint8_t* payload, uint32_t bytes, bool encrypt) const {
    return aes_gcm(tables, k.encryption, k.ghash, in.nonce, in.aad, in.aad_bytes, payload, bytes, encrypt);
  }
#if defined(__CUDACC__)
  // Every lane's share of the tag (aes_gcm_lane), XORed over the tile; the tag, in the leader only.
  __device__ AesBlock gcm_tile(const EspSaKeys& k, const EspGcmInput& in, uint8_t* payload, uint32_t bytes,
                               bool encrypt, const Tile& tile) const {
    Ghash s = aes_gcm_lane(tables, k.encryption, k.ghash, in.nonce, in.aad, in.aad_bytes, payload, bytes, encrypt,
                           tile.lane, tile.size);
    s.hi = tile.xor_all(s.hi), s.lo = tile.xor_all(s.lo);
    return tile.leader() ? aes_gcm_tag(s) : AesBlock{};
  }
#endif
  GNF_HD static void icv_of(const EspSaKeys& k, const IpsecSa& sa, const EspCryptoJob& job,
                            uint8_t digest[kSha1DigestBytes]) {
    uint8_t high[4];
    const uint32_t extra = esp_hmac_extra(sa, job, high);
    hmac_sha1(k.hmac, job.esp, esp_hmac_covered(sa, job), high, extra, digest);
  }
};

using DeviceEspCipher = BasicEspCipher<AesTablesAt>;

// Passed to kernels by value, as the NFs' views are.
static_assert(std::is_trivially_copyable_v<DeviceEspCipher>);
static_assert(std::is_trivially_copyable_v<EspSaKeys>);
static_assert(sizeof(AesTables) % 4 == 0);

// One SA's keys, from its key bytes (its direction does not matter: both schedules are made).
EspSaKeys esp_sa_keys(const IpsecSa& sa);

// The keys of a set of SAs in host memory, in the order their indexes name them.
class EspKeys {
 public:
  explicit EspKeys(const std::vector<IpsecSa>& sas);
  // The cipher over host memory (tests run the device code on the host through it).
  DeviceEspCipher host_view() const { return DeviceEspCipher{AesTablesAt{&aes_tables()}, keys_.data()}; }
  const std::vector<EspSaKeys>& keys() const { return keys_; }

 private:
  std::vector<EspSaKeys> keys_;
};

// A GPU-memory copy of the tables and of EspKeys, for kernels. SAs are loaded once: a changed SA
// set is a new object (no live update yet). Throws where CUDA is not built in.
class DeviceEspKeys {
 public:
  explicit DeviceEspKeys(const EspKeys& keys);
  DeviceEspCipher view() const;
  size_t device_bytes() const { return tables_.size() + keys_.size(); }

 private:
  mem::Block tables_, keys_;
};

#if defined(__CUDACC__)
using LaneEspCipher = BasicEspCipher<AesLaneTables>;

// Every thread of a 1-D block calls it at the kernel's start, before any thread returns: copies
// the AES tables from `cipher`'s into `shared` (kAesLaneTablesBytes of dynamic shared memory,
// aes_lanes.cuh) and returns the cipher that reads them there.
__device__ inline LaneEspCipher esp_cipher_in_shared(const DeviceEspCipher& cipher, void* shared) {
  return LaneEspCipher{aes_lane_tables(*cipher.tables.at, shared), cipher.keys};
}

// Such a kernel needs leave for more than 48 KiB of dynamic shared memory, once before its first launch.
template <class Kernel>
cudaError_t esp_allow_lane_tables(Kernel* kernel) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kAesLaneTablesBytes));
}
#endif

}  // namespace gnf::nf
