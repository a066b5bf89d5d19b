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
    : library_(library), mb_(sas), openssl_(sas) {}

}  // namespace gnf::nf
