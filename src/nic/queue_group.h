// A queue group: the queues of one port that one NIC-model thread serves, rx and tx. A port's
// queues are dealt out over its groups (queue q to group q % groups), so a port scales with the
// NIC-model threads; a port whose wire cannot be split (a pcap file, a Linux interface, flow
// control, a capture) has one group.
//
// Receive: frames come off the wire (wire_in.h) at line rate, pass the MAC's size checks, are
// classified by RSS and stored in their queue's FIFO (frame_fifo.h) if the port's on-NIC buffer has
// room; otherwise they are lost there (rx_missed), or with flow control the sender is paused. Then
// the DMA side moves them into rx descriptors: this thread for rings in host memory, the GPU agent
// for rings in GPU memory (gpu_agent.h), and the buffer room they held comes back.
// Transmit: this thread reads the tx rings in host memory and sends their frames; for rings in GPU
// memory the GPU agent fetches them into the queue's tx FIFO and this thread sends them. Sending
// paces the port's one line, shared by its groups (Port::reserve_line).
//
// All register and write-back traffic is per batch: a tail is read, a head written, once per queue
// per poll; the packet's descriptor write-back per packet, as the 82599 does.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "nic/capture_ring.h"
#include "nic/dma_counters.h"
#include "nic/frame_fifo.h"
#include "nic/ixgbe_desc.h"
#include "nic/port_counters.h"
#include "nic/wire_in.h"
#include "wire/wire.h"

namespace gnf::nic {

class Port;

// Who moves frames between the NIC and the rings: this side's threads (rings in host or pinned
// memory) or the GPU agent (rings in GPU memory).
enum class DmaSide : uint8_t { Host, GpuAgent };

// Which frames a capture (`gnf ctl pcap start`) copies: those stored for the rx rings, or those
// sent on the line.
enum class CaptureSide : uint8_t { Rx = 0, Tx = 1 };

class QueueGroup {
 public:
  // Serves queues q with q % groups == index; `fifo_domain` is where its FIFOs live (HostPinned
  // for the GPU agent).
  QueueGroup(Port& port, uint32_t index, uint32_t groups, wire::Sink* sink, DmaSide dma, mem::Domain fifo_domain);

  void set_wire(SourceWire wire) { wire_.emplace<SourceWire>(std::move(wire)); }
  void set_wire(ShardWire wire) { wire_.emplace<ShardWire>(std::move(wire)); }

  void start(uint64_t now_ns);
  // Wire in, and DMA into the rx rings (or back from the GPU agent). True if anything moved.
  bool poll_rx(uint64_t now_ns);
  // Out of the tx rings (or the GPU agent's tx FIFOs) onto the line. True if anything moved. With
  // a live clock (the NIC threads'; tests that step time themselves pass none) the time is read
  // again once an acquire has found frames: `now_ns` may be older than a frame queued since, which
  // must not leave before it was queued.
  using Clock = uint64_t (*)();
  bool poll_tx(uint64_t now_ns, Clock live_clock = nullptr);
  // Takes no more frames from the wire (the thread that polls it, or before it starts).
  void stop_source() { stop_requested_.store(true, std::memory_order_relaxed); }

  // No frame will come from the wire again and every frame stored has been moved on (any thread).
  bool rx_drained() const { return rx_drained_.load(std::memory_order_acquire); }
  // Every frame handed to the NIC on this group's tx queues has left (any thread).
  bool tx_drained() const;
  // Nothing on the receive side waits for the thread that polls it: no frame due on the wire at a
  // time the wire fixed, none in the FIFOs, no catching up (that thread's; util/idle_backoff.h).
  bool rx_quiet() const;

  // The ring a capture of `side` copies frames into (nic/capture_ring.h): made on the first call
  // and kept for the group's life, so that a poll that loaded it before set_capture(side, false)
  // may still push into it. set_capture() starts or stops the copying. Control thread only.
  CaptureRing& capture_ring(CaptureSide side);
  void set_capture(CaptureSide side, bool on) {
    capture_[size_t(side)].store(on ? capture_rings_[size_t(side)].get() : nullptr, std::memory_order_release);
  }

