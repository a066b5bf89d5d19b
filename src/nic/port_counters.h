// A port's statistics, modelled on the 82599's statistics registers (section 8.2.3.23).
#pragma once
#include <array>
#include <cstdint>

#include "nic/regs.h"
#include "util/counter.h"

namespace gnf::nic {

inline constexpr uint64_t kLateFrameNs = 10'000;

// Modelled on the 82599's statistics registers (section 8.2.3.23); names in comments.
struct PortCounters {
  Counter rx_good_packets;       // GPRC: delivered into an rx descriptor
  Counter rx_good_bytes;         // GORC (with FCS)
  Counter tx_good_packets;       // GPTC
  Counter tx_good_bytes;         // GOTC (with FCS)
  Counter rx_missed;             // MPC: dropped because the rx buffer was full
  Counter rx_runt;               // RUC: shorter than 64 B with FCS
  Counter rx_oversize;           // ROC: longer than max_frame_bytes
  Counter rx_no_desc_drop;       // sum of QPRDC: dropped for a DROP_EN queue with no descriptor
  Counter rx_no_desc_stall;      // RNBC: a non-DROP_EN queue had no descriptor, the port waited
  Counter rx_buffer_too_small;   // frame larger than the descriptor's buffer (no scatter in gnf)
  Counter rx_queue_disabled;     // frame hashed to a queue that is not enabled
  Counter tx_bad_desc;           // a tx descriptor gnf's NIC model cannot send (no EOP, bad length)
  // Not an 82599 counter, a model diagnostic: descriptors the driver overwrote before the NIC sent
  // them, seen as TDT moving further than the ring had room for (only a driver without tx
  // completions, tx_completion = "none", can do that). Those packets are never sent.
  Counter tx_overrun;
  Counter rx_pause;              // flow control: arrivals held back because the buffer was full
  // The model's own health, not an 82599 counter: how late (after its last bit arrived) the NIC
  // model took each frame off the wire. A model that keeps up takes every frame within a poll;
  // frames taken more than kLateFrameNs late mean the wire outran the model, and latencies and
  // rates measured then describe the model, not the data path.
  Counter wire_lag_max_ns;
  Counter wire_lag_sum_ns;
  Counter wire_late_frames;
  // Transmit rounds that sent something (each: one descriptor fetch, one packet read).
  Counter tx_rounds;
  std::array<Counter, kMaxQueues> rx_queue_packets;  // QPRC
  std::array<Counter, kMaxQueues> rx_queue_drops;    // QPRDC
  std::array<Counter, kMaxQueues> tx_queue_packets;  // QPTC
};

// Adds every counter of `from` to `into`.
inline void add_port_counters(PortCounters& into, const PortCounters& from) {
  auto add = [](Counter& a, const Counter& b) { a.add(b.get()); };
  add(into.rx_good_packets, from.rx_good_packets);
  add(into.rx_good_bytes, from.rx_good_bytes);
  add(into.tx_good_packets, from.tx_good_packets);
  add(into.tx_good_bytes, from.tx_good_bytes);
  add(into.rx_missed, from.rx_missed);
  add(into.rx_runt, from.rx_runt);
  add(into.rx_oversize, from.rx_oversize);
  add(into.rx_no_desc_drop, from.rx_no_desc_drop);
  add(into.rx_no_desc_stall, from.rx_no_desc_stall);
  add(into.rx_buffer_too_small, from.rx_buffer_too_small);
  add(into.rx_queue_disabled, from.rx_queue_disabled);
  add(into.tx_bad_desc, from.tx_bad_desc);
  add(into.tx_overrun, from.tx_overrun);
  add(into.rx_pause, from.rx_pause);
  if (from.wire_lag_max_ns.get() > into.wire_lag_max_ns.get()) into.wire_lag_max_ns.set(from.wire_lag_max_ns.get());
  add(into.wire_lag_sum_ns, from.wire_lag_sum_ns);
  add(into.wire_late_frames, from.wire_late_frames);
  add(into.tx_rounds, from.tx_rounds);
  for (uint32_t q = 0; q < kMaxQueues; ++q) {
    add(into.rx_queue_packets[q], from.rx_queue_packets[q]);
    add(into.rx_queue_drops[q], from.rx_queue_drops[q]);
    add(into.tx_queue_packets[q], from.tx_queue_packets[q]);
  }
}

}  // namespace gnf::nic
