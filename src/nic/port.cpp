#include "nic/port.h"

#include <algorithm>
#include <cstring>

namespace gnf::nic {

namespace {

// Bounds on work per poll(). Arrivals get four times the DMA's share, so that a port offered more
// than the model moves drops the excess at its buffer (rx_missed), as an overloaded NIC does,
// instead of slowing the wire down; only when the model cannot even take frames off the wire as
// fast as they arrive does it fall behind, and wire_lag says so. Without a bound, a model that
// fell behind would spend every poll admitting and its DMA would starve.
constexpr int kAdmitBurst = 1024;
constexpr int kDmaBurst = 256;

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

uint32_t ring_entries(uint32_t len_bytes) { return len_bytes / 16; }

}  // namespace

Port::Port(const PortOptions& options, DmaEngine& rx_dma, DmaEngine& tx_dma, wire::Source* source, wire::Sink* sink,
           PortRegs* regs)
    : options_(options),
      rx_dma_(rx_dma),
      tx_dma_(tx_dma),
      source_(source),
      sink_(sink),
      own_regs_(regs ? nullptr : std::make_unique<PortRegs>()),
      regs_(regs ? regs : own_regs_.get()),
      rss_table_(std::make_unique<ToeplitzTable>(options.rss.key)),
      rx_buffer_(options.rx_buffer_bytes, options.max_frame_bytes),
      rx_line_(options.speed_gbps),
      tx_line_(options.speed_gbps),
      rx_desc_cache_(options.rx_queues),
      // What one transmit round may read: the tx packet buffer's worth plus a frame on each side
      // of the window check, and the 16-byte alignment of every read.
      tx_staging_(size_t(options.tx_buffer_bytes) * 2 + 2 * size_t(options.max_frame_bytes)),
      tx_descs_(size_t(options.tx_queues) * kTxDescBurst),
      tx_sendable_(size_t(options.tx_queues) * kTxDescBurst) {
  std::memset(regs_, 0, sizeof(PortRegs));
  tx_window_ps_ = uint64_t(options.tx_buffer_bytes) * 8 * 1000 / options.speed_gbps;
  source_done_ = source_ == nullptr;
  rx_drained_.store(source_done_, std::memory_order_release);
}

void Port::start(uint64_t now_ns) {
  rx_line_.reset(now_ns * 1000);
  tx_line_.reset(now_ns * 1000);
  if (source_) source_->start(now_ns);
}

bool Port::poll_rx(uint64_t now_ns) {
  bool moved = admit_arrivals(now_ns * 1000);
  if (options_.loopback) {
    moved |= loop_back(now_ns * 1000);
    if (sink_) sink_->flush();
  } else {
    uint32_t before = rx_writebacks_pending_;
    moved |= dma_to_rx_rings();
    if (before == 0 && rx_writebacks_pending_ != 0) rx_writeback_oldest_ns_ = now_ns;
    if (rx_writebacks_pending_ >= options_.rx_writeback_batch ||
        (rx_writebacks_pending_ != 0 && now_ns - rx_writeback_oldest_ns_ >= options_.rx_writeback_timeout_ns) ||
        source_done_) {
      rx_dma_.flush();
      rx_writebacks_pending_ = 0;
    }
  }
  rx_drained_.store(source_done_ && !have_pending_ && rx_buffer_.frames() == 0, std::memory_order_release);
  return moved;
}

bool Port::poll_tx(uint64_t now_ns) {
  if (options_.loopback) return false;  // the rx side owns the tx line
  bool moved = transmit(now_ns * 1000);
  tx_dma_.flush();
  if (sink_) sink_->flush();
  return moved;
}

uint64_t Port::rx_buffer_address(uint16_t queue, uint32_t rdh, uint32_t rdt, uint32_t entries, uint64_t ring_base) {
  RxDescCache& cache = rx_desc_cache_[queue];
  if (cache.count == 0 || rdh - cache.first >= cache.count) {
    // Descriptors the NIC owns are [RDH, RDT): fetch up to a burst of them, not past the ring's end.
    uint32_t owned = (rdt + entries - rdh) % entries;
    uint32_t n = std::min({owned, kDescBurst, entries - rdh});
    ixgbe_adv_rx_desc descs[kDescBurst];
    DescRead read{descs, ring_base + uint64_t(rdh) * sizeof(ixgbe_adv_rx_desc), n};
    rx_dma_.read_descs(&read, 1);
    for (uint32_t i = 0; i < n; ++i) cache.pkt_addr[i] = descs[i].read.pkt_addr;
    cache.first = rdh;
    cache.count = n;
  }
  uint64_t addr = cache.pkt_addr[rdh - cache.first];
  // Once the last prefetched descriptor is used the cache is stale: the driver refills those
  // descriptors with other slots before the ring comes round again.
  if (rdh + 1 == cache.first + cache.count) cache.count = 0;
  return addr;
}

bool Port::next_source_frame() {
  if (source_done_) return false;
  wire::Next got = source_stopped_.load(std::memory_order_relaxed) ? wire::Next::Exhausted : source_->next(pending_);
  if (got == wire::Next::Exhausted) source_done_ = true;
  if (got != wire::Next::Frame) return false;
  // The wire carries one frame at a time: it arrives (last bit) one wire time after it started,
  // and it cannot start before the previous one is through.
  pending_arrival_ps_ = rx_line_.transmit(pending_.len, pending_.time_ns * 1000);
  have_pending_ = true;
  return true;
}

void Port::record_lag(uint64_t lag_ps) {
  uint64_t lag_ns = lag_ps / 1000;
  counters_.wire_lag_sum_ns.add(lag_ns);
  if (lag_ns > counters_.wire_lag_max_ns.get()) counters_.wire_lag_max_ns.set(lag_ns);
  if (lag_ns > kLateFrameNs) counters_.wire_late_frames.add();
}

bool Port::admit_arrivals(uint64_t now_ps) {
  bool moved = false;
  for (int i = 0; i < kAdmitBurst; ++i) {
    if (!have_pending_ && !next_source_frame()) break;
    if (pending_arrival_ps_ > now_ps) break;
    const wire::Frame& frame = pending_;
    // A paused sender's frame is late by the pause, not by the model.
    if (!options_.flow_control) record_lag(now_ps - pending_arrival_ps_);
    // The MAC checks size first (7.1.1): runts and oversize frames never reach the buffer.
    if (frame.len < wire::kMinFrameBytes) {
      counters_.rx_runt.add();
    } else if (frame.len > options_.max_frame_bytes) {
      counters_.rx_oversize.add();
    } else if (!options_.flow_control && !rx_buffer_.fits(frame.len)) {
      counters_.rx_missed.add();  // dropped before RSS: an overloaded port must drop at wire speed
    } else {
      RssResult rss = rss_classify(options_.rss, *rss_table_, frame.data, frame.len);
      RxRecord record{};
      record.len = frame.len;
      record.queue = rss.queue;
      record.rss_type = descriptor_rss_type(rss.type);
      record.rss_hash = rss.hash;
      record.arrival_ns = pending_arrival_ps_ / 1000;
      if (!rx_buffer_.push(record, frame.data)) {
        if (options_.flow_control) {
          // XOFF: the partner holds this frame until the buffer drains.
          if (!pause_counted_) counters_.rx_pause.add();
          pause_counted_ = true;
          break;
        }
        counters_.rx_missed.add();
      }
    }
    pause_counted_ = false;
    have_pending_ = false;
    moved = true;
  }
  return moved;
}

bool Port::dma_to_rx_rings() {
  bool moved = false;
  for (int i = 0; i < kDmaBurst; ++i) {
    const RxRecord* record = rx_buffer_.front();
    if (!record) break;
    uint16_t q = record->queue;
    RxQueueRegs& r = regs_->rx[q];
    uint32_t entries = ring_entries(reg_read(r.RDLEN));
    if (!(reg_read(r.RXDCTL) & IXGBE_RXDCTL_ENABLE) || entries == 0) {
      counters_.rx_queue_disabled.add();
      rx_buffer_.pop();
      moved = true;
      continue;
    }
    // Acquire on RDT: the driver's refills of every descriptor before RDT are visible.
    uint32_t rdt = reg_read(r.RDT);
    uint32_t rdh = reg_read(r.RDH);
    if (rdh == rdt) {
      // No descriptor. The head never moves onto the tail: RDH == RDT means "none left".
      if (reg_read(r.SRRCTL) & IXGBE_SRRCTL_DROP_EN) {
        counters_.rx_no_desc_drop.add();
        counters_.rx_queue_drops[q].add();
        rx_buffer_.pop();
        moved = true;
        continue;
      }
      // Without DROP_EN the frame waits at the head of the shared buffer and blocks every queue
      // of the port behind it: head-of-line blocking, as on the real NIC.
      if (!rx_stalled_) counters_.rx_no_desc_stall.add();
      rx_stalled_ = true;
      break;
    }
    rx_stalled_ = false;
    uint64_t ring_base = reg_addr64(r.RDBAL, r.RDBAH);
    uint64_t desc_addr = ring_base + uint64_t(rdh) * sizeof(ixgbe_adv_rx_desc);
    uint64_t pkt_addr = rx_buffer_address(q, rdh, rdt, entries, ring_base);
    uint32_t buffer_bytes = (reg_read(r.SRRCTL) & 0x1F) * 1024;  // BSIZEPACKET, 1 KiB units
    if (buffer_bytes != 0 && record->len > buffer_bytes) {
      counters_.rx_buffer_too_small.add();
      rx_buffer_.pop();
      moved = true;
      continue;
    }
    rx_dma_.write_packet(pkt_addr, record->data(), record->len);
    ixgbe_adv_rx_desc wb{};
    wb.wb.lower.lo_dword.hs_rss.pkt_info = record->rss_type;
    wb.wb.lower.hi_dword.rss = record->rss_hash;
    wb.wb.upper.length = uint16_t(record->len);
    wb.wb.upper.status_error = IXGBE_RXD_STAT_DD | IXGBE_RXD_STAT_EOP;
    rx_dma_.write_rx_writeback(desc_addr, wb);
    ++rx_writebacks_pending_;
    reg_write(r.RDH, (rdh + 1) % entries);
    counters_.rx_good_packets.add();
    counters_.rx_good_bytes.add(wire::l2_bytes(record->len));
    counters_.rx_queue_packets[q].add();
    rx_buffer_.pop();
    moved = true;
  }
  return moved;
}

bool Port::loop_back(uint64_t now_ps) {
  bool moved = false;
  for (int i = 0; i < kDmaBurst; ++i) {
    const RxRecord* record = rx_buffer_.front();
    if (!record) break;
    // As in transmit(): the NIC runs no further ahead of the line than its tx packet buffer holds;
    // beyond that frames wait in the rx buffer (and overflow it, as an overloaded port would).
    if (tx_line_.free_at_ps() > now_ps + tx_window_ps_) break;
    uint64_t done_ps = tx_line_.transmit(record->len, now_ps);
    if (sink_) sink_->deliver(record->data(), record->len, done_ps / 1000);
    counters_.rx_good_packets.add();
    counters_.rx_good_bytes.add(wire::l2_bytes(record->len));
    counters_.rx_queue_packets[record->queue].add();
    counters_.tx_good_packets.add();
    counters_.tx_good_bytes.add(wire::l2_bytes(record->len));
    counters_.tx_queue_packets[record->queue].add();
    rx_buffer_.pop();
    moved = true;
  }
  return moved;
}

// One round of transmit DMA over every tx queue, in three steps, each one batch of DMA: fetch the
// descriptors every queue has pending (a burst each), read the packets of as many as the tx packet
// buffer takes, then send them, write back and move the heads. Queues are served round robin; a
// round that fills the buffer resumes at the queue it stopped in.
bool Port::transmit(uint64_t now_ps) {
  const uint32_t queues = options_.tx_queues;
  tx_fetches_.clear();
  desc_reads_.clear();
  uint32_t fetched = 0;
  for (uint32_t k = 0; k < queues; ++k) {
    uint32_t q = (tx_next_queue_ + k) % queues;
    TxQueueRegs& t = regs_->tx[q];
    uint32_t entries = ring_entries(reg_read(t.TDLEN));
    if (!(reg_read(t.TXDCTL) & IXGBE_TXDCTL_ENABLE) || entries == 0) continue;
    // Acquire on TDT: the descriptors (and packets) the driver queued before it are visible.
    uint32_t tdt = reg_read(t.TDT);
    uint32_t tdh = reg_read(t.TDH);
    // [TDH, last TDT) was pending; the driver added (TDT - last TDT) since. More than the ring
    // holds means it wrapped past the head: the NIC now sees (that sum mod entries) pending, and
    // the descriptors in between are overwritten or passed by before they are sent.
    uint32_t pending = (last_tdt_[q] + entries - tdh) % entries + (tdt + entries - last_tdt_[q]) % entries;
    if (pending >= entries) counters_.tx_overrun.add(pending / entries * entries);
    last_tdt_[q] = tdt;
    if (tdh == tdt) continue;
    uint32_t n = std::min({(tdt + entries - tdh) % entries, kTxDescBurst, entries - tdh});
    uint64_t base = reg_addr64(t.TDBAL, t.TDBAH);
    tx_fetches_.push_back(TxFetch{q, tdh, n, entries, base, fetched, 0});
    desc_reads_.push_back(DescRead{&tx_descs_[fetched], base + uint64_t(tdh) * sizeof(ixgbe_adv_tx_desc), n});
    fetched += n;
  }
  if (tx_fetches_.empty()) {
    tx_next_queue_ = (tx_next_queue_ + 1) % (queues ? queues : 1);
    return false;
  }
  tx_dma_.read_descs(desc_reads_.data(), uint32_t(desc_reads_.size()));

  // Take descriptors while the tx packet buffer has room; a descriptor gnf's model cannot send
  // (no EOP, bad length) is taken and counted, with nothing to read.
  packet_reads_.clear();
  uint64_t line_free_ps = tx_line_.free_at_ps();
  size_t staged = 0;
  bool buffer_full = false;
  uint32_t resume_queue = 0;
  for (TxFetch& f : tx_fetches_) {
    for (; f.taken < f.count; ++f.taken) {
      if (line_free_ps > now_ps + tx_window_ps_ || staged + options_.max_frame_bytes > tx_staging_.size()) {
        buffer_full = true;
        break;
      }
      const ixgbe_adv_tx_desc& d = tx_descs_[f.first_desc + f.taken];
      uint32_t cmd = d.read.cmd_type_len;
      uint32_t len = cmd & IXGBE_ADVTXD_DTALEN_MASK;
      bool sendable = (cmd & IXGBE_ADVTXD_DCMD_EOP) && len != 0 && len <= options_.max_frame_bytes;
      tx_sendable_[f.first_desc + f.taken] = sendable;
      if (!sendable) continue;
      packet_reads_.push_back(PacketRead{tx_staging_.data() + staged, d.read.buffer_addr, len});
      staged += (len + 15) & ~size_t(15);
      line_free_ps = std::max(line_free_ps, now_ps) + wire_time_ps(len, options_.speed_gbps);
    }
    if (buffer_full) {
      resume_queue = f.queue;
      break;
    }
  }
  tx_dma_.read_packets(packet_reads_.data(), uint32_t(packet_reads_.size()));
  // No first bit leaves before its packet is in the NIC: the line starts from when the reads
  // returned, not from when this round began (the DMA round trips between can be microseconds
  // on GPU memory, and a GPU that timed its hand-over would otherwise see frames leave before it).
  const uint64_t fetched_ps = clock_ns_ ? std::max(now_ps, clock_ns_() * 1000) : now_ps;

  bool moved = false;
  const PacketRead* next_read = packet_reads_.data();
  for (const TxFetch& f : tx_fetches_) {
    if (f.taken == 0) continue;
    moved = true;
    for (uint32_t i = 0; i < f.taken; ++i) {
      const ixgbe_adv_tx_desc& d = tx_descs_[f.first_desc + i];
      if (tx_sendable_[f.first_desc + i]) {
        uint64_t done_ps = tx_line_.transmit(next_read->len, fetched_ps);
        if (sink_) sink_->deliver(next_read->dst, next_read->len, done_ps / 1000);
        counters_.tx_good_packets.add();
        counters_.tx_good_bytes.add(wire::l2_bytes(next_read->len));
        counters_.tx_queue_packets[f.queue].add();
        ++next_read;
      } else {
        counters_.tx_bad_desc.add();  // gnf's NIC model sends single-descriptor packets only
      }
      if (d.read.cmd_type_len & IXGBE_ADVTXD_DCMD_RS)
        tx_dma_.write_tx_writeback(f.ring_base + uint64_t((f.tdh + i) % f.entries) * sizeof(ixgbe_adv_tx_desc));
    }
    TxQueueRegs& t = regs_->tx[f.queue];
    uint32_t tdh = (f.tdh + f.taken) % f.entries;
    reg_write(t.TDH, tdh);
    uint32_t wbal = reg_read(t.TDWBAL);
    if (wbal & IXGBE_TDWBAL_HEAD_WB_EN) tx_dma_.write_u32(reg_addr64(wbal & ~3u, reg_read(t.TDWBAH)), tdh);
  }
  tx_next_queue_ = buffer_full ? resume_queue : (tx_next_queue_ + 1) % queues;
  if (moved) counters_.tx_rounds.add();
  return moved;
}

bool Port::tx_drained() const {
  for (uint32_t q = 0; q < options_.tx_queues; ++q) {
    const TxQueueRegs& t = regs_->tx[q];
    if (reg_read(t.TDH) != reg_read(t.TDT)) return false;
  }
  return true;
}

}  // namespace gnf::nic
