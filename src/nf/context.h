#pragma once
#include <array>
#include <cstdint>

#include "nf/packet.h"

namespace gnf::nf {

// What an NF may know about the pipeline it is configured into.
struct NfContext {
  uint16_t ports = 1;
  std::array<std::array<uint8_t, 6>, kMaxPorts> port_macs{};
};

}  // namespace gnf::nf
