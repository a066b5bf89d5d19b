#include "driver/host_tx.h"

#include <cstring>

namespace gnf::driver {

namespace {
constexpr size_t kRingBytes = HostTxQueue::kEntries * sizeof(nic::ixgbe_adv_tx_desc);
constexpr size_t kHeadWritebackBytes = 128;
}  // namespace

HostTxQueue::HostTxQueue(nic::Port& port, uint16_t queue, mem::Domain domain)
    : block_(domain, kRingBytes + kHeadWritebackBytes + size_t(kEntries) * kSlotSize),
      pool_(block_.data() + kRingBytes + kHeadWritebackBytes, kSlotSize, kEntries) {
  options_.tx_completion = TxCompletion::DescWriteback;  // no register reads: the port may be the GPU's
  ring_.init(port.regs().tx[queue], reinterpret_cast<nic::ixgbe_adv_tx_desc*>(block_.data()), kEntries,
             reinterpret_cast<uint32_t*>(block_.data() + kRingBytes), options_);
}

bool HostTxQueue::send(const uint8_t* frame, uint32_t len, uint64_t now_ns) {
  std::lock_guard lock(mutex_);
  mem::SlotPool* pools[] = {&pool_};
  ring_.reclaim(options_, pools, 1);
  if (len > kSlotSize) return false;
  const uint64_t slot = pool_.alloc();
  if (!slot) return false;
  std::memcpy(reinterpret_cast<uint8_t*>(slot), frame, len);
  nf::PacketRef ref{reinterpret_cast<uint8_t*>(slot), len, 0, 0, 0, nf::Verdict::Forward};
  nf::PacketRef* refs[] = {&ref};
  if (ring_.send(refs, 1, options_, now_ns) != 1) {
    pool_.release(slot);
    return false;
  }
  ring_.publish(options_, now_ns, true);
  return true;
}

bool HostTxQueue::drained() {
  std::lock_guard lock(mutex_);
  mem::SlotPool* pools[] = {&pool_};
  ring_.reclaim(options_, pools, 1);
  return ring_.in_use() == 0;
}

}  // namespace gnf::driver
