// The CPU half: OpenSSL's EVP through OpensslEspCipher, the cpu path's own cipher, on a number of
// threads, each with its cipher objects and its copy of the packets.
#pragma once
#include "workload.h"

namespace gnf::esp_bench {

struct Rate {
  double gbps;  // inner packet bits a second
  double mpps;
};

// Seals (or opens sealed copies of) the workload's packets over and over on `threads` threads
// for about `seconds`. Opening starts each pass from the sealed bytes again, outside the timing,
// so that every ICV is good and every packet decrypted. Throws if OpenSSL fails or refuses one.
Rate openssl_rate(const Workload& w, bool seal, unsigned threads, double seconds);

}  // namespace gnf::esp_bench
