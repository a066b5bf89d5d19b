#include "driver/host_tx.h"

#include <cstring>

namespace gnf::driver {

namespace {
DriverOptions host_queue_options() {
  DriverOptions o;
  o.rx_ring_size = 0;
  o.tx_ring_size = HostTxQueue::kEntries;
  o.slot_size = HostTxQueue::kSlotSize;
  o.headroom = 0;  // frames are copied in whole, and nothing prepends to them
  o.pool_slots = HostTxQueue::kEntries;
  o.tx_completion = TxCompletion::DescWriteback;  // no register reads: the port may be the GPU's
  return o;
}
}  // namespace

HostTxQueue::HostTxQueue(nic::Port& port, uint16_t queue, mem::Domain domain)
    : rings_({&port}, queue, host_queue_options(), domain) {}

bool HostTxQueue::send(const uint8_t* frame, uint32_t len, uint64_t now_ns) {
  std::lock_guard lock(mutex_);
  TxRingRef& tx = rings_.tx(0);
  mem::SlotStackRef& pool = rings_.pool(0);
  tx.reclaim(&pool, 1);
  if (len > kSlotSize) return false;
  const uint64_t slot = pool.alloc();
  if (!slot) return false;
  std::memcpy(reinterpret_cast<uint8_t*>(slot), frame, len);
  nf::PacketRef ref{reinterpret_cast<uint8_t*>(slot), len, 0, 0, 0, nf::Verdict::Forward, nf::HostReason::Unspecified};
  nf::PacketRef* refs[] = {&ref};
  if (send_burst(tx, refs, 1, now_ns) != 1) {
    pool.release(slot);
    return false;
  }
  DoorbellBatch doorbells;
  tx.publish(now_ns, true, doorbells);
  return true;
}

bool HostTxQueue::drained() {
  std::lock_guard lock(mutex_);
  rings_.tx(0).reclaim(rings_.pools(), 1);
  return rings_.tx(0).in_use() == 0;
}

}  // namespace gnf::driver
