// Protocol numbers and header sizes every packet parser in gnf uses (NIC model, wire, NFs).
// Host and device code.
#pragma once
#include <cstdint>

namespace gnf::net {

inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeIpv6 = 0x86dd;
inline constexpr uint16_t kEtherTypeVlan = 0x8100;  // 802.1Q customer tag
inline constexpr uint16_t kEtherTypeQinQ = 0x88a8;  // 802.1ad service tag

inline constexpr uint32_t kEthHeaderBytes = 14;
inline constexpr uint32_t kVlanTagBytes = 4;
inline constexpr uint32_t kIpv4MinHeaderBytes = 20;
inline constexpr uint32_t kIpv6HeaderBytes = 40;
inline constexpr uint32_t kUdpHeaderBytes = 8;

inline constexpr uint8_t kIpProtoTcp = 6;
inline constexpr uint8_t kIpProtoUdp = 17;
inline constexpr uint8_t kIpv6HopByHop = 0;
inline constexpr uint8_t kIpv6Routing = 43;
inline constexpr uint8_t kIpv6DestOptions = 60;

inline constexpr uint16_t kIpv4MoreFragments = 0x2000;
inline constexpr uint16_t kIpv4FragOffsetMask = 0x1fff;

}  // namespace gnf::net