  const PortCounters& counters() const { return counters_; }
  const DmaCounters& dma_counters() const { return dma_; }
  uint32_t index() const { return index_; }
  // The queues of the group, in order, and the FIFO of each (the GPU agent's other end).
  const std::vector<uint16_t>& rx_queues() const { return rx_queues_; }
  const std::vector<uint16_t>& tx_queues() const { return tx_queues_; }
  const FrameFifoRef& rx_fifo(size_t local) const { return rx_[local].fifo->ref(); }
  const FrameFifoRef& tx_fifo(size_t local) const { return tx_[local].fifo->ref(); }

 private:
  struct RxQueue {
    uint16_t queue;
    std::unique_ptr<FrameFifo> fifo;
    FifoProducer producer;
    uint32_t consumer = 0;   // host DMA: records taken out
    uint32_t rdh = 0;        // the NIC's head; RDH is written from it once per burst
    bool stalled = false;    // counted in the port's stalled queues (no DROP_EN, no descriptor)
  };
  struct TxQueue {
    uint16_t queue;
    std::unique_ptr<FrameFifo> fifo;  // GPU agent only
    uint32_t consumer = 0;
    uint32_t tdh = 0;
    uint32_t last_tdt = 0;
  };

  template <typename Wire>
  bool admit(Wire& wire, uint64_t now_ps, uint32_t limit);
  bool admit_arrivals(uint64_t now_ps, uint32_t limit);
  bool move_on(uint64_t now_ps);
  uint32_t buffered() const;
  bool dma_to_rx_rings();
  bool reclaim_from_agent();
  bool loop_back(uint64_t now_ps);
  bool transmit_rings(uint64_t now_ps, Clock live_clock, uint64_t& waiting);
  bool transmit_fifos(uint64_t now_ps, Clock live_clock, uint64_t& waiting);
  void note_tx_stall(uint64_t now_ps, uint64_t waiting);
  bool update_stall(RxQueue& q, bool stalled);
  void hold(const Arrival& a, uint64_t& held);
  void stamp_admission(uint8_t* frame, uint32_t len);
  void settle_buffer_credit(bool idle);
  bool wire_done();
  int64_t line_budget_ps(uint64_t now_ps) const;
  uint64_t send_batch(uint64_t wire_ps, uint64_t now_ps);

  Port& port_;
  const uint32_t index_;
  const uint32_t groups_;
  wire::Sink* sink_;
  const DmaSide dma_side_;
  const bool trace_admit_;  // util/trace.h
  std::variant<std::monostate, SourceWire, ShardWire> wire_;
  std::vector<uint16_t> rx_queues_, tx_queues_;
  std::vector<RxQueue> rx_;
  std::vector<TxQueue> tx_;
  PortCounters counters_;
  DmaCounters dma_;
  std::unique_ptr<CaptureRing> capture_rings_[2];             // by CaptureSide; made on first use
  std::atomic<CaptureRing*> capture_[2] = {nullptr, nullptr};  // while a capture runs
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> rx_drained_{false};
  bool pause_counted_ = false;
  // Room in the port's on-NIC buffer this group holds: taken for frames not yet arrived, or freed
  // by frames it moved on and not yet handed back (settle_buffer_credit).
  int64_t buffer_credit_ = 0;
  bool behind_ = false;  // the last admission stopped at its limit, its last frame long arrived
  // Until when this group catches up after its thread was away, late frames then waiting for room
  // rather than dropping (admit(); PortCounters::wire_held_frames); whether its last admission
  // ended on a late frame.
  uint64_t catch_up_until_ps_ = 0;
  bool late_last_ = true;
  uint64_t held_arrival_ps_ = ~uint64_t(0);  // the frame last held, counted once
  uint64_t line_free_seen_ps_ = 0;  // when the port's line is free, as this group last saw it
  uint64_t last_tx_poll_ps_ = 0;    // when poll_tx last looked (0: not yet); PortCounters::tx_stalls
  // One transmit batch, kept between polls so the hot path does not allocate.
  struct Departure {
    const uint8_t* data;
    uint32_t len;
  };
  std::vector<Departure> batch_;
};

}  // namespace gnf::nic
