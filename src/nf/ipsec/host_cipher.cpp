#include "nf/ipsec/host_cipher.h"

#include <stdexcept>

namespace gnf::nf {

CpuCryptoLibrary cpu_crypto_library_from_name(const std::string& name) {
  for (size_t i = 0; i < kCpuCryptoLibraryNames.size(); ++i)
    if (name == kCpuCryptoLibraryNames[i]) return CpuCryptoLibrary(i);
  std::string names;
  for (const std::string& n : kCpuCryptoLibraryNames) names += (names.empty() ? "" : ", ") + n;
  throw std::invalid_argument("cpu_library: '" + name + "' is none of " + names);
}

const char* cpu_crypto_library_name(CpuCryptoLibrary library) {
  return kCpuCryptoLibraryNames.at(size_t(library)).c_str();
}

HostEspCipher::HostEspCipher(const std::vector<IpsecSa>& sas, CpuCryptoLibrary library)
    : library_(library), sas_(sas), mb_(sas), openssl_(sas) {}

void HostEspCipher::burst(const EspBurstJob* jobs, uint32_t count, bool seal, bool* ok) {
  // A packet at a time (seal()/open()) with OpenSSL, and under auto for a burst of one or two:
  // intel-ipsec-mb's multi-buffer CBC + HMAC takes as long for a lone packet as for a full set of
  // lanes, which at low load doubled the CBC tunnel's p50 on the cpu path (8.8 to 16.0 µs,
  // session 21 runs 1 and 5).
  const bool packet_at_a_time = library_ == CpuCryptoLibrary::Openssl ||
                                (library_ == CpuCryptoLibrary::Auto && count <= kPacketAtATimeUpTo);
  if (!packet_at_a_time) {
    if (seal) mb_.seal_burst(jobs, count, ok);
    else mb_.open_burst(jobs, count, ok);
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    const IpsecSa& sa = sas_[jobs[i].sa_index];
    ok[i] = seal ? this->seal(jobs[i].sa_index, sa, jobs[i].job) : open(jobs[i].sa_index, sa, jobs[i].job);
  }
}

}  // namespace gnf::nf
