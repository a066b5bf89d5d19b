// What the NIC's DMA moved, per direction, so that the papers' argument about how many times a
// packet crosses PCIe can be shown, not only told.
#pragma once
#include "util/counter.h"

namespace gnf::nic {

struct DmaCounters {
  Counter packet_bytes_to_memory;    // NIC -> memory: received packets
  Counter packet_bytes_from_memory;  // memory -> NIC: transmitted packets
  Counter desc_bytes_to_memory;      // write-backs (rx and tx) and head write-backs
  Counter desc_bytes_from_memory;    // descriptor fetches
};

inline void add_dma_counters(DmaCounters& into, const DmaCounters& from) {
  into.packet_bytes_to_memory.add(from.packet_bytes_to_memory.get());
  into.packet_bytes_from_memory.add(from.packet_bytes_from_memory.get());
  into.desc_bytes_to_memory.add(from.desc_bytes_to_memory.get());
  into.desc_bytes_from_memory.add(from.desc_bytes_from_memory.get());
}

}  // namespace gnf::nic
