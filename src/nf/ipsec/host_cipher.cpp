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
