#include "nf/ipsec/host_cipher.h"

#include <intel-ipsec-mb.h>

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

CpuCryptoLibrary gcm_library_for(CpuCryptoLibrary chosen, uint32_t planes) {
  if (chosen != CpuCryptoLibrary::Auto) return chosen;
  const bool shared_errno = imb_get_version() < IMB_VERSION(1, 4, 0);
  return shared_errno && planes > 2 ? CpuCryptoLibrary::Openssl : CpuCryptoLibrary::IpsecMb;
}

HostEspCipher::HostEspCipher(const std::vector<IpsecSa>& sas, CpuCryptoLibrary gcm_from, CpuCryptoLibrary others_from)
    : gcm_from_(gcm_from), others_from_(others_from), mb_(sas), openssl_(sas) {}

}  // namespace gnf::nf
