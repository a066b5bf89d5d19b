#include "nic/port.h"

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

Port::Port(const PortOptions& options, DmaEngine& dma, wire::Source* source, wire::Sink* sink)
    : options_(options),
      dma_(dma),
      source_(source),
      sink_(sink),
      regs_(std::make_unique<PortRegs>()),
      rss_table_(std::make_unique<ToeplitzTable>(options.rss.key)),
      rx_buffer_(options.rx_buffer_bytes, options.max_frame_bytes),
      rx_line_(options.speed_gbps),
      tx_line_(options.speed_gbps),
      tx_staging_(options.max_frame_bytes) {
  std::memset(regs_.get(), 0, sizeof(PortRegs));
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
  moved |= dma_to_rx_rings();
  rx_drained_.store(source_done_ && !have_pending_ && rx_buffer_.frames() == 0, std::memory_order_release);
  return moved;
}

bool Port::poll_tx(uint64_t now_ns) { return transmit(now_ns * 1000); }

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
    uint64_t desc_addr = reg_addr64(r.RDBAL, r.RDBAH) + uint64_t(rdh) * sizeof(ixgbe_adv_rx_desc);
    ixgbe_adv_rx_desc desc;
    dma_.read_desc(&desc, desc_addr);
    uint32_t buffer_bytes = (reg_read(r.SRRCTL) & 0x1F) * 1024;  // BSIZEPACKET, 1 KiB units
    if (buffer_bytes != 0 && record->len > buffer_bytes) {
      counters_.rx_buffer_too_small.add();
      rx_buffer_.pop();
      moved = true;
      continue;
    }
    dma_.write_packet(desc.read.pkt_addr, record->data(), record->len);
    ixgbe_adv_rx_desc wb{};
    wb.wb.lower.lo_dword.hs_rss.pkt_info = record->rss_type;
    wb.wb.lower.hi_dword.rss = record->rss_hash;
    wb.wb.upper.length = uint16_t(record->len);
    wb.wb.upper.status_error = IXGBE_RXD_STAT_DD | IXGBE_RXD_STAT_EOP;
    dma_.write_rx_writeback(desc_addr, wb);
    reg_write(r.RDH, (rdh + 1) % entries);
    counters_.rx_good_packets.add();
    counters_.rx_good_bytes.add(wire::l2_bytes(record->len));
    counters_.rx_queue_packets[q].add();
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
      // The tx packet buffer is full: the line has to catch up before the NIC fetches more.
      if (tx_line_.free_at_ps() > now_ps + tx_window_ps_) {
        tx_next_queue_ = q;
        return moved;
      }
      uint64_t desc_addr = base + uint64_t(tdh) * sizeof(ixgbe_adv_tx_desc);
      ixgbe_adv_tx_desc desc;
      dma_.read_desc(&desc, desc_addr);
      uint32_t cmd = desc.read.cmd_type_len;
      uint32_t len = cmd & IXGBE_ADVTXD_DTALEN_MASK;
      if (!(cmd & IXGBE_ADVTXD_DCMD_EOP) || len == 0 || len > options_.max_frame_bytes) {
        counters_.tx_bad_desc.add();
      } else {
        dma_.read_packet(tx_staging_.data(), desc.read.buffer_addr, len);
        uint64_t done_ps = tx_line_.transmit(len, now_ps);
        if (sink_) sink_->deliver(tx_staging_.data(), len, done_ps / 1000);
        counters_.tx_good_packets.add();
        counters_.tx_good_bytes.add(wire::l2_bytes(len));
        counters_.tx_queue_packets[q].add();
      }
      if (cmd & IXGBE_ADVTXD_DCMD_RS) dma_.write_tx_writeback(desc_addr);
      tdh = (tdh + 1) % entries;
      reg_write(t.TDH, tdh);
      uint32_t wbal = reg_read(t.TDWBAL);
      if (wbal & IXGBE_TDWBAL_HEAD_WB_EN) dma_.write_u32(reg_addr64(wbal & ~3u, reg_read(t.TDWBAH)), tdh);
      moved = true;
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
