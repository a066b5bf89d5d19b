// One packet of a CPU cipher's burst: the SA's index and the bytes (ipsec_mb_cipher.h,
// host_cipher.h; the host's process_in_bursts in ipsec_nf.h makes them).
#pragma once
#include <cstdint>

#include "nf/ipsec/esp.h"

namespace gnf::nf {

struct EspBurstJob {
  uint32_t sa_index;
  EspCryptoJob job;
};

}  // namespace gnf::nf
