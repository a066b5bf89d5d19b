// What the NIC's DMA moved, per direction, so that the papers' argument about how many times a
// packet crosses PCIe can be shown, not only told.
#pragma once
#include <cstdint>
#include <iterator>

#include "util/counter.h"

namespace gnf::nic {

// `T` is Counter for the live counters, uint64_t for a snapshot of them (util/counter.h).
template <typename T>
struct DmaCountersOf {
  T packet_bytes_to_memory{};    // NIC -> memory: received packets
  T packet_bytes_from_memory{};  // memory -> NIC: transmitted packets
  T desc_bytes_to_memory{};      // write-backs (rx and tx) and head write-backs
  T desc_bytes_from_memory{};    // descriptor fetches

  // Named as the JSON summary names them (a port's dma_bytes).
  static constexpr CounterField<DmaCountersOf, T> kFields[] = {
      {"packets_to_memory", &DmaCountersOf::packet_bytes_to_memory},
      {"packets_from_memory", &DmaCountersOf::packet_bytes_from_memory},
      {"descriptors_to_memory", &DmaCountersOf::desc_bytes_to_memory},
      {"descriptors_from_memory", &DmaCountersOf::desc_bytes_from_memory},
  };
};
static_assert(std::size(DmaCountersOf<Counter>::kFields) * sizeof(Counter) == sizeof(DmaCountersOf<Counter>),
              "every DMA counter has a line in the table");
using DmaCounters = DmaCountersOf<Counter>;
using DmaCounterValues = DmaCountersOf<uint64_t>;

}  // namespace gnf::nic
