// The cpu path's ESP cipher (cipher.h's interface, and bursts of it), each algorithm from one of
// two libraries (`[[nf]] cpu_library`, as ipsec-secgw picks a crypto PMD):
//   openssl:  OpenSSL's EVP for every algorithm (openssl_cipher.h), a packet a call.
//   ipsec-mb: intel-ipsec-mb's job API for every algorithm (ipsec_mb_cipher.h), a burst a call.
//   auto:     in bursts (the NF's, IpsecNfView::process_in_bursts) of more than two packets
//             intel-ipsec-mb's; a packet at a time (and in bursts of one or two) AES-GCM from
//             intel-ipsec-mb and AES-128-CBC + HMAC-SHA1 from OpenSSL.
// gnf-esp-bench on the H100 host, one core, 1420 B, Gbit/s sealed: AES-128-GCM 26 by OpenSSL's
// five EVP calls a packet, 44 by intel-ipsec-mb; AES-128-CBC + HMAC-SHA1 3.4 by OpenSSL, 17 by
// intel-ipsec-mb in bursts of 32, whose multi-buffer code runs 8-16 packets side by side (a lone
// packet in one lane: 3.1 on the build VM, against OpenSSL's 6.1 there).
// One object per thread (plane).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nf/ipsec/ipsec_mb_cipher.h"
#include "nf/ipsec/openssl_cipher.h"

namespace gnf::nf {

enum class CpuCryptoLibrary : uint8_t { Auto, Openssl, IpsecMb };
// The names `[[nf]] cpu_library` takes, in the enum's order.
inline const std::vector<std::string> kCpuCryptoLibraryNames = {"auto", "openssl", "ipsec-mb"};
CpuCryptoLibrary cpu_crypto_library_from_name(const std::string& name);  // "auto", "openssl", "ipsec-mb"
const char* cpu_crypto_library_name(CpuCryptoLibrary library);

// intel-ipsec-mb before 1.4 (Debian 12 ships 1.3) stores every call's error code into one global
// word (upstream issue #112), so threads that use it contend on that cache line. gnf-esp-bench on
// the H100 host, AES-128-GCM at 1420 B: 1-16 threads together sealed 45-85 Gbit/s with it, 23-228
// with OpenSSL. Inside the cpu path, where the cipher is part of a packet's work, its GCM still
// carried more: the tunnel's NDR with 2 driver threads 1.085 Mpps against OpenSSL's 0.814, with 4
// 1.356 against >= 1.085 (bench/results/2026-11-25-session21, runs 2-4). With that library and
// many more driver threads, cpu_library = "openssl" may carry more; `auto` does not guess.

class HostEspCipher {
 public:
  HostEspCipher(const std::vector<IpsecSa>& sas, CpuCryptoLibrary library);

  // Bursts this small go a packet at a time under auto (burst()).
  static constexpr uint32_t kPacketAtATimeUpTo = 2;

  // IpsecMbEspCipher's burst contract (up to its kMaxBurst jobs).
  void seal_burst(const EspBurstJob* jobs, uint32_t count, bool* ok) { burst(jobs, count, true, ok); }
  void open_burst(const EspBurstJob* jobs, uint32_t count, bool* ok) { burst(jobs, count, false, ok); }

  bool seal(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job) {
    return uses_mb(sa) ? mb_.seal(sa_index, sa, job) : openssl_.seal(sa_index, sa, job);
  }
  bool open(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job) {
    return uses_mb(sa) ? mb_.open(sa_index, sa, job) : openssl_.open(sa_index, sa, job);
  }

 private:
  bool uses_mb(const IpsecSa& sa) const {
    return library_ == CpuCryptoLibrary::IpsecMb || (library_ == CpuCryptoLibrary::Auto && sa.auth == EspAuth::Gcm);
  }
  void burst(const EspBurstJob* jobs, uint32_t count, bool seal, bool* ok);
  CpuCryptoLibrary library_;
  std::vector<IpsecSa> sas_;
  IpsecMbEspCipher mb_;
  OpensslEspCipher openssl_;
};

}  // namespace gnf::nf
