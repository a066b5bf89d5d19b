// A port's statistics, modelled on the 82599's statistics registers (section 8.2.3.23), each
// named once in its table (util/counter.h).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>

#include "nic/regs.h"
#include "util/counter.h"

namespace gnf::nic {

// Later than this, a frame waited on the model, not on the machine. The H100 machine (a VM) takes
// the core away from any spinning thread, pinned or not, about 500 times a second for more than
// 10 us and 1-2 times a second for more than 100 us (gnf-jitter-probe, bench/results/
// 2026-11-24-session13): a 10 us threshold found 0.5-2 % of the frames late at 1 % load on every
// path and in the model alone. A model slower than the wire falls further behind with every
// frame and passes 100 us within a millisecond even 10 % over its rate.
inline constexpr uint64_t kLateFrameNs = 100'000;

// Modelled on the 82599's statistics registers (section 8.2.3.23); names in comments. `T` is
// Counter for the port's live counters, uint64_t for a snapshot of them (util/counter.h).
template <typename T>
struct PortCountersOf {
  T rx_good_packets{};       // GPRC: delivered into an rx descriptor
  T rx_good_bytes{};         // GORC (with FCS)
  T tx_good_packets{};       // GPTC
  T tx_good_bytes{};         // GOTC (with FCS)
  T rx_missed{};             // MPC: dropped because the rx buffer was full
  T rx_runt{};               // RUC: shorter than 64 B with FCS
  T rx_oversize{};           // ROC: longer than max_frame_bytes
  T rx_no_desc_drop{};       // sum of QPRDC: dropped for a DROP_EN queue with no descriptor
  T rx_no_desc_stall{};      // RNBC: a non-DROP_EN queue had no descriptor, the port waited
  T rx_buffer_too_small{};   // frame larger than the descriptor's buffer (no scatter in gnf)
  T rx_queue_disabled{};     // frame hashed to a queue that is not enabled
  // Not an 82599 counter: frames the GPU agent did not write because their descriptor's buffer
  // address is not one (an IOMMU would refuse the write). A driver or model fault: never expected.
  T rx_dma_refused{};
  T tx_bad_desc{};           // a tx descriptor gnf's NIC model cannot send (no EOP, bad length, no address)
  // Not an 82599 counter, a model diagnostic: descriptors the driver overwrote before the NIC sent
  // them, seen as TDT moving further than the ring had room for (only a driver without tx
  // completions, tx_completion = "none", can do that). Those packets are never sent.
  T tx_overrun{};
  T rx_pause{};              // flow control: arrivals held back because the buffer was full
  // The model's own health, not an 82599 counter: how late (after its last bit arrived) the NIC
  // model took each frame off the wire. A model that keeps up takes every frame within a poll;
  // frames taken more than kLateFrameNs late mean the wire outran the model, and latencies and
  // rates measured then describe the model, not the data path.
  T wire_lag_max_ns{};
  T wire_lag_sum_ns{};
  T wire_late_frames{};
  // Frames that arrived while the model's thread was held up (the VM took its core) and found the
  // buffer full when the thread came back: held on the wire until the DMA side made room, not
  // dropped, since the hardware's DMA would have been draining the buffer all along. Each such
  // frame also counts late; a model diagnostic, not an 82599 counter.
  T wire_held_frames{};
  // Transmit rounds that sent something (each: one descriptor fetch, one packet read).
  T tx_rounds{};
  // The transmit side's health, not an 82599 counter: polls of the tx rings (or the GPU agent's tx
  // FIFOs) that came more than kLateFrameNs after the group's previous one and found frames
  // waiting. The 82599 fetches descriptors as soon as TDT moves; a model thread the VM stopped does
  // not, and meanwhile the driver may find its ring full and drop (tx_ring loss the hardware would
  // not have had). Each such poll counts once, with the frames it found waiting and its gap.
  T tx_stalls{};
  T tx_stalled_frames{};
  T tx_stall_max_ns{};

