// The CPU's ESP cipher (cipher.h's interface) from OpenSSL's primitives: one keyed set per SA, made
// when the SAs are loaded. One object per thread (plane).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "nf/ipsec/cipher.h"
#include "nf/ipsec/openssl_primitives.h"

namespace gnf::nf {

class OpensslEspCipher {
 public:
  // `sas` in the order their indexes name them; throws std::runtime_error if OpenSSL cannot key one.
  explicit OpensslEspCipher(const std::vector<IpsecSa>& sas);

  bool seal(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job);
  bool open(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job);

 private:
  struct Keyed {
    std::unique_ptr<AesCbc128> cbc;
    std::unique_ptr<AesGcm> gcm;
    std::unique_ptr<HmacSha1> hmac;
  };
  bool icv_of(Keyed& keyed, const IpsecSa& sa, const EspCryptoJob& job, uint8_t digest[20]);
  std::vector<Keyed> keyed_;
};

}  // namespace gnf::nf
