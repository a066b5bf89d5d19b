// The cpu path's ESP cipher (cipher.h's interface), a packet a call, each algorithm from the
// library that does it fastest so. gnf-esp-bench, one core, 1420 B, Gbit/s sealed (bench/esp
// README, this build VM's AVX-512 Xeon): AES-GCM 25 by OpenSSL's five EVP calls, 96 by
// intel-ipsec-mb's job API; AES-128-CBC + HMAC-SHA1 6.1 by OpenSSL, 3.1 by intel-ipsec-mb, whose
// multi-buffer code runs one packet in one of its 8-16 lanes when handed one at a time (in bursts
// it does 38: the NF hands its cipher a packet at a time, so bursts are the bench's only).
// One object per thread (plane).
#pragma once
#include <vector>

#include "nf/ipsec/ipsec_mb_cipher.h"
#include "nf/ipsec/openssl_cipher.h"

namespace gnf::nf {

class HostEspCipher {
 public:
  explicit HostEspCipher(const std::vector<IpsecSa>& sas) : mb_(sas), openssl_(sas) {}

  bool seal(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job) {
    return sa.auth == EspAuth::Gcm ? mb_.seal(sa_index, sa, job) : openssl_.seal(sa_index, sa, job);
  }
  bool open(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job) {
    return sa.auth == EspAuth::Gcm ? mb_.open(sa_index, sa, job) : openssl_.open(sa_index, sa, job);
  }

 private:
  IpsecMbEspCipher mb_;
  OpensslEspCipher openssl_;
};

}  // namespace gnf::nf
