// The reads of the GPU DMA engines, written once: an engine that queues reads and waits for them
// as one batch (cuda_dma.cu, sm_dma.cu) supplies queue_read() and complete_reads(); descriptor
// fetches and packet reads, and their byte counts, follow from those.
#pragma once
#include <cstddef>
#include <cstdint>

#include "nic/dma.h"

namespace gnf::nic {

class BatchedReadDma : public DmaEngine {
 public:
  void read_descs(const DescRead* reads, uint32_t count) final {
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const size_t len = size_t(reads[i].count) * sizeof(ixgbe_adv_rx_desc);
      queue_read(static_cast<uint8_t*>(reads[i].dst), reads[i].first_desc_addr, len);
      bytes += len;
    }
    complete_reads();
    counters_.desc_bytes_from_memory.add(bytes);
  }

  void read_packets(const PacketRead* reads, uint32_t count) final {
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < count; ++i) {
      queue_read(reads[i].dst, reads[i].src, reads[i].len);
      bytes += reads[i].len;
    }
    complete_reads();
    counters_.packet_bytes_from_memory.add(bytes);
  }

 protected:
  // Queues a read of `len` bytes at GPU address `src` into `dst`; it may be answered only by the
  // next complete_reads(), which must also take any read that staging forced out early.
  virtual void queue_read(uint8_t* dst, uint64_t src, size_t len) = 0;
  // Issues what is queued, waits for it and copies every answer to its destination.
  virtual void complete_reads() = 0;
};

}  // namespace gnf::nic
