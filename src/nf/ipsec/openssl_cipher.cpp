#include "nf/ipsec/openssl_cipher.h"

#include <openssl/crypto.h>

#include <algorithm>

namespace gnf::nf {

OpensslEspCipher::OpensslEspCipher(const std::vector<IpsecSa>& sas) {
  for (const IpsecSa& sa : sas) {
    const bool encrypt = sa.direction == IpsecDirection::Out;
    Keyed k;
    if (sa.cipher == EspCipher::AesCbc128) k.cbc = std::make_unique<AesCbc128>(sa.cipher_key, encrypt);
    if (sa.auth == EspAuth::Gcm) k.gcm = std::make_unique<AesGcm>(sa.cipher_key, esp_cipher_key_bytes(sa.cipher), encrypt);
    if (sa.auth == EspAuth::HmacSha1_96) k.hmac = std::make_unique<HmacSha1>(sa.auth_key, esp_auth_key_bytes(sa.auth));
    keyed_.push_back(std::move(k));
  }
}

bool OpensslEspCipher::icv_of(Keyed& keyed, const IpsecSa& sa, const EspCryptoJob& job, uint8_t digest[20]) {
  uint8_t high[4];
  const uint32_t extra = esp_hmac_extra(sa, job, high);
  return keyed.hmac->mac(job.esp, esp_hmac_covered(sa, job), high, extra, digest);
}

bool OpensslEspCipher::seal(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job) {
  Keyed& keyed = keyed_[sa_index];
  uint8_t* payload = esp_payload(sa, job);
  if (sa.auth == EspAuth::Gcm) {
    esp_gcm_iv(job.seq, esp_iv(job));
    const EspGcmInput gcm = esp_gcm_input(sa, job);
    return keyed.gcm->seal(gcm.nonce, gcm.aad, gcm.aad_bytes, payload, payload, job.payload, esp_icv(sa, job));
  }
  if (sa.cipher == EspCipher::AesCbc128) {
    uint8_t nonce[kAesBlockBytes];
    esp_cbc_iv_nonce(sa.spi, job.seq, nonce);
    if (!keyed.cbc->encrypt_block(nonce, esp_iv(job)) || !keyed.cbc->run(esp_iv(job), payload, payload, job.payload))
      return false;
  }
  if (sa.auth == EspAuth::HmacSha1_96) {
    uint8_t digest[20];
    if (!icv_of(keyed, sa, job, digest)) return false;
    std::copy(digest, digest + esp_icv_bytes(sa.auth), esp_icv(sa, job));
  }
  return true;
}

bool OpensslEspCipher::open(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job) {
  Keyed& keyed = keyed_[sa_index];
  uint8_t* payload = esp_payload(sa, job);
  if (sa.auth == EspAuth::Gcm) {
    const EspGcmInput gcm = esp_gcm_input(sa, job);
    return keyed.gcm->open(gcm.nonce, gcm.aad, gcm.aad_bytes, payload, payload, job.payload, esp_icv(sa, job));
  }
  if (sa.auth == EspAuth::HmacSha1_96) {
    uint8_t digest[20];
    if (!icv_of(keyed, sa, job, digest) || CRYPTO_memcmp(digest, esp_icv(sa, job), esp_icv_bytes(sa.auth)) != 0)
      return false;
  }
  return sa.cipher != EspCipher::AesCbc128 || keyed.cbc->run(esp_iv(job), payload, payload, job.payload);
}

}  // namespace gnf::nf
