// The owner of a plane's rings (cuCollections' owner, beside the refs of rings.h): rx queue q and
// tx queue q of every port, with one slot pool per rx ring, in one block of the memory domain the
// driver runs against (host memory for the cpu path, pinned for staged, GPU memory for bypass). It
// gives every rx descriptor a slot and programs the queues' registers; the driver then works on the
// refs, on the CPU in place, or copied into GPU memory for the bypass kernel.
#pragma once
#include <cstdint>
#include <vector>

#include "driver/options.h"
#include "driver/rings.h"
#include "mem/block.h"
#include "mem/slot_pool.h"
#include "nic/port.h"

namespace gnf::driver {

// Where every slot of a plane is; checked after runs: each slot in exactly one place.
struct SlotAudit {
  uint64_t capacity = 0;
  uint64_t free = 0;
  uint64_t in_rx_rings = 0;
  uint64_t in_tx_rings = 0;
  uint64_t in_driver = 0;   // packets the driver holds (a tx backlog with tx_full = "wait")
  uint64_t duplicates = 0;  // slots found in more than one place
  bool consistent() const {
    return duplicates == 0 && free + in_rx_rings + in_tx_rings + in_driver == capacity;
  }
};

// Points rx queue registers at `ring` (82599 section 8.2.3.8: RDBAL/RDBAH/RDLEN, SRRCTL's buffer
// size and DROP_EN, then RXDCTL.ENABLE) and hands the NIC every descriptor but one. The
// descriptors hold their slots' buffers already; `slot_size` is a buffer's size (after the headroom).
void program_rx_queue(nic::RxQueueRegs& regs, const RxRingRef& ring, uint32_t slot_size, bool drop_en);
// Points tx queue registers at `ring` (section 8.2.3.9: TDBAL/TDBAH/TDLEN, with head write-back
// TDWBAL/TDWBAH, then TXDCTL.ENABLE).
void program_tx_queue(nic::TxQueueRegs& regs, const TxRingRef& ring);

class QueueRings {
 public:
  // Rx queue `queue` and tx queue `queue` of each port, sized by `options` (resolved). With
  // rx_ring_size 0 there is no rx ring and the pool's slots are all free (a transmit-only queue).
  QueueRings(const std::vector<nic::Port*>& ports, uint16_t queue, const DriverOptions& options, mem::Domain domain);

  uint32_t ports() const { return uint32_t(rx_.size()); }
  RxRingRef& rx(uint32_t port) { return rx_[port]; }
  TxRingRef& tx(uint32_t port) { return tx_[port]; }
  mem::SlotStackRef& pool(uint32_t port) { return pools_[port]; }
  mem::SlotStackRef* pools() { return pools_.data(); }
  const RxRingRef* rx_refs() const { return rx_.data(); }
  const TxRingRef* tx_refs() const { return tx_.data(); }
  const mem::SlotStackRef* pool_refs() const { return pools_.data(); }

  // Where every slot is, by the refs as the driver left them (these, or the GPU's copies fetched
  // back after its kernel stopped) and the slots the driver holds.
  SlotAudit audit(const RxRingRef* rx, const TxRingRef* tx, const mem::SlotStackRef* pools,
                  const std::vector<uint64_t>& in_driver) const;

 private:
  mem::Block block_;
  std::vector<RxRingRef> rx_;
  std::vector<TxRingRef> tx_;
  std::vector<mem::SlotStackRef> pools_;
};

}  // namespace gnf::driver