  // Named as the JSON summary names them, drops in the per-second stats line's order. The
  // summary's nic_model reports the diagnostics as a maximum, a mean and a count.
  static constexpr CounterField<PortCountersOf, T> kFields[] = {
      {"rx_packets", &PortCountersOf::rx_good_packets, Role::ToDriver},
      {"rx_bytes", &PortCountersOf::rx_good_bytes},
      {"tx_packets", &PortCountersOf::tx_good_packets, Role::Sent},
      {"tx_bytes", &PortCountersOf::tx_good_bytes},
      {"rx_missed", &PortCountersOf::rx_missed, Role::NicRxDrop, Loss::NicRxBuffer, "missed"},
      {"rx_no_desc", &PortCountersOf::rx_no_desc_drop, Role::NicRxDrop, Loss::RxRing, "no_desc"},
      {"rx_runt", &PortCountersOf::rx_runt, Role::NicRxDrop, Loss::Other, "runt"},
      {"rx_oversize", &PortCountersOf::rx_oversize, Role::NicRxDrop, Loss::Other, "oversize"},
      {"rx_buffer_too_small", &PortCountersOf::rx_buffer_too_small, Role::NicRxDrop, Loss::Other},
      {"rx_queue_disabled", &PortCountersOf::rx_queue_disabled, Role::NicRxDrop, Loss::Other},
      {"rx_dma_refused", &PortCountersOf::rx_dma_refused, Role::NicRxDrop, Loss::Other},
      {"tx_bad_desc", &PortCountersOf::tx_bad_desc, Role::NicTxDrop, Loss::Other},
      {"tx_overrun", &PortCountersOf::tx_overrun, Role::NicTxDrop, Loss::TxRing},
      {"rx_no_desc_stalls", &PortCountersOf::rx_no_desc_stall},
      {"rx_pause", &PortCountersOf::rx_pause},
      {"wire_lag_max_ns", &PortCountersOf::wire_lag_max_ns, Role::Diagnostic},
      {"wire_lag_sum_ns", &PortCountersOf::wire_lag_sum_ns, Role::Diagnostic},
      {"wire_late_frames", &PortCountersOf::wire_late_frames, Role::Diagnostic},
      {"wire_held_frames", &PortCountersOf::wire_held_frames, Role::Diagnostic},
      {"tx_rounds", &PortCountersOf::tx_rounds, Role::Diagnostic},
      {"tx_stalls", &PortCountersOf::tx_stalls, Role::Diagnostic},
      {"tx_stalled_frames", &PortCountersOf::tx_stalled_frames, Role::Diagnostic},
      {"tx_stall_max_ns", &PortCountersOf::tx_stall_max_ns, Role::Diagnostic},
  };
};
static_assert(std::size(PortCountersOf<Counter>::kFields) * sizeof(Counter) == sizeof(PortCountersOf<Counter>),
              "every port counter has a line in the table");
using PortCounterValues = PortCountersOf<uint64_t>;

struct PortCounters : PortCountersOf<Counter> {
  std::array<Counter, kMaxQueues> rx_queue_packets;  // QPRC
  std::array<Counter, kMaxQueues> rx_queue_drops;    // QPRDC
  std::array<Counter, kMaxQueues> tx_queue_packets;  // QPTC
};

// A port's counters as numbers: the sum over its queue groups (and the GPU agent's).
struct PortCounterSnapshot : PortCounterValues {
  std::array<uint64_t, kMaxQueues> rx_queue_packets{};
  std::array<uint64_t, kMaxQueues> rx_queue_drops{};
  std::array<uint64_t, kMaxQueues> tx_queue_packets{};
};

// Adds a queue group's counters to a port's; the longest wire lag and tx stall are the largest of them.
inline void add_port_counters(PortCounterSnapshot& into, const PortCounters& from) {
  const uint64_t lag_max = std::max(into.wire_lag_max_ns, from.wire_lag_max_ns.get());
  const uint64_t stall_max = std::max(into.tx_stall_max_ns, from.tx_stall_max_ns.get());
  add_counters(into, static_cast<const PortCountersOf<Counter>&>(from));
  into.wire_lag_max_ns = lag_max;
  into.tx_stall_max_ns = stall_max;
  for (uint32_t q = 0; q < kMaxQueues; ++q) {
    into.rx_queue_packets[q] += from.rx_queue_packets[q].get();
    into.rx_queue_drops[q] += from.rx_queue_drops[q].get();
    into.tx_queue_packets[q] += from.tx_queue_packets[q].get();
  }
}

}  // namespace gnf::nic
