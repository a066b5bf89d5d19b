// What the ESP code (ipsec.h) asks of a cipher, and the bytes every implementation must agree on.
//
// A cipher is any type with
//   bool seal(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job);
//     writes the IV after the ESP header, encrypts the payload in place, writes the ICV after it;
//     false only when the library fails.
//   bool open(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job);
//     checks the ICV in constant time and decrypts the payload in place; false when the ICV does
//     not match (the payload may then hold anything).
// sa_index lets an implementation keep per-SA key schedules in its own table. The CPU's is
// OpensslEspCipher (openssl_cipher.h); a GPU one (device AES, SHA-1, GHASH) is a device type with
// the same two members, called from the same templates.
//
// The bytes, per RFC 4303, 4106 and 2404, written here once for every implementation:
//   AES-GCM: nonce = salt | IV; AAD = SPI | sequence (SPI | high 32 | low 32 with ESN); ICV = tag.
//   AES-CBC + HMAC-SHA1-96: ICV = the first 12 bytes of HMAC-SHA1 over ESP header | IV | ciphertext,
//     then the high 32 bits of the sequence number with ESN (RFC 4303 §2.2.1; not sent).
//   NULL + HMAC-SHA1-96: the same over ESP header | payload. NULL + NULL: nothing.
//   IVs: GCM's is the 64-bit sequence number, unique per key as RFC 4106 §3.1 requires; CBC's must
//   be unpredictable, and is the SA's key applied to a nonce block (NIST SP 800-38A appendix C:
//   sequence number | SPI | 0), so that no random source is needed on the GPU.
#pragma once
#include <cstdint>

#include "nf/ipsec/esp.h"
#include "nf/ipsec/sa.h"
#include "util/hd.h"

namespace gnf::nf {

inline constexpr uint32_t kGcmNonceBytes = 12;
inline constexpr uint32_t kMaxAadBytes = 12;
inline constexpr uint32_t kAesBlockBytes = 16;

GNF_INLINE uint8_t* esp_iv(const EspCryptoJob& job) { return job.esp + kEspHeaderBytes; }
GNF_INLINE uint8_t* esp_payload(const IpsecSa& sa, const EspCryptoJob& job) {
  return job.esp + kEspHeaderBytes + esp_iv_bytes(sa.cipher);
}
GNF_INLINE uint8_t* esp_icv(const IpsecSa& sa, const EspCryptoJob& job) { return esp_payload(sa, job) + job.payload; }

// GCM's explicit IV for a sequence number.
GNF_INLINE void esp_gcm_iv(uint64_t seq, uint8_t* iv) { esp_store_be64(iv, seq); }

// The block that CBC's IV is the encryption of.
GNF_INLINE void esp_cbc_iv_nonce(uint32_t spi, uint64_t seq, uint8_t* block) {
  esp_store_be64(block, seq);
  wire::store_be32(block + 8, spi);
  wire::store_be32(block + 12, 0);
}

GNF_INLINE void esp_gcm_nonce(const IpsecSa& sa, const EspCryptoJob& job, uint8_t* nonce) {
  for (uint32_t i = 0; i < kGcmSaltBytes; ++i) nonce[i] = sa.salt[i];
  for (uint32_t i = 0; i < 8; ++i) nonce[kGcmSaltBytes + i] = esp_iv(job)[i];
}

// GCM's additional authenticated data; returns its length (8, or 12 with ESN).
GNF_INLINE uint32_t esp_gcm_aad(const IpsecSa& sa, const EspCryptoJob& job, uint8_t* aad) {
  wire::store_be32(aad, sa.spi);
  if (!sa.esn) {
    wire::store_be32(aad + 4, uint32_t(job.seq));
    return 8;
  }
  esp_store_be64(aad + 4, job.seq);
  return 12;
}

// What GCM takes besides the key and the payload, for one packet (its IV already in place).
struct EspGcmInput {
  uint8_t nonce[kGcmNonceBytes];
  uint8_t aad[kMaxAadBytes];
  uint32_t aad_bytes;
};
GNF_INLINE EspGcmInput esp_gcm_input(const IpsecSa& sa, const EspCryptoJob& job) {
  EspGcmInput in;
  esp_gcm_nonce(sa, job, in.nonce);
  in.aad_bytes = esp_gcm_aad(sa, job, in.aad);
  return in;
}

// The bytes the HMAC covers: `covered` from the ESP header on, then `extra` (the sequence number's
// high half with ESN, else nothing) from `high`.
GNF_INLINE uint32_t esp_hmac_covered(const IpsecSa& sa, const EspCryptoJob& job) {
  return kEspHeaderBytes + esp_iv_bytes(sa.cipher) + job.payload;
}
GNF_INLINE uint32_t esp_hmac_extra(const IpsecSa& sa, const EspCryptoJob& job, uint8_t* high) {
  wire::store_be32(high, uint32_t(job.seq >> 32));
  return sa.esn ? 4 : 0;
}

}  // namespace gnf::nf
