#include "nic/dma.h"

#include <atomic>
#include <cstring>

namespace gnf::nic {

namespace {
template <typename T>
T* at(uint64_t addr) {
  return reinterpret_cast<T*>(addr);
}
}  // namespace

void HostDma::write_packet(uint64_t dst, const uint8_t* src, uint32_t len) {
  std::memcpy(at<uint8_t>(dst), src, len);
  counters_.packet_bytes_to_memory.add(len);
}

void HostDma::read_packets(const PacketRead* reads, uint32_t count) {
  counters_.read_batches.add();
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < count; ++i) {
    std::memcpy(reads[i].dst, at<const uint8_t>(reads[i].src), reads[i].len);
    bytes += reads[i].len;
  }
  counters_.packet_bytes_from_memory.add(bytes);
}

void HostDma::read_descs(const DescRead* reads, uint32_t count) {
  counters_.read_batches.add();
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < count; ++i) {
    std::memcpy(reads[i].dst, at<const uint8_t>(reads[i].first_desc_addr), size_t(reads[i].count) * 16);
    bytes += uint64_t(reads[i].count) * 16;
  }
  counters_.desc_bytes_from_memory.add(bytes);
}

void HostDma::write_rx_writeback(uint64_t desc_addr, const ixgbe_adv_rx_desc& wb) {
  auto* desc = at<ixgbe_adv_rx_desc>(desc_addr);
  desc->wb.lower = wb.wb.lower;
  desc->wb.upper.length = wb.wb.upper.length;
  desc->wb.upper.vlan = wb.wb.upper.vlan;
  // Release: the packet bytes written by write_packet() and the fields above happen-before any
  // acquire load that observes DD. The driver polls exactly this word.
  std::atomic_ref<uint32_t>(desc->wb.upper.status_error).store(wb.wb.upper.status_error, std::memory_order_release);
  counters_.desc_bytes_to_memory.add(16);
}

void HostDma::write_tx_writeback(uint64_t desc_addr) {
  auto* desc = at<ixgbe_adv_tx_desc>(desc_addr);
  // The NIC is done with the descriptor and its buffer: release so the driver's acquire of DD may
  // reuse the slot knowing our read of it is complete.
  std::atomic_ref<uint32_t>(desc->wb.status).store(IXGBE_ADVTXD_STAT_DD, std::memory_order_release);
  counters_.desc_bytes_to_memory.add(16);
}

void HostDma::write_u32(uint64_t addr, uint32_t value) {
  std::atomic_ref<uint32_t>(*at<uint32_t>(addr)).store(value, std::memory_order_release);
  counters_.desc_bytes_to_memory.add(4);
}

}  // namespace gnf::nic
