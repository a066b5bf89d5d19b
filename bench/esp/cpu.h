// The CPU half: the workload sealed or opened on a number of threads, each with its own cipher
// object (the cpu path's HostEspCipher) and its own copy of the packets, handed over in bursts of
// kIpsecMbBurst packets, with one of two libraries:
// - OpenSSL's EVP, which takes them a packet a call;
// - intel-ipsec-mb's job API, a burst a call, as DPDK's aesni_mb PMD and VPP's ipsecmb engine drive
//   it: the fair CPU peer of a GPU that seals a burst.
#pragma once
#include <cstdint>

#include "nf/ipsec/host_cipher.h"
#include "workload.h"

namespace gnf::esp_bench {

struct Rate {
  double gbps;  // inner packet bits a second
  double mpps;
};

// ipsec-secgw's burst (MAX_PKT_BURST).
inline constexpr uint32_t kIpsecMbBurst = 32;

// Seals (or opens sealed copies of) the workload's packets over and over on `threads` threads
// for about `seconds`. Opening starts each pass from the sealed bytes again, outside the timing,
// so that every ICV is good and every packet decrypted. Throws if the library fails or refuses one.
// `library`: Openssl or IpsecMb.
Rate cpu_rate(nf::CpuCryptoLibrary library, const Workload& w, bool seal, unsigned threads, double seconds);

}  // namespace gnf::esp_bench
