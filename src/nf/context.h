#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "nf/l3fwd/ip_address.h"
#include "nf/packet.h"

namespace gnf::nf {

// What an NF may know about the pipeline it is configured into.
struct NfContext {
  uint16_t ports = 1;
  std::array<std::array<uint8_t, 6>, kMaxPorts> port_macs{};
  // The largest IP packet each port sends (its max_frame less the Ethernet header); 0: no limit.
  std::array<uint16_t, kMaxPorts> port_mtu{};
  // The ports' own IP addresses, as [[port]] ipv4 / ipv6 give them (a router answers for them).
  struct PortAddress {
    uint16_t port;
    IpAddress address;
    IpPrefix network;
  };
  std::vector<PortAddress> addresses;
  // The driver's planes (one per rx queue: PacketBatch::plane is below this), and whether the path
  // runs the chain on a GPU (staged, bypass), which an NF without device code refuses.
  uint16_t planes = 1;
  bool chain_on_gpu = false;
};

}  // namespace gnf::nf
