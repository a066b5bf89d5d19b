// The CPU's ESP cipher (cipher.h's interface) from intel-ipsec-mb's job API, the library DPDK's
// aesni_mb and aesni_gcm PMDs and VPP's ipsecmb engine are built on, and a burst form that fills its
// multi-buffer lanes: AES-CBC and HMAC-SHA1 run 8-16 packets side by side in SIMD lanes, which a
// per-packet call cannot (every packet of a CBC encryption depends on the one before). That makes it
// the fair CPU peer of a GPU kernel that seals a burst at a time (bench/esp), where OpenSSL's EVP
// (openssl_cipher.h) costs five library calls a packet.
//
// One object per thread: the manager holds the jobs in flight. Keys are expanded once per SA.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nf/ipsec/cipher.h"
#include "nf/ipsec/ipsec_burst_job.h"

struct IMB_MGR;

namespace gnf::nf {

class IpsecMbEspCipher {
 public:
  // `sas` in the order their indexes name them. Throws std::runtime_error if the library cannot
  // make a manager or an HMAC key is longer than SHA-1's block.
  explicit IpsecMbEspCipher(const std::vector<IpsecSa>& sas);
  ~IpsecMbEspCipher();
  IpsecMbEspCipher(const IpsecMbEspCipher&) = delete;
  IpsecMbEspCipher& operator=(const IpsecMbEspCipher&) = delete;

  // cipher.h's per-packet contract (a burst of one).
  bool seal(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job);
  bool open(uint32_t sa_index, const IpsecSa& sa, const EspCryptoJob& job);

  // The `count` jobs sealed (or opened), all submitted before the lanes are flushed; ok[i] says
  // job i's outcome as seal()/open() would. Up to kMaxBurst jobs a call.
  static constexpr uint32_t kMaxBurst = 128;
  void seal_burst(const EspBurstJob* jobs, uint32_t count, bool* ok);
  void open_burst(const EspBurstJob* jobs, uint32_t count, bool* ok);

  // The code path the library picked for this CPU ("avx512", "avx2", ...), or the one the
  // environment's GNF_IPSEC_MB_ARCH named.
  std::string arch() const;

 private:
  struct Keys;
  struct Scratch;
  void run_burst(const EspBurstJob* jobs, uint32_t count, bool seal, bool* ok);
  IMB_MGR* mgr_ = nullptr;
  int arch_ = 0;
  std::vector<IpsecSa> sas_;
  std::vector<Keys> keys_;
  std::vector<Scratch> scratch_;
};

}  // namespace gnf::nf
