#include "nic/queue_group.h"

#include <algorithm>
#include <cstring>

#include "nic/port.h"
#include "util/clock.h"
#include "util/trace.h"
#include "wire/frame_size.h"
#include "wire/stamp.h"

namespace gnf::nic {

namespace {

// Bounds on work per poll. Arrivals get four times the DMA's share, so that a port offered more
// than its DMA moves drops the excess at its buffer (rx_missed), as an overloaded NIC does,
// instead of slowing the wire down. A group that fell behind the wire (its last frame taken more
// than kCatchUpLagNs after it arrived: the thread was held up, or the model is too slow for its
// load) takes a DMA burst at a time instead, with the DMA between, up to kCatchUpChunks more
// times a poll (poll_rx); wire_lag then says how late the model was.
constexpr uint32_t kAdmitBurst = 1024;
constexpr uint32_t kDmaBurst = 256;
constexpr uint64_t kCatchUpLagNs = 20'000;
// A capture ring's size (`pcap start`): some 8 MiB of frame copies, at least 256 frames; what
// arrives faster than the writer thread takes it is counted as dropped by the ring.
constexpr uint32_t kCaptureRingBytes = 8u << 20;
constexpr uint32_t kCaptureRingMinSlots = 256;
constexpr uint32_t kCatchUpChunks = 4;
constexpr uint64_t kCatchUpWindow = 2;
constexpr uint64_t kCatchUpWindowMaxNs = 5'000'000;
// Tx descriptors (or tx FIFO frames) taken per queue per transmit round.
constexpr uint32_t kTxBurst = 256;

uint16_t descriptor_rss_type(RssResult::Type type) {
  switch (type) {
    case RssResult::Type::None: return IXGBE_RXDADV_RSSTYPE_NONE;
    case RssResult::Type::Ipv4: return IXGBE_RXDADV_RSSTYPE_IPV4;
    case RssResult::Type::Ipv4Tcp: return IXGBE_RXDADV_RSSTYPE_IPV4_TCP;
    case RssResult::Type::Ipv4Udp: return IXGBE_RXDADV_RSSTYPE_IPV4_UDP;
    case RssResult::Type::Ipv6: return IXGBE_RXDADV_RSSTYPE_IPV6;
    case RssResult::Type::Ipv6Tcp: return IXGBE_RXDADV_RSSTYPE_IPV6_TCP;
    case RssResult::Type::Ipv6Udp: return IXGBE_RXDADV_RSSTYPE_IPV6_UDP;
  }
  return IXGBE_RXDADV_RSSTYPE_NONE;
}

uint32_t next_index(uint32_t i, uint32_t entries) { return i + 1 == entries ? 0 : i + 1; }

template <typename T>
T* at(uint64_t addr) {
  return reinterpret_cast<T*>(addr);
}

}  // namespace

QueueGroup::QueueGroup(Port& port, uint32_t index, uint32_t groups, wire::Sink* sink, DmaSide dma,
                       mem::Domain fifo_domain)
    : port_(port), index_(index), groups_(groups), sink_(sink), dma_side_(dma),
      trace_admit_(dma == DmaSide::GpuAgent && (trace_handovers() & kTraceAdmit) != 0) {
  const PortOptions& o = port.options();
  const uint32_t max_frame = fifo_align(o.max_frame_bytes);
  // Every frame the buffer holds may hash to one queue: each queue's FIFO can hold the whole buffer
  // (records of the smallest frames; bytes with their alignment).
  const uint32_t rx_records = o.rx_buffer_bytes / uint32_t(wire::l2_bytes(wire::kMinFrameBytes)) + 2;
  const uint32_t rx_bytes = o.rx_buffer_bytes + o.rx_buffer_bytes / 4 + 2 * max_frame;
  // A looped-back port sends in arrival order, as the 82599's one receive FIFO would: one FIFO
  // for all of the group's queues.
  for (uint32_t q = index; q < (o.loopback ? std::min<uint32_t>(index + 1, o.rx_queues) : o.rx_queues); q += groups)
    rx_.push_back(RxQueue{uint16_t(q), std::make_unique<FrameFifo>(fifo_domain, rx_records, rx_bytes), {}});
  // The GPU agent's tx FIFOs are the tx packet buffer: how far ahead of the line the NIC fetches.
  // The 82599's buffer is the port's, any queue's packets may fill it, and this thread's own DMA
  // from rings in host memory (the cpu and staged paths) fetches up to all of it for any queue
  // (line_budget_ps). The agent's FIFOs cannot share one count without a PCIe atomic per fetch, so
  // each queue may hold a quarter of the buffer (at least its share and two largest frames): an
  // even share alone (10 KiB, six 1500 B frames, with 16 queues) starved the queues RSS gives more
  // flows and set bypass's 1500 B NDR at the tx ring (session 18). Under overload the queues
  // together may then hold up to 4x the buffer where the host DMA holds 1x; below the line rate,
  // where NDRs are found, a queue holds less than a quarter.
  const uint32_t tx_bytes = std::max({o.tx_buffer_bytes / o.tx_queues, o.tx_buffer_bytes / 4, 2 * max_frame});
  for (uint32_t q = index; q < o.tx_queues; q += groups)
    tx_.push_back(TxQueue{uint16_t(q), dma == DmaSide::GpuAgent
                                           ? std::make_unique<FrameFifo>(fifo_domain, tx_bytes / 64 + 2, tx_bytes)
                                           : nullptr});
  for (const RxQueue& q : rx_) rx_queues_.push_back(q.queue);
  for (const TxQueue& q : tx_) tx_queues_.push_back(q.queue);
  batch_.reserve(kTxBurst);
}

CaptureRing& QueueGroup::capture_ring(CaptureSide side) {
  std::unique_ptr<CaptureRing>& ring = capture_rings_[size_t(side)];
  if (!ring) {
    const uint32_t slot = port_.options().max_frame_bytes;
    ring = std::make_unique<CaptureRing>(std::max(kCaptureRingMinSlots, kCaptureRingBytes / slot), slot);
  }
  return *ring;
}

void QueueGroup::start(uint64_t now_ns) {
  std::visit([&](auto& w) {
    if constexpr (!std::is_same_v<std::decay_t<decltype(w)>, std::monostate>) w.start(now_ns);
  }, wire_);
  rx_drained_.store(wire_done(), std::memory_order_release);
}

bool QueueGroup::wire_done() {
  return std::visit([](auto& w) {
    if constexpr (std::is_same_v<std::decay_t<decltype(w)>, std::monostate>) return true;
    else return w.done();
  }, wire_);
}

bool QueueGroup::poll_rx(uint64_t now_ns) {
  const uint64_t now_ps = now_ns * 1000;
  // A group that was held up (a VM takes a thread's core for milliseconds at times) finds frames
  // that arrived long ago. It takes them in as the hardware would have moved them, a DMA burst at
  // a time with the DMA between; all at once they would fill the buffer and be lost there only
  // because the model was late. They still count as late (wire_lag).
  bool moved = false;
  if (!behind_) {
    moved = admit_arrivals(now_ps, kAdmitBurst);
    moved |= move_on(now_ps);
  }
  for (uint32_t chunk = 0; behind_ && chunk < kCatchUpChunks; ++chunk) {
    // This thread's DMA into rings takes a burst between two admissions, or drops (DROP_EN), or
    // stalls, and then the buffer overflows as it would have on time. A looped-back port's line
    // cannot send in the past, and the GPU agent moves frames at its own pace: for those the
    // backlog waits on the wire while the group's FIFOs hold a burst (with a queue stalled without
    // DROP_EN the model then falls behind, model-bound, instead of dropping).
    const bool room = (dma_side_ == DmaSide::Host && !port_.options().loopback) || buffered() < kDmaBurst;
    bool step = room && admit_arrivals(now_ps, kDmaBurst);
    step |= move_on(now_ps);
    moved |= step;
    if (!step) break;
  }
  settle_buffer_credit(!moved);
  bool empty = true;
  for (const RxQueue& q : rx_) empty &= q.producer.consumed_seen == q.producer.head;
  rx_drained_.store(empty && wire_done(), std::memory_order_release);
  return moved;
}

// Room in the port's buffer that this group's frames freed or that it took and did not fill stays
// with the group while it is busy, up to Port::rx_buffer_hold(), and all goes back when a poll
// moved nothing: the shared count is then touched about once per piece a group moves, not in every
// poll (a count that every NIC-model thread wrote each poll stopped the model's scaling).
void QueueGroup::settle_buffer_credit(bool idle) {
  const int64_t keep = idle ? 0 : port_.rx_buffer_hold();
  if (buffer_credit_ > keep) {
    port_.free_rx_buffer(buffer_credit_ - keep);
    buffer_credit_ = keep;
  }
}

// Frames in this group's FIFOs that the DMA side has not yet moved on (as last seen).
uint32_t QueueGroup::buffered() const {
  uint32_t frames = 0;
  for (const RxQueue& q : rx_) frames += q.producer.head - q.producer.consumed_seen;
  return frames;
}

// What the DMA side does in a poll: loop back (calibration), DMA into rings in host memory, or
// take back from the GPU agent the room of what it moved.
bool QueueGroup::move_on(uint64_t now_ps) {
  if (port_.options().loopback) {
    const bool moved = loop_back(now_ps);
    if (sink_) sink_->flush();
    return moved;
  }
  return dma_side_ == DmaSide::Host ? dma_to_rx_rings() : reclaim_from_agent();
}

bool QueueGroup::admit_arrivals(uint64_t now_ps, uint32_t limit) {
  if (stop_requested_.load(std::memory_order_relaxed))
    std::visit([](auto& w) {
      if constexpr (!std::is_same_v<std::decay_t<decltype(w)>, std::monostate>) w.stop();
    }, wire_);
  return std::visit([&](auto& w) {
    if constexpr (std::is_same_v<std::decay_t<decltype(w)>, std::monostate>) return false;
    else return admit(w, now_ps, limit);
  }, wire_);
}

template <typename Wire>
bool QueueGroup::admit(Wire& wire, uint64_t now_ps, uint32_t limit) {
  const PortOptions& o = port_.options();
  // Once the buffer had no room, this poll does not ask again: the groups of an overloaded port
  // would otherwise contend on its count for every frame they drop.
  bool full = false;
  uint64_t lag_sum_ps = 0, lag_max_ps = 0, late = 0, runts = 0, oversize = 0, missed = 0, disabled = 0, held = 0;
  uint64_t lag = 0;
  uint32_t n = 0;
  Arrival a;
  // One acquire per poll: a capture started now sees this poll's frames from the next one on.
  CaptureRing* const capture = capture_[size_t(CaptureSide::Rx)].load(std::memory_order_acquire);
  for (; n < limit && wire.next(now_ps, a); ++n) {
    // A paused sender's frame is late by the pause, not by the model.
    if (!o.flow_control) {
      lag = now_ps - a.arrival_ps;
      if (n == 0 && lag > kCatchUpLagNs * 1000) limit = std::min(limit, kDmaBurst);  // behind: see poll_rx
      // A group that was on time and now finds a frame long arrived was away (the VM took its
      // thread's core for about `lag`, or it slept idle). The hardware's DMA kept the buffer
      // draining meanwhile; taken in all at once, the frames of that time fill it, and the frames
      // behind them (this group's and, the buffer being the port's, every group's) would be lost
      // only because the model was late. So for kCatchUpWindow times as long, late frames wait on
      // the wire rather than take the last half of the buffer, or drop. Only a group that was on
      // time opens the window (a group starts as late: the first frames wait for its thread to
      // start), and for at most kCatchUpWindowMaxNs (the VM's stalls last up to 3 ms): one that is
      // late because it held frames, or because the model is slower than the wire, does not, and
      // drops again once the window closes.
      if (n == 0 && !late_last_ && lag > kLateFrameNs * 1000)
        catch_up_until_ps_ = now_ps + std::min(kCatchUpWindow * lag, kCatchUpWindowMaxNs * 1000);
    }
    // The frame leaves the wire, whatever becomes of it; its lag counts then (a held one's later).
    auto take = [&] {
      if (!o.flow_control) {
        lag_sum_ps += lag;
        lag_max_ps = std::max(lag_max_ps, lag);
        late += lag > kLateFrameNs * 1000;
      }
      wire.taken();
    };
    // The MAC checks size first (7.1.1): runts and oversize frames never reach the buffer.
    if (a.len < wire::kMinFrameBytes || a.len > o.max_frame_bytes) {
      ++(a.len < wire::kMinFrameBytes ? runts : oversize);
      take();
      continue;
    }
    const uint32_t need = uint32_t(wire::l2_bytes(a.len));
    const bool owed = now_ps < catch_up_until_ps_ && lag > kCatchUpLagNs * 1000;  // see above
    if (owed && buffer_credit_ < need && port_.rx_buffer_unclaimed() < int64_t(o.rx_buffer_bytes / 2)) {
      hold(a, held);
      break;
    }
    if (buffer_credit_ < need && (full || !port_.take_rx_buffer(buffer_credit_, need))) {
      full = true;
      if (o.flow_control) {
        // XOFF: the partner holds this frame until the buffer drains.
        if (!pause_counted_) counters_.rx_pause.add();
        pause_counted_ = true;
        break;
      }
      if (owed) {
        hold(a, held);
        break;
      }
      ++missed;  // an overloaded port drops at wire speed
      take();
      continue;
    }
    pause_counted_ = false;
    if (a.rss.queue >= o.rx_queues) {
      ++disabled;
      take();
      continue;
    }
    RxQueue& q = rx_[o.loopback ? 0 : a.rss.queue / groups_];
    const FrameFifoRef& f = q.fifo->ref();
    uint32_t position;
    if (!q.producer.place(f, a.len, position)) {
      q.producer.saw_consumed(f, dma_side_ == DmaSide::Host ? q.consumer : load_acquire_sys(f.consumed));
      if (!q.producer.place(f, a.len, position)) {  // FIFOs hold the whole buffer: not expected
        ++missed;
        take();
        continue;
      }
    }
    wire.write(f.at(position));
    if (trace_admit_) stamp_admission(f.at(position), a.len);
    if (capture) capture->push(f.at(position), a.len, a.arrival_ps / 1000);
    q.producer.push(f, position, a.len, a.rss.hash, descriptor_rss_type(a.rss.type), a.rss.queue);
    buffer_credit_ -= need;
    take();
  }
  behind_ = n == limit && lag > kCatchUpLagNs * 1000;
  late_last_ = lag > kCatchUpLagNs * 1000 && (n > 0 || held > 0);
  if (held) counters_.wire_held_frames.add(held);
  if (n == 0) return false;
  if (lag_max_ps / 1000 > counters_.wire_lag_max_ns.get()) counters_.wire_lag_max_ns.set(lag_max_ps / 1000);
  counters_.wire_lag_sum_ns.add(lag_sum_ps / 1000);
  counters_.wire_late_frames.add(late);
  counters_.rx_runt.add(runts);
  counters_.rx_oversize.add(oversize);
  counters_.rx_missed.add(missed);
  counters_.rx_queue_disabled.add(disabled);
  // The GPU agent takes what is published: one release store per queue per poll.
  if (dma_side_ == DmaSide::GpuAgent)
    for (RxQueue& q : rx_)
      if (q.producer.published != q.producer.head) {
        store_sys<MemoryOrder::Relaxed>(q.fifo->ref().produced_bytes(), q.producer.byte_head);
        store_release_sys(q.fifo->ref().produced, q.producer.head);
        q.producer.published = q.producer.head;
      }
  return true;
}

// Leaves frame `a` on the wire for a later poll (catching up: see admit()), counted once however
// many polls it waits; its lag counts when it is taken.
void QueueGroup::hold(const Arrival& a, uint64_t& held) {
  if (a.arrival_ps != held_arrival_ps_) ++held;
  held_arrival_ps_ = a.arrival_ps;
}

// GNF_TRACE_HANDOVERS=admit (util/trace.h): the frame's stamp says when it was stored, not when it
// came off the wire (its UDP checksum is left stale: the GPU consumes it).
void QueueGroup::stamp_admission(uint8_t* frame, uint32_t len) {
  const wire::StampPlace place = wire::find_stamp(frame, len);
  if (place.offset != 0) wire::store_le64(frame + place.offset + 8, now_ns());
}

bool QueueGroup::update_stall(RxQueue& q, bool stalled) {
  if (q.stalled == stalled) return stalled;
  q.stalled = stalled;
  if (stalled) {
    counters_.rx_no_desc_stall.add();
    port_.stalled_queues().fetch_add(1, std::memory_order_relaxed);
  } else {
    port_.stalled_queues().fetch_sub(1, std::memory_order_relaxed);
  }
  return stalled;
}

bool QueueGroup::dma_to_rx_rings() {
  bool moved = false;
  int64_t freed = 0;
  for (RxQueue& q : rx_) {
    const FrameFifoRef& f = q.fifo->ref();
    if (q.consumer == q.producer.head) continue;
    // The 82599 has one receive FIFO: a frame for a queue without DROP_EN and without a descriptor
    // holds up every frame behind it. Here each queue has its FIFO, and while any queue of the
    // port is so stalled, only that queue moves on (head-of-line blocking).
    if (!q.stalled && port_.stalled_queues().load(std::memory_order_relaxed) != 0) continue;
    RxQueueRegs& r = port_.regs().rx[q.queue];
    const uint32_t entries = reg_read(r.RDLEN) / sizeof(ixgbe_adv_rx_desc);
    const bool enabled = (reg_read(r.RXDCTL) & IXGBE_RXDCTL_ENABLE) && entries != 0;
    const uint32_t srrctl = reg_read(r.SRRCTL);
    const uint32_t buffer_bytes = (srrctl & 0x1F) * 1024;  // BSIZEPACKET, 1 KiB units
    // Acquire on RDT: the driver's refills of every descriptor before RDT are visible.
    const uint32_t rdt = reg_read(r.RDT);
    auto* ring = at<ixgbe_adv_rx_desc>(reg_addr64(r.RDBAL, r.RDBAH));
    uint32_t rdh = q.rdh;
    if (q.stalled && rdh != rdt) update_stall(q, false);
    uint64_t placed = 0, bytes = 0, dropped = 0, too_small = 0, disabled = 0;
    const uint32_t first = q.consumer;
    for (uint32_t i = 0; i < kDmaBurst && q.consumer != q.producer.head; ++i) {
      const FifoRecord& rec = f.record(q.consumer);
      if (!enabled) {
        ++disabled;
      } else if (rdh == rdt) {
        // No descriptor. The head never moves onto the tail: RDH == RDT means "none left".
        if (!(srrctl & IXGBE_SRRCTL_DROP_EN) && update_stall(q, true)) break;
        ++dropped;
      } else if (buffer_bytes != 0 && rec.len > buffer_bytes) {
        ++too_small;
      } else {
        ixgbe_adv_rx_desc& desc = ring[rdh];
        std::memcpy(at<uint8_t>(desc.read.pkt_addr), f.at(rec.position), rec.len);
        desc.wb.lower.lo_dword.hs_rss.pkt_info = rec.rss_type;
        desc.wb.lower.lo_dword.hs_rss.hdr_info = 0;
        desc.wb.lower.hi_dword.rss = rec.rss_hash;
        desc.wb.upper.length = uint16_t(rec.len);
        desc.wb.upper.vlan = 0;
        // Release: the packet bytes and the fields above happen-before any acquire load that
        // observes DD. The driver polls exactly this word.
        store_release_sys(&desc.wb.upper.status_error, IXGBE_RXD_STAT_DD | IXGBE_RXD_STAT_EOP);
        rdh = next_index(rdh, entries);
        ++placed;
        bytes += rec.len;
      }
      freed += int64_t(wire::l2_bytes(rec.len));
      ++q.consumer;
    }
    q.producer.saw_consumed(f, q.consumer);
    // A queue stalled on its first frame moved nothing: its thread is waiting, not busy.
    moved |= q.consumer != first;
    if (placed) {
      q.rdh = rdh;
      reg_write(r.RDH, rdh);
      counters_.rx_good_packets.add(placed);
      counters_.rx_good_bytes.add(bytes + placed * wire::kFcsBytes);
      counters_.rx_queue_packets[q.queue].add(placed);
      dma_.packet_bytes_to_memory.add(bytes);
      dma_.desc_bytes_from_memory.add(placed * sizeof(ixgbe_adv_rx_desc));
      dma_.desc_bytes_to_memory.add(placed * sizeof(ixgbe_adv_rx_desc));
    }
    counters_.rx_no_desc_drop.add(dropped);
    counters_.rx_queue_drops[q.queue].add(dropped);
    counters_.rx_buffer_too_small.add(too_small);
    counters_.rx_queue_disabled.add(disabled);
  }
  buffer_credit_ += freed;
  return moved;
}

bool QueueGroup::reclaim_from_agent() {
  int64_t freed = 0;
  for (RxQueue& q : rx_) {
    const FrameFifoRef& f = q.fifo->ref();
    // Acquire: the agent has read the bytes of every record before `consumed`.
    const uint32_t consumed = load_acquire_sys(f.consumed);
    for (uint32_t i = q.producer.consumed_seen; i != consumed; ++i) freed += int64_t(wire::l2_bytes(f.record(i).len));
    q.producer.saw_consumed(f, consumed);
  }
  buffer_credit_ += freed;
  return freed != 0;
}

// The frames of batch_ go onto the line back to back, as early as the line allows and no earlier
// than `now_ps`, and to the sink with the time their last bit leaves; returns how many it sent.
uint64_t QueueGroup::send_batch(uint64_t wire_ps, uint64_t now_ps) {
  uint64_t at = port_.reserve_line(wire_ps, now_ps);
  line_free_seen_ps_ = at + wire_ps;
  uint64_t bytes = 0;
  CaptureRing* const capture = capture_[size_t(CaptureSide::Tx)].load(std::memory_order_acquire);
  for (const Departure& d : batch_) {
    if (!d.data) continue;
    at += wire::l1_bytes(d.len) * port_.ps_per_byte();
    if (capture) capture->push(d.data, d.len, at / 1000);
    if (sink_) sink_->deliver(d.data, d.len, at / 1000);
    bytes += d.len;
  }
  const uint64_t sent = batch_.size() - std::count_if(batch_.begin(), batch_.end(), [](const Departure& d) { return !d.data; });
  counters_.tx_good_packets.add(sent);
  counters_.tx_good_bytes.add(bytes + sent * wire::kFcsBytes);
  return sent;
}

// How many more picoseconds of frames the NIC may take now: it runs no further ahead of the line
// than its tx packet buffer holds (beyond that, frames wait in their rings or FIFOs). The line is
// taken as this group's own last reservation left it, never later than the port's count (other
// groups reserve too): the group learns the count with each reservation, and so runs at most one
// batch past the window, while its polls do not read a line every group writes (that stopped the
// model's scaling with threads).
int64_t QueueGroup::line_budget_ps(uint64_t now_ps) const {
  return int64_t(now_ps + port_.tx_window_ps()) - int64_t(std::max(line_free_seen_ps_, now_ps));
}

bool QueueGroup::loop_back(uint64_t now_ps) {
  RxQueue& q = rx_.front();
  const FrameFifoRef& f = q.fifo->ref();
  int64_t budget = line_budget_ps(now_ps);
  uint64_t wire_ps = 0;
  batch_.clear();
  for (uint32_t i = q.consumer; i != q.producer.head && batch_.size() < kDmaBurst && budget > 0; ++i) {
    const FifoRecord& rec = f.record(i);
    const uint64_t t = wire::l1_bytes(rec.len) * port_.ps_per_byte();
    batch_.push_back(Departure{f.at(rec.position), rec.len});
    wire_ps += t;
    budget -= int64_t(t);
  }
  if (batch_.empty()) return false;
  int64_t freed = 0;
  for (uint32_t i = 0; i < batch_.size(); ++i) {
    const FifoRecord& rec = f.record(q.consumer + i);
    counters_.rx_queue_packets[rec.queue].add();
    counters_.tx_queue_packets[rec.queue].add();
    freed += int64_t(wire::l2_bytes(rec.len));
  }
  send_batch(wire_ps, now_ps);
  counters_.rx_good_packets.add(batch_.size());
  counters_.rx_good_bytes.add(uint64_t(freed));
  q.consumer += uint32_t(batch_.size());
  q.producer.saw_consumed(f, q.consumer);
  buffer_credit_ += freed;
  return true;
}

bool QueueGroup::poll_tx(uint64_t now_ns, Clock live_clock) {
  if (port_.options().loopback) return false;  // the rx side owns the tx line
  const uint64_t now_ps = now_ns * 1000;
  uint64_t waiting = 0;
  const bool moved = dma_side_ == DmaSide::Host ? transmit_rings(now_ps, live_clock, waiting)
                                                : transmit_fifos(now_ps, live_clock, waiting);
  note_tx_stall(now_ps, waiting);
  if (moved) counters_.tx_rounds.add();
  if (sink_) sink_->flush();
  return moved;
}

// A poll that found `waiting` frames long after the one before it: the model's tx side was away
// (PortCounters::tx_stalls). Tests that step time themselves see their steps as gaps.
void QueueGroup::note_tx_stall(uint64_t now_ps, uint64_t waiting) {
  const uint64_t gap_ps = last_tx_poll_ps_ != 0 && now_ps > last_tx_poll_ps_ ? now_ps - last_tx_poll_ps_ : 0;
  last_tx_poll_ps_ = std::max(last_tx_poll_ps_, now_ps);
  if (waiting == 0 || gap_ps <= kLateFrameNs * 1000) return;
  counters_.tx_stalls.add();
  counters_.tx_stalled_frames.add(waiting);
  if (gap_ps / 1000 > counters_.tx_stall_max_ns.get()) counters_.tx_stall_max_ns.set(gap_ps / 1000);
}

// The time to send frames an acquire just found (poll_tx).
static uint64_t after_acquire(uint64_t now_ps, QueueGroup::Clock live_clock) {
  return live_clock ? std::max(now_ps, live_clock() * 1000) : now_ps;
}

// One round of transmit DMA over this group's tx queues: fetch what each has pending (up to a
// burst), as much as the tx packet buffer takes, send it, write back and move the heads.
bool QueueGroup::transmit_rings(uint64_t now_ps, Clock live_clock, uint64_t& waiting) {
  bool moved = false;
  const PortOptions& o = port_.options();
  for (TxQueue& q : tx_) {
    TxQueueRegs& t = port_.regs().tx[q.queue];
    const uint32_t entries = reg_read(t.TDLEN) / sizeof(ixgbe_adv_tx_desc);
    if (!(reg_read(t.TXDCTL) & IXGBE_TXDCTL_ENABLE) || entries == 0) continue;
    // Acquire on TDT: the descriptors (and packets) the driver queued before it are visible.
    const uint32_t tdt = reg_read(t.TDT);
    // [TDH, last TDT) was pending; the driver added (TDT - last TDT) since. More than the ring
    // holds means it wrapped past the head: the NIC now sees (that sum mod entries) pending, and
    // the descriptors in between are overwritten or passed by before they are sent.
    const uint32_t pending = (q.last_tdt + entries - q.tdh) % entries + (tdt + entries - q.last_tdt) % entries;
    if (pending >= entries) counters_.tx_overrun.add(pending / entries * entries);
    q.last_tdt = tdt;
    if (q.tdh == tdt) continue;
    waiting += (tdt + entries - q.tdh) % entries;
    now_ps = after_acquire(now_ps, live_clock);
    const uint32_t count = std::min((tdt + entries - q.tdh) % entries, kTxBurst);
    auto* ring = at<ixgbe_adv_tx_desc>(reg_addr64(t.TDBAL, t.TDBAH));
    int64_t budget = line_budget_ps(now_ps);
    uint64_t wire_ps = 0, read_bytes = 0;
    batch_.clear();
    for (uint32_t i = 0, d = q.tdh; i < count && budget > 0; ++i, d = next_index(d, entries)) {
      const uint32_t cmd = ring[d].read.cmd_type_len;
      const uint32_t len = cmd & IXGBE_ADVTXD_DTALEN_MASK;
      // gnf's NIC model sends single-descriptor packets only.
      const bool sendable = (cmd & IXGBE_ADVTXD_DCMD_EOP) && len != 0 && len <= o.max_frame_bytes;
      batch_.push_back(Departure{sendable ? at<const uint8_t>(ring[d].read.buffer_addr) : nullptr, len});
      if (!sendable) continue;
      const uint64_t time = wire::l1_bytes(len) * port_.ps_per_byte();
      wire_ps += time;
      budget -= int64_t(time);
      read_bytes += len;
    }
    if (batch_.empty()) continue;
    moved = true;
    counters_.tx_queue_packets[q.queue].add(send_batch(wire_ps, now_ps));
    uint32_t d = q.tdh;
    uint64_t writebacks = 0;
    for (const Departure& sent : batch_) {
      if (!sent.data) counters_.tx_bad_desc.add();
      if (ring[d].read.cmd_type_len & IXGBE_ADVTXD_DCMD_RS) {
        // The NIC is done with the descriptor and its buffer: release, so that the driver's acquire
        // of DD may reuse the slot knowing this read of it is complete.
        store_release_sys(&ring[d].wb.status, IXGBE_ADVTXD_STAT_DD);
        ++writebacks;
      }
      d = next_index(d, entries);
    }
    q.tdh = d;
    reg_write(t.TDH, d);
    const uint32_t wbal = reg_read(t.TDWBAL);
    if (wbal & IXGBE_TDWBAL_HEAD_WB_EN) {
      store_release_sys(at<uint32_t>(reg_addr64(wbal & ~3u, reg_read(t.TDWBAH))), d);
      dma_.desc_bytes_to_memory.add(4);
    }
    dma_.desc_bytes_from_memory.add(batch_.size() * sizeof(ixgbe_adv_tx_desc));
    dma_.desc_bytes_to_memory.add(writebacks * sizeof(ixgbe_adv_tx_desc));
    dma_.packet_bytes_from_memory.add(read_bytes);
  }
  return moved;
}

// The GPU agent has fetched these frames from the tx rings into the queues' FIFOs; they go onto
// the line from there.
bool QueueGroup::transmit_fifos(uint64_t now_ps, Clock live_clock, uint64_t& waiting) {
  bool moved = false;
  for (TxQueue& q : tx_) {
    const FrameFifoRef& f = q.fifo->ref();
    // Acquire: the agent's records and bytes before `produced` are visible.
    const uint32_t produced = load_acquire_sys(f.produced);
    if (produced == q.consumer) continue;
    waiting += produced - q.consumer;
    now_ps = after_acquire(now_ps, live_clock);
    int64_t budget = line_budget_ps(now_ps);
    uint64_t wire_ps = 0;
    batch_.clear();
    for (uint32_t i = q.consumer; i != produced && batch_.size() < kTxBurst && budget > 0; ++i) {
      const FifoRecord& rec = f.record(i);
      const uint64_t t = wire::l1_bytes(rec.len) * port_.ps_per_byte();
      batch_.push_back(Departure{f.at(rec.position), rec.len});
      wire_ps += t;
      budget -= int64_t(t);
    }
    if (batch_.empty()) continue;
    moved = true;
    counters_.tx_queue_packets[q.queue].add(send_batch(wire_ps, now_ps));
    q.consumer += uint32_t(batch_.size());
    // Release: the frames are read (delivered) before the agent may write over them.
    store_release_sys(f.consumed, q.consumer);
  }
  return moved;
}

bool QueueGroup::rx_quiet() const {
  if (behind_ || buffered() != 0) return false;
  return std::visit([](const auto& w) {
    if constexpr (std::is_same_v<std::decay_t<decltype(w)>, std::monostate>) return true;
    else return !w.scheduled();
  }, wire_);
}

bool QueueGroup::tx_drained() const {
  for (const TxQueue& q : tx_) {
    const TxQueueRegs& t = port_.regs().tx[q.queue];
    if (reg_read(t.TDH) != reg_read(t.TDT)) return false;
    if (q.fifo && load_acquire_sys(q.fifo->ref().produced) != load_acquire_sys(q.fifo->ref().consumed)) return false;
  }
  return true;
}

}  // namespace gnf::nic
