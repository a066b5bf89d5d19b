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

struct PacketRef {
  uint8_t* data;      // frame bytes (Ethernet header first); NFs may rewrite them in place
  uint32_t len;       // frame length without FCS; NFs may change it
  uint32_t rss_hash;  // from the rx descriptor
  uint16_t in_port;
  uint16_t out_port;  // valid when verdict == Forward
  Verdict verdict;    // starts as Forward; an NF that drops or punts sets it
  HostReason reason;  // with Verdict::ToHost; Unspecified (0) otherwise
};

struct PacketBatch {
  PacketRef* packets;
  uint32_t count;
};

// Run-time counters of one NF instance. Each NF names its counters (Counters::names);
// on the CPU every plane has its own copy, summed when read.
struct NfCounters {
  static constexpr int kMax = 16;
  unsigned long long value[kMax];
};

}  // namespace gnf::nf
