#include "driver/queue_rings.h"

#include <stdexcept>
#include <string>
#include <unordered_set>

namespace gnf::driver {

namespace {

constexpr size_t kAlign = 128;  // RDLEN/TDLEN granularity; also keeps rings off shared lines
size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// One port's part of the block, in this order.
struct PortLayout {
  size_t rx_descs, tx_descs, head_wb, tail_mirror, rx_slots, tx_slots, free_stack, pool, bytes;

  PortLayout(uint32_t rx_entries, uint32_t tx_entries, uint32_t slots, uint32_t slot_size) {
    rx_descs = 0;
    tx_descs = rx_descs + align_up(rx_entries * sizeof(nic::ixgbe_adv_rx_desc));
    head_wb = tx_descs + align_up(tx_entries * sizeof(nic::ixgbe_adv_tx_desc));
    tail_mirror = head_wb + kAlign;
    rx_slots = tail_mirror + kAlign;
    tx_slots = rx_slots + align_up(rx_entries * sizeof(uint64_t));
    free_stack = tx_slots + align_up(tx_entries * sizeof(uint64_t));
    pool = free_stack + align_up(slots * sizeof(uint32_t));
    bytes = pool + size_t(slots) * slot_size;
  }
};

template <typename T>
std::vector<T> read_array(const mem::Block& block, const T* at, size_t count) {
  std::vector<T> v(count);
  block.copy_out(v.data(), reinterpret_cast<const uint8_t*>(at), count * sizeof(T));
  return v;
}

}  // namespace

void program_rx_queue(nic::RxQueueRegs& regs, const RxRingRef& ring, uint32_t slot_size, bool drop_en) {
  const uint64_t base = reinterpret_cast<uint64_t>(ring.descs);
  nic::reg_write(regs.RDBAL, uint32_t(base));
  nic::reg_write(regs.RDBAH, uint32_t(base >> 32));
  nic::reg_write(regs.RDLEN, ring.entries * sizeof(nic::ixgbe_adv_rx_desc));
  nic::reg_write(regs.SRRCTL, (slot_size / 1024) | (drop_en ? nic::IXGBE_SRRCTL_DROP_EN : 0));
  nic::reg_write(regs.RDH, 0);
  nic::reg_write(regs.RDT, 0);
  nic::reg_write(regs.RXDCTL, nic::IXGBE_RXDCTL_ENABLE);
  // Intentionally one short of the whole ring: RDT == RDH would mean "no descriptors" to the NIC.
  nic::reg_write(regs.RDT, ring.entries - 1);
}

void program_tx_queue(nic::TxQueueRegs& regs, const TxRingRef& ring) {
  const uint64_t base = reinterpret_cast<uint64_t>(ring.descs);
  nic::reg_write(regs.TDBAL, uint32_t(base));
  nic::reg_write(regs.TDBAH, uint32_t(base >> 32));
  nic::reg_write(regs.TDLEN, ring.entries * sizeof(nic::ixgbe_adv_tx_desc));
  nic::reg_write(regs.TDH, 0);
  nic::reg_write(regs.TDT, 0);
  if (ring.completion == TxCompletion::HeadWriteback) {
    // The head is written back beside the ring: on the GPU paths into GPU memory, where polling it
    // costs no PCIe read.
    const uint64_t wb = reinterpret_cast<uint64_t>(ring.head_wb);
    nic::reg_write(regs.TDWBAH, uint32_t(wb >> 32));
    nic::reg_write(regs.TDWBAL, uint32_t(wb) | nic::IXGBE_TDWBAL_HEAD_WB_EN);
  }
  const uint64_t mirror = reinterpret_cast<uint64_t>(ring.tdt.mirror);
  nic::reg_write(regs.TDTMAH, uint32_t(mirror >> 32));
  nic::reg_write(regs.TDTMAL, uint32_t(mirror));
  nic::reg_write(regs.TXDCTL, nic::IXGBE_TXDCTL_ENABLE);
}

QueueRings::QueueRings(const std::vector<nic::Port*>& ports, uint16_t queue, const DriverOptions& options,
                       mem::Domain domain) {
  const uint32_t rx_entries = options.rx_ring_size, tx_entries = options.tx_ring_size;
  const uint32_t slots = options.slots_per_pool();
  // ctl::validate refuses such a config: only a caller that skipped it gets here.
  if (const std::string problem = options.pool_problem(); !problem.empty())
    throw std::logic_error("QueueRings: " + problem);
  const PortLayout layout(rx_entries, tx_entries, slots, options.slot_bytes());
  block_ = mem::Block(domain, layout.bytes * ports.size());

  // Slots 0..rx_entries-1 go into the rx descriptors, the rest onto the free stack, the lowest
  // index on top (the first allocations hand out the lowest addresses).
  std::vector<nic::ixgbe_adv_rx_desc> fresh_descs(rx_entries);
  std::vector<uint64_t> held(rx_entries);
  std::vector<uint32_t> free_indices;
  for (uint32_t i = slots; i-- > rx_entries;) free_indices.push_back(i);

  for (size_t p = 0; p < ports.size(); ++p) {
    uint8_t* at = block_.data() + p * layout.bytes;
    const uint64_t pool_base = reinterpret_cast<uint64_t>(at + layout.pool);
    for (uint32_t i = 0; i < rx_entries; ++i) {
      held[i] = pool_base + uint64_t(i) * options.slot_bytes();
      fresh_descs[i].read.pkt_addr = held[i] + options.headroom;
      fresh_descs[i].read.hdr_addr = 0;
    }
    block_.copy_in(at + layout.rx_descs, fresh_descs.data(), rx_entries * sizeof(nic::ixgbe_adv_rx_desc));
    block_.copy_in(at + layout.rx_slots, held.data(), rx_entries * sizeof(uint64_t));
    block_.copy_in(at + layout.free_stack, free_indices.data(), free_indices.size() * sizeof(uint32_t));

    nic::PortRegs& regs = ports[p]->regs();
    rx_.push_back(RxRingRef{reinterpret_cast<nic::ixgbe_adv_rx_desc*>(at + layout.rx_descs),
                            reinterpret_cast<uint64_t*>(at + layout.rx_slots), rx_entries, 0,
                            BatchedTail{&regs.rx[queue].RDT, 0, 0, options.rx_tail_batch, options.tail_timeout_ns},
                            options.headroom, options.slot_size});
    tx_.push_back(TxRingRef{reinterpret_cast<nic::ixgbe_adv_tx_desc*>(at + layout.tx_descs),
                            reinterpret_cast<uint64_t*>(at + layout.tx_slots), tx_entries, 0, 0,
                            BatchedTail{&regs.tx[queue].TDT, 0, 0, options.tx_tail_batch, options.tail_timeout_ns,
                                        domain == mem::Domain::Device
                                            ? reinterpret_cast<nic::TailMirror*>(at + layout.tail_mirror)
                                            : nullptr},
                            &regs.tx[queue].TDH, reinterpret_cast<uint32_t*>(at + layout.head_wb), options.tx_completion});
    pools_.push_back(mem::SlotStackRef{reinterpret_cast<uint32_t*>(at + layout.free_stack),
                                       uint32_t(free_indices.size()), options.slot_bytes(), slots, pool_base});
    if (rx_entries) program_rx_queue(regs.rx[queue], rx_.back(), options.slot_size, options.drop_en);
    program_tx_queue(regs.tx[queue], tx_.back());
  }
}

SlotAudit QueueRings::audit(const RxRingRef* rx, const TxRingRef* tx, const mem::SlotStackRef* pools,
                            const std::vector<uint64_t>& in_driver) const {
  SlotAudit a;
  std::unordered_set<uint64_t> seen;
  auto place = [&](uint64_t addr, uint64_t& where) {
    ++where;
    if (!seen.insert(addr).second) ++a.duplicates;
  };
  for (uint32_t p = 0; p < ports(); ++p) {
    const mem::SlotStackRef& pool = pools[p];
    a.capacity += pool.count;
    for (uint32_t index : read_array(block_, pool.free_stack, pool.top)) place(pool.address_of(index), a.free);
    for (uint64_t slot : read_array(block_, rx[p].slots, rx[p].entries)) place(slot, a.in_rx_rings);
    const std::vector<uint64_t> tx_slots = read_array(block_, tx[p].slots, tx[p].entries);
    for (uint32_t i = tx[p].clean; i != tx[p].tail; i = (i + 1) % tx[p].entries) place(tx_slots[i], a.in_tx_rings);
  }
  for (uint64_t slot : in_driver) place(slot, a.in_driver);
  return a;
}

}  // namespace gnf::driver
