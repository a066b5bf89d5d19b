// What a NIC's transmit side does to a frame before the cable, for frames a local Linux stack
// sends through a virtual interface (veth) without it: the kernel leaves that work to hardware
// that does not exist there, and a packet socket sees the frame unfinished. The link partner of a
// softnic port is a NIC, so its frames arrive finished.
#pragma once
#include <cstdint>

namespace gnf::wire {

// Pads a frame shorter than the Ethernet minimum (60 B without FCS) with zeros up to it, in place
// (the caller's buffer has room), and returns the new length. The kernel sends short frames (ARP)
// unpadded on veth; the port's MAC would drop them as runts.
uint32_t pad_to_minimum(uint8_t* frame, uint32_t len);

// Fills in the TCP or UDP checksum of a frame whose stack left it to the hardware (checksum
// offload, CHECKSUM_PARTIAL: the field holds only the pseudo-header's sum): Ethernet, at most one
// 802.1Q/802.1ad tag, IPv4 or IPv6 without extension headers. Returns false, leaving the frame as
// it is, for anything else or a frame too short for the lengths its headers give.
bool complete_l4_checksum(uint8_t* frame, uint32_t len);

}  // namespace gnf::wire
