// What a network function sees: a batch of packets, each with a verdict to fill in.
// Host and device code alike; nothing here knows about rings or where the bytes live.
#pragma once
#include <cstdint>

#include "util/hd.h"

namespace gnf::nf {

inline constexpr uint16_t kMaxPorts = 16;

enum class Verdict : uint8_t {
  Forward = 0,  // send on out_port (the driver picks the tx queue paired with the rx queue)
  Drop = 1,     // the driver frees the slot and counts the drop against the NF
  ToHost = 2,   // the slow path: the exception ring to the host (ARP, ICMP to us, ...)
};

// Why a frame went to the host, set with Verdict::ToHost by the NF that punted it. It travels with
// the frame (the planes' host queue, the bypass path's exception ring header) so that the slow path
// acts on it without running the NF again to learn it.
enum class HostReason : uint8_t {
  Unspecified = 0,
  Local = 1,        // for the host itself: its addresses, ARP/ND, broadcast and multicast
  TtlExpired = 2,   // TTL / hop limit would expire: ICMP time exceeded
  NoRoute = 3,      // ICMP destination unreachable
  NoNeighbour = 4,  // the next hop is not resolved yet: the slow path holds it and asks
  Options = 5,      // IPv4 options, IPv6 Hop-by-Hop: processed by the slow path
  Filtered = 6,     // an EtherType an ether_filter sends up (ARP, LLDP, ...)
  TooBig = 7,       // larger than the output port's MTU: ICMP fragmentation needed / packet too big,
                    // or fragments (IPv4 without DF)
};

// A packet in its slot: [data - headroom, data) is the slot's headroom (`[driver] headroom`, where
// the NIC did not write: DPDK's RTE_PKTMBUF_HEADROOM), [data, data + len) the frame, and tailroom
// bytes after it the rest of the slot. An NF that grows a frame stays inside these bounds, through
// packet_prepend or packet_reframe below, so that no write leaves the slot. Refs made outside a
// slot (a test's frame, the slow path's copy) have no room on either side.
struct PacketRef {
  uint8_t* data;      // frame bytes (Ethernet header first); NFs may rewrite them in place
  uint32_t len;       // frame length without FCS; NFs may shorten it, and grow it as said above
  uint32_t rss_hash;  // from the rx descriptor
  uint16_t in_port;
  uint16_t out_port;  // valid when verdict == Forward
  Verdict verdict;    // starts as Forward; an NF that drops or punts sets it
  HostReason reason;  // with Verdict::ToHost; Unspecified (0) otherwise
  uint16_t headroom = 0;  // bytes of the slot before data
  uint16_t tailroom = 0;  // bytes of the slot after data + len
};

// The slot the packet lies in, by the address its pool knows it by (what goes back to the pool,
// whatever the NFs did to data).
GNF_INLINE uint64_t packet_slot(const PacketRef& p) { return reinterpret_cast<uint64_t>(p.data - p.headroom); }

// Moves the frame's start `bytes` back into the headroom (a header to write in front, such as a
// tunnel's). False, with nothing changed, when the headroom is shorter: the NF drops the packet and
// counts why, as the bytes it would write lie outside the slot.
GNF_INLINE bool packet_prepend(PacketRef& p, uint32_t bytes) {
  if (bytes > p.headroom) return false;
  p.data -= bytes;
  p.len += bytes;
  p.headroom = uint16_t(p.headroom - bytes);
  return true;
}

// The frame an NF rewrote now lies at [data, data + len): false, with nothing changed, unless that
// is inside the packet's slot.
GNF_INLINE bool packet_reframe(PacketRef& p, uint8_t* data, uint32_t len) {
  const uint8_t* slot = p.data - p.headroom;
  const uint8_t* end = p.data + p.len + p.tailroom;
  if (data < slot || data > end || len > uint32_t(end - data)) return false;
  p.headroom = uint16_t(data - slot);
  p.tailroom = uint16_t(end - (data + len));
  p.data = data;
  p.len = len;
  return true;
}

struct PacketBatch {
  PacketRef* packets;
  uint32_t count;
  // The plane (rx queue) whose thread runs the batch; one thread at a time runs a plane, so an NF
  // keeps its per-thread host state (ipsec's OpenSSL contexts) by it. 0 on the GPU.
  uint32_t plane = 0;
};

// Run-time counters of one NF instance. Each NF names its counters (Counters::names);
// on the CPU every plane has its own copy, summed when read.
struct NfCounters {
  static constexpr int kMax = 16;
  unsigned long long value[kMax];
};

}  // namespace gnf::nf
