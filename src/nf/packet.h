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

struct PacketRef {
  uint8_t* data;      // frame bytes (Ethernet header first); NFs may rewrite them in place
  uint32_t len;       // frame length without FCS; NFs may change it
  uint32_t rss_hash;  // from the rx descriptor
  uint16_t in_port;
  uint16_t out_port;  // valid when verdict == Forward
  Verdict verdict;    // starts as Forward; an NF that drops or punts sets it
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
