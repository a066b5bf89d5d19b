// What a NIC's transmit side does to a frame before the cable, for frames a local Linux stack
// sends through a virtual interface (veth) without it: the kernel leaves that work to hardware
// that does not exist there, and a packet socket sees the frame unfinished. The link partner of a
// softnic port is a NIC, so its frames arrive finished. Segmenting (TSO) is in wire/gso.h.
#pragma once
#include <cstdint>

namespace gnf::wire {

// Pads a frame shorter than the Ethernet minimum (60 B without FCS) with zeros up to it, in place
// (the caller's buffer has room), and returns the new length. The kernel sends short frames (ARP)
// unpadded on veth; the port's MAC would drop them as runts.
uint32_t pad_to_minimum(uint8_t* frame, uint32_t len);

// Completes a checksum the stack left to the hardware (checksum offload, CHECKSUM_PARTIAL) where
// the kernel's metadata says it lies (struct virtio_net_hdr's csum_start and csum_offset, wire/gso.h):
// the field at start+offset holds only the pseudo-header's sum, so the 16-bit one's-complement
// sum from `start` to the end of the frame, complemented, is the checksum (RFC 1071; the
// hardware's job, done here). A UDP checksum (offset 6) that comes out 0 is sent as 0xffff
// (RFC 768: 0 means none). Call it before padding: the sum runs to `len`. False, leaving the frame
// alone, if the field does not lie inside the frame or is not a TCP (offset 16) or UDP (6) one:
// SCTP's CRC32c (offset 8), also left to the hardware on a veth, is not an Internet checksum.
bool complete_checksum_at(uint8_t* frame, uint32_t len, uint32_t start, uint32_t offset);

}  // namespace gnf::wire
