#include "nf/ipsec/host_cipher.h"

#include <stdexcept>

namespace gnf::nf {

CpuCryptoLibrary cpu_crypto_library_from_name(const std::string& name) {
  if (name == "auto") return CpuCryptoLibrary::Auto;
  if (name == "openssl") return CpuCryptoLibrary::Openssl;
  if (name == "ipsec-mb") return CpuCryptoLibrary::IpsecMb;
  throw std::invalid_argument("cpu_library: '" + name + "' is none of auto, openssl, ipsec-mb");
}

const char* cpu_crypto_library_name(CpuCryptoLibrary library) {
  switch (library) {
    case CpuCryptoLibrary::Auto: return "auto";
    case CpuCryptoLibrary::Openssl: return "openssl";
    case CpuCryptoLibrary::IpsecMb: return "ipsec-mb";
  }
  return "?";
}

HostEspCipher::HostEspCipher(const std::vector<IpsecSa>& sas, CpuCryptoLibrary library)
    : library_(library), sas_(sas), mb_(sas), openssl_(sas) {}

void HostEspCipher::burst(const EspBurstJob* jobs, uint32_t count, bool seal, bool* ok) {
  // auto: a burst of one or two goes a packet at a time (seal()/open()): intel-ipsec-mb's
  // multi-buffer CBC + HMAC takes as long for a lone packet as for a full set of lanes, which at
  // low load doubled the CBC tunnel's p50 on the cpu path (8.8 to 16.0 µs, session 21 runs 1 and 5).
  if (library_ == CpuCryptoLibrary::Auto && count <= kPacketAtATimeUpTo) {
    for (uint32_t i = 0; i < count; ++i) {
      const IpsecSa& sa = sas_[jobs[i].sa_index];
      ok[i] = seal ? this->seal(jobs[i].sa_index, sa, jobs[i].job) : open(jobs[i].sa_index, sa, jobs[i].job);
    }
    return;
  }
  if (library_ != CpuCryptoLibrary::Openssl) {
    if (seal) mb_.seal_burst(jobs, count, ok);
    else mb_.open_burst(jobs, count, ok);
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    const IpsecSa& sa = sas_[jobs[i].sa_index];
    ok[i] = seal ? openssl_.seal(jobs[i].sa_index, sa, jobs[i].job) : openssl_.open(jobs[i].sa_index, sa, jobs[i].job);
  }
}

}  // namespace gnf::nf
