// A FIFO of frames inside the NIC model, per queue: the on-NIC receive buffer's storage between
// the wire side (a NIC-model thread) and the DMA side (the same thread for rings in host memory,
// the GPU agent for rings in GPU memory), and for the GPU agent the transmit buffer on the way
// back (gpu_agent.h).
//
// One producer and one consumer. A frame is a 16-byte record (length, where its bytes are, its
// RSS result) in a ring of records, and its bytes, 16-byte aligned, in a ring of bytes; a frame
// never wraps around the end of the byte ring (the producer skips to its start instead). Both
// sides count records with free-running 32-bit counters and the bytes with free-running 32-bit
// positions (the ring sizes are powers of two, so `& mask` finds the place).
//
// Ordering (host and device alike, through nic/regs.h's accessors): the producer writes records
// and bytes, then stores `produced` with release; the consumer loads `produced` with acquire before
// it reads them. The consumer stores `consumed` with release once it has read a record's bytes;
// the producer loads it with acquire before it writes over them. Across PCIe (the GPU agent reading
// pinned host memory, or writing it) the same pairs hold at system scope.
#pragma once
#include <cstdint>

#include "mem/block.h"
#include "nic/regs.h"
#include "util/hd.h"

namespace gnf::nic {

struct FifoRecord {
  uint32_t len;       // frame bytes without FCS
  uint32_t position;  // free-running byte position of the frame in the byte ring
  uint32_t rss_hash;
  uint16_t rss_type;  // IXGBE_RXDADV_RSSTYPE_*
  uint16_t queue;     // in a FIFO that holds several queues' frames (a looped-back port's)
};
static_assert(sizeof(FifoRecord) == 16);

GNF_INLINE uint32_t fifo_align(uint32_t len) { return (len + 15) & ~15u; }

// What both sides hold: trivially copyable, passed to GPU kernels by value.
struct FrameFifoRef {
  FifoRecord* records;
  uint8_t* bytes;
  uint32_t* produced;  // records, free-running (the producer's, on a cache line of its own)
  uint32_t* consumed;  // records, free-running (the consumer's, on a cache line of its own)
  uint32_t record_mask;
  uint32_t byte_mask;

  GNF_HD FifoRecord& record(uint32_t index) const { return records[index & record_mask]; }
  // Beside `produced`, on its line: the producer's free-running byte position when it stored
  // `produced` (stored just before it), so that a consumer across PCIe can read the frames' bytes
  // in the same round trip as their records (nic/gpu_agent.cu's rx window). Only the GPU agent's
  // rx FIFOs keep it.
  GNF_HD uint32_t* produced_bytes() const { return produced + 1; }
  GNF_HD uint8_t* at(uint32_t position) const { return bytes + (position & byte_mask); }
};

// The producer's side, host or device: where the next frame goes, and whether it fits.
struct FifoProducer {
  uint32_t head = 0;           // records produced (published or not)
  uint32_t byte_head = 0;      // where the next frame's bytes go
  uint32_t published = 0;      // head as last stored to `produced`
  uint32_t consumed_seen = 0;  // the consumer's count as last loaded (a PCIe read for the GPU)
  uint32_t byte_tail = 0;      // where the oldest record not consumed (as last seen) has its bytes

  // Where a frame of `len` bytes would go, or false if it does not fit beside the records not yet
  // consumed as last seen (the caller may look again after saw_consumed()).
  GNF_HD bool place(const FrameFifoRef& f, uint32_t len, uint32_t& position) const {
    if (head - consumed_seen > f.record_mask) return false;
    position = byte_head;
    const uint32_t size = f.byte_mask + 1, offset = position & f.byte_mask;
    if (offset + fifo_align(len) > size) position += size - offset;  // never across the end
    const uint32_t tail = head == consumed_seen ? byte_head : byte_tail;
    return position + fifo_align(len) - tail <= size;
  }
  // The frame placed at `position` (its bytes written there, or about to be) is the next record.
  // Its record is written by the caller (push() does both).
  GNF_HD void advance(uint32_t position, uint32_t len) {
    if (head == consumed_seen) byte_tail = position;
    ++head;
    byte_head = position + fifo_align(len);
  }
  GNF_HD void push(const FrameFifoRef& f, uint32_t position, uint32_t len, uint32_t rss_hash, uint16_t rss_type,
                   uint16_t queue) {
    f.record(head) = FifoRecord{len, position, rss_hash, rss_type, queue};
    advance(position, len);
  }
  // The consumer has taken `consumed` records in all.
  GNF_HD void saw_consumed(const FrameFifoRef& f, uint32_t consumed) {
    consumed_seen = consumed;
    if (consumed != head) byte_tail = f.record(consumed).position;
  }
};

// The host's owner of one FIFO's memory (Host, or HostPinned where the GPU agent is on the other
// side). `records` and `bytes` are rounded up to powers of two.
class FrameFifo {
 public:
  FrameFifo(mem::Domain domain, uint32_t records, uint32_t bytes);
  const FrameFifoRef& ref() const { return ref_; }

 private:
  mem::Block block_;
  FrameFifoRef ref_{};
};

}  // namespace gnf::nic
