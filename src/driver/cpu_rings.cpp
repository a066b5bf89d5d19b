#include "driver/cpu_rings.h"

#include <cassert>

#include "sync/ordering.h"

namespace gnf::driver {

using nic::reg_write;

void release_slot(uint64_t addr, mem::SlotPool* const* pools, uint32_t pool_count) {
  for (uint32_t i = 0; i < pool_count; ++i) {
    if (pools[i]->owns(addr)) {
      pools[i]->release(addr);
      return;
    }
  }
  assert(!"slot returned to a plane that does not own it");
}

void RxRing::init(nic::RxQueueRegs& queue_regs, nic::ixgbe_adv_rx_desc* ring, uint32_t ring_entries,
                  mem::SlotPool& slot_pool, const DriverOptions& options) {
  regs = &queue_regs;
  descs = ring;
  entries = ring_entries;
  pool = &slot_pool;
  slots.assign(entries, 0);
  uint64_t base = reinterpret_cast<uint64_t>(ring);
  regs->RDBAL = uint32_t(base);
  regs->RDBAH = uint32_t(base >> 32);
  regs->RDLEN = entries * sizeof(nic::ixgbe_adv_rx_desc);
  regs->SRRCTL = (options.slot_size / 1024) | (options.drop_en ? nic::IXGBE_SRRCTL_DROP_EN : 0);
  regs->RDH = 0;
  regs->RDT = 0;
  for (uint32_t i = 0; i < entries; ++i) {
    slots[i] = pool->alloc();
    descs[i].read.pkt_addr = slots[i];
    descs[i].read.hdr_addr = 0;
  }
  reg_write(regs->RXDCTL, nic::IXGBE_RXDCTL_ENABLE);
  // Intentionally one short of the whole ring: RDT == RDH would mean "no descriptors" to the NIC.
  reg_write(regs->RDT, entries - 1);
}

uint32_t RxRing::receive(nf::PacketRef* out, uint32_t max, uint16_t port, uint64_t now_ns, uint64_t& alloc_failures) {
  uint32_t n = 0;
  while (n < max) {
    nic::ixgbe_adv_rx_desc& desc = descs[next];
    // Acquire pairs with the NIC's release of DD (HostDma::write_rx_writeback): once DD is seen,
    // the length, the hash and the packet bytes are too.
    uint32_t status = load_acquire_sys(&desc.wb.upper.status_error);
    if (!(status & nic::IXGBE_RXD_STAT_DD)) break;
    uint64_t fresh = pool->alloc();
    if (!fresh) {
      ++alloc_failures;
      break;
    }
    out[n] = nf::PacketRef{reinterpret_cast<uint8_t*>(slots[next]), desc.wb.upper.length, desc.wb.lower.hi_dword.rss,
                           port, port, nf::Verdict::Forward};
    // Back to the read format. hdr_addr overlaps status_error, so this also clears DD. The NIC
    // will not look at this descriptor before RDT passes it, and RDT is written with release.
    desc.read.pkt_addr = fresh;
    desc.read.hdr_addr = 0;
    slots[next] = fresh;
    next = next + 1 == entries ? 0 : next + 1;
    if (unpublished++ == 0) unpublished_since_ns = now_ns;
    ++n;
  }
  return n;
}

void RxRing::publish(const DriverOptions& options, uint64_t now_ns, bool force) {
  if (unpublished == 0) return;
  if (!force && unpublished < options.rx_tail_batch && now_ns - unpublished_since_ns < options.tail_timeout_ns) return;
  // The tail is the descriptor before `next`: it was refilled, but handing it over would make
  // RDT == RDH once the NIC caught up, which the NIC reads as "ring empty".
  reg_write(regs->RDT, next == 0 ? entries - 1 : next - 1);
  unpublished = 0;
}

void TxRing::init(nic::TxQueueRegs& queue_regs, nic::ixgbe_adv_tx_desc* ring, uint32_t ring_entries,
                  uint32_t* head_wb_word, const DriverOptions& options) {
  regs = &queue_regs;
  descs = ring;
  entries = ring_entries;
  slots.assign(entries, 0);
  uint64_t base = reinterpret_cast<uint64_t>(ring);
  regs->TDBAL = uint32_t(base);
  regs->TDBAH = uint32_t(base >> 32);
  regs->TDLEN = entries * sizeof(nic::ixgbe_adv_tx_desc);
  regs->TDH = 0;
  regs->TDT = 0;
  if (options.tx_completion == TxCompletion::HeadWriteback) {
    uint64_t wb = reinterpret_cast<uint64_t>(head_wb_word);
    *head_wb_word = 0;
    head_writeback = head_wb_word;
    regs->TDWBAH = uint32_t(wb >> 32);
    regs->TDWBAL = uint32_t(wb) | nic::IXGBE_TDWBAL_HEAD_WB_EN;
  }
  reg_write(regs->TXDCTL, nic::IXGBE_TXDCTL_ENABLE);
}

uint32_t TxRing::send(nf::PacketRef* const* packets, uint32_t count, const DriverOptions& options, uint64_t now_ns) {
  // One descriptor always stays free so that a full ring never looks empty (TDT == TDH).
  uint32_t room = entries - 1 - in_use();
  uint32_t n = count < room ? count : room;
  bool report_status = options.tx_completion == TxCompletion::DescWriteback;
  for (uint32_t i = 0; i < n; ++i) {
    const nf::PacketRef& p = *packets[i];
    nic::ixgbe_adv_tx_desc& desc = descs[tail];
    desc.read.buffer_addr = reinterpret_cast<uint64_t>(p.data);
    desc.read.cmd_type_len = nic::tx_cmd_type_len(p.len, report_status);
    // PAYLEN in 31:14; this store also clears a stale DD (bit 0) from the last write-back.
    desc.read.olinfo_status = p.len << nic::IXGBE_ADVTXD_PAYLEN_SHIFT;
    slots[tail] = desc.read.buffer_addr;
    tail = tail + 1 == entries ? 0 : tail + 1;
  }
  if (n && unpublished == 0) unpublished_since_ns = now_ns;
  unpublished += n;
  return n;
}

uint32_t TxRing::reclaim(const DriverOptions& options, mem::SlotPool* const* pools, uint32_t pool_count) {
  uint32_t done_until;  // first descriptor the NIC has not finished
  switch (options.tx_completion) {
    case TxCompletion::HeadRegister:
      done_until = nic::reg_read(regs->TDH);
      break;
    case TxCompletion::HeadWriteback:
      done_until = load_acquire_sys(head_writeback);
      break;
    case TxCompletion::DescWriteback:
    default:
      done_until = clean;
      // Acquire pairs with the NIC's release of DD: it has finished reading the slot.
      while (done_until != tail &&
             (load_acquire_sys(&descs[done_until].wb.status) & nic::IXGBE_ADVTXD_STAT_DD))
        done_until = done_until + 1 == entries ? 0 : done_until + 1;
      break;
  }
  uint32_t freed = 0;
  while (clean != done_until) {
    release_slot(slots[clean], pools, pool_count);
    clean = clean + 1 == entries ? 0 : clean + 1;
    ++freed;
  }
  return freed;
}

void TxRing::publish(const DriverOptions& options, uint64_t now_ns, bool force) {
  if (unpublished == 0) return;
  if (!force && unpublished < options.tx_tail_batch && now_ns - unpublished_since_ns < options.tail_timeout_ns) return;
  // Release: the descriptors written in send() are visible to the NIC's acquire load of TDT.
  reg_write(regs->TDT, tail);
  unpublished = 0;
}

}  // namespace gnf::driver
