#include "nic/port.h"

#include <algorithm>
#include <cstring>

namespace gnf::nic {

namespace {

// Bounds on work per poll() so one busy direction cannot starve the other.
constexpr int kAdmitBurst = 256;
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
      tx_staging_(size_t(kDescBurst) * options.max_frame_bytes) {
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
  return moved;
}

uint64_t Port::rx_buffer_address(uint16_t queue, uint32_t rdh, uint32_t rdt, uint32_t entries, uint64_t ring_base) {
  RxDescCache& cache = rx_desc_cache_[queue];
  if (cache.count == 0 || rdh - cache.first >= cache.count) {
    // Descriptors the NIC owns are [RDH, RDT): fetch up to a burst of them, not past the ring's end.
    uint32_t owned = (rdt + entries - rdh) % entries;
    uint32_t n = std::min({owned, kDescBurst, entries - rdh});
    ixgbe_adv_rx_desc descs[kDescBurst];
    rx_dma_.read_descs(descs, ring_base + uint64_t(rdh) * sizeof(ixgbe_adv_rx_desc), n);
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
  if (source_stopped_.load(std::memory_order_relaxed) || !source_->next(pending_)) {
    source_done_ = true;
    return false;
  }
  // The wire carries one frame at a time: it arrives (last bit) one wire time after it started,
  // and it cannot start before the previous one is through.
  pending_arrival_ps_ = rx_line_.transmit(pending_.len, pending_.time_ns * 1000);
  have_pending_ = true;
  return true;
}

bool Port::admit_arrivals(uint64_t now_ps) {
  bool moved = false;
  for (int i = 0; i < kAdmitBurst; ++i) {
    if (!have_pending_ && !next_source_frame()) break;
    if (pending_arrival_ps_ > now_ps) break;
    const wire::Frame& frame = pending_;
    // The MAC checks size first (7.1.1): runts and oversize frames never reach the buffer.
    if (frame.len < wire::kMinFrameBytes) {
      counters_.rx_runt.add();
    } else if (frame.len > options_.max_frame_bytes) {
      counters_.rx_oversize.add();
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

bool Port::transmit(uint64_t now_ps) {
  bool moved = false;
  uint32_t queues = options_.tx_queues;
  for (uint32_t k = 0; k < queues; ++k) {
    uint32_t q = (tx_next_queue_ + k) % queues;
    TxQueueRegs& t = regs_->tx[q];
    uint32_t entries = ring_entries(reg_read(t.TDLEN));
    if (!(reg_read(t.TXDCTL) & IXGBE_TXDCTL_ENABLE) || entries == 0) continue;
    // Acquire on TDT: the descriptors (and packets) the driver queued before it are visible.
    uint32_t tdt = reg_read(t.TDT);
    uint32_t tdh = reg_read(t.TDH);
    uint64_t base = reg_addr64(t.TDBAL, t.TDBAH);
    while (tdh != tdt) {
      // Fetch a burst of descriptors, then as many of their packets as the tx packet buffer takes.
      uint32_t n = std::min({(tdt + entries - tdh) % entries, kDescBurst, entries - tdh});
      ixgbe_adv_tx_desc descs[kDescBurst];
      tx_dma_.read_descs(descs, base + uint64_t(tdh) * sizeof(ixgbe_adv_tx_desc), n);
      PacketRead reads[kDescBurst];
      uint32_t n_reads = 0, take = 0;
      uint64_t line_free_ps = tx_line_.free_at_ps();
      for (; take < n; ++take) {
        if (line_free_ps > now_ps + tx_window_ps_) break;  // the tx packet buffer is full
        uint32_t cmd = descs[take].read.cmd_type_len;
        uint32_t len = cmd & IXGBE_ADVTXD_DTALEN_MASK;
        if (!(cmd & IXGBE_ADVTXD_DCMD_EOP) || len == 0 || len > options_.max_frame_bytes) continue;  // counted below
        reads[n_reads] = PacketRead{tx_staging_.data() + size_t(n_reads) * options_.max_frame_bytes,
                                    descs[take].read.buffer_addr, len};
        ++n_reads;
        line_free_ps = std::max(line_free_ps, now_ps) + wire_time_ps(len, options_.speed_gbps);
      }
      if (take == 0) {
        tx_next_queue_ = q;
        return moved;
      }
      tx_dma_.read_packets(reads, n_reads);
      uint32_t r = 0;
      for (uint32_t i = 0; i < take; ++i) {
        uint32_t cmd = descs[i].read.cmd_type_len;
        if (r < n_reads && reads[r].src == descs[i].read.buffer_addr && reads[r].len == (cmd & IXGBE_ADVTXD_DTALEN_MASK) &&
            (cmd & IXGBE_ADVTXD_DCMD_EOP)) {
          uint64_t done_ps = tx_line_.transmit(reads[r].len, now_ps);
          if (sink_) sink_->deliver(reads[r].dst, reads[r].len, done_ps / 1000);
          counters_.tx_good_packets.add();
          counters_.tx_good_bytes.add(wire::l2_bytes(reads[r].len));
          counters_.tx_queue_packets[q].add();
          ++r;
        } else {
          counters_.tx_bad_desc.add();  // gnf's NIC model sends single-descriptor packets only
        }
        if (cmd & IXGBE_ADVTXD_DCMD_RS) tx_dma_.write_tx_writeback(base + uint64_t((tdh + i) % entries) * sizeof(ixgbe_adv_tx_desc));
      }
      tdh = (tdh + take) % entries;
      reg_write(t.TDH, tdh);
      uint32_t wbal = reg_read(t.TDWBAL);
      if (wbal & IXGBE_TDWBAL_HEAD_WB_EN) tx_dma_.write_u32(reg_addr64(wbal & ~3u, reg_read(t.TDWBAH)), tdh);
      moved = true;
      if (take < n) {
        tx_next_queue_ = q;
        return moved;
      }
    }
  }
  tx_next_queue_ = (tx_next_queue_ + 1) % (queues ? queues : 1);
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
