// The CPU driver's view of one rx ring and one tx ring: ixy's rx/tx queue structures.
//
// Rx (82599 section 7.1.9): the driver owns the descriptors from RDT to RDH; it polls the DD bit of
// the descriptor at `next`, takes the packet, puts a fresh slot into the descriptor (read format)
// and, per the tail-batching rule, hands the refilled descriptors back by writing RDT.
// Tx (section 7.2.3): the driver fills descriptors at `tail` and writes TDT; the slots come back
// when the NIC reports the descriptors done (TDH, head write-back or DD write-back).
#pragma once
#include <cstdint>
#include <vector>

#include "driver/options.h"
#include "mem/slot_pool.h"
#include "nf/packet.h"
#include "nic/ixgbe_desc.h"
#include "nic/regs.h"

namespace gnf::driver {

struct RxRing {
  nic::RxQueueRegs* regs = nullptr;
  nic::ixgbe_adv_rx_desc* descs = nullptr;
  uint32_t entries = 0;
  uint32_t next = 0;          // next descriptor to poll
  std::vector<uint64_t> slots;  // the slot each descriptor holds (the write-back overwrites pkt_addr)
  mem::SlotPool* pool = nullptr;
  uint32_t unpublished = 0;     // refilled descriptors not yet given back through RDT
  uint64_t unpublished_since_ns = 0;

  // Programs the queue registers and gives every descriptor but one to the NIC.
  void init(nic::RxQueueRegs& queue_regs, nic::ixgbe_adv_rx_desc* ring, uint32_t ring_entries,
            mem::SlotPool& slot_pool, const DriverOptions& options);

  // Takes up to `max` received packets into `out`; stops early when the pool has no slot to refill
  // with (counted in `alloc_failures`: the packet stays in the ring until a slot comes back).
  uint32_t receive(nf::PacketRef* out, uint32_t max, uint16_t port, uint64_t now_ns, uint64_t& alloc_failures);

  // Writes RDT if the tail-batching rule says so (or `force`).
  void publish(const DriverOptions& options, uint64_t now_ns, bool force = false);
};

struct TxRing {
  nic::TxQueueRegs* regs = nullptr;
  nic::ixgbe_adv_tx_desc* descs = nullptr;
  uint32_t entries = 0;
  uint32_t tail = 0;   // next descriptor to fill
  uint32_t clean = 0;  // oldest descriptor whose slot has not come back
  std::vector<uint64_t> slots;
  const uint32_t* head_writeback = nullptr;  // with TxCompletion::HeadWriteback
  uint32_t unpublished = 0;
  uint64_t unpublished_since_ns = 0;

  void init(nic::TxQueueRegs& queue_regs, nic::ixgbe_adv_tx_desc* ring, uint32_t ring_entries,
            uint32_t* head_wb_word, const DriverOptions& options);

  // Queues up to `count` packets; returns how many fit. The caller keeps the rest.
  uint32_t send(nf::PacketRef* const* packets, uint32_t count, const DriverOptions& options, uint64_t now_ns);

  // Returns completed slots to their pools (the pool that owns each address, among `pools`).
  uint32_t reclaim(const DriverOptions& options, mem::SlotPool* const* pools, uint32_t pool_count);

  void publish(const DriverOptions& options, uint64_t now_ns, bool force = false);

  uint32_t in_use() const { return (tail + entries - clean) % entries; }
};

// Returns a slot to whichever of `pools` owns it.
void release_slot(uint64_t addr, mem::SlotPool* const* pools, uint32_t pool_count);

}  // namespace gnf::driver
