// Copies of the frames a port sees, on their way to a pcap file (`gnf ctl pcap start`,
// path/port_capture.h): a lock-free single-producer single-consumer ring of fixed slots. The
// producer is the NIC-model thread that polls one queue group's rx or tx side; it copies a frame
// into a free slot or, when none is free, counts it as dropped and goes on: a capture never blocks
// a port nor makes it wait for a file. The consumer is the capture's writer thread.
//
// Memory order (the DPDK rte_ring argument, one producer and one consumer): the producer fills a
// slot, then publishes it with a release store of head_; the consumer's acquire load of head_ sees
// the slot's bytes. The consumer reads a slot, then frees it with a release store of tail_; the
// producer's acquire load of tail_ keeps it from overwriting a slot still being read.
#pragma once
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>

#include "util/counter.h"

namespace gnf::nic {

struct CapturedFrame {
  uint64_t time_ns;  // CLOCK_MONOTONIC: when its last bit arrived (rx) or left (tx)
  uint32_t len;
  uint32_t kept;  // the bytes at data: len, or a slot's size when the frame was longer
  const uint8_t* data;
};

class CaptureRing {
 public:
  // `slot_bytes`: the longest frame the port passes (longer ones are cut to it); `slots` is
  // rounded up to a power of two.
  CaptureRing(uint32_t slots, uint32_t slot_bytes)
      : mask_(round_up_pow2(slots) - 1),
        slot_bytes_(slot_bytes),
        stride_(kHeaderBytes + ((slot_bytes + 63) & ~63u)),
        storage_(std::make_unique<uint8_t[]>(size_t(mask_ + 1) * stride_)) {}
  CaptureRing(const CaptureRing&) = delete;
  CaptureRing& operator=(const CaptureRing&) = delete;

  // Producer: a copy of the frame, or a count in dropped() when the ring is full.
  void push(const uint8_t* data, uint32_t len, uint64_t time_ns) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) > mask_) {
      dropped_.add();
      return;
    }
    uint8_t* slot = slot_at(head);
    const uint32_t kept = len < slot_bytes_ ? len : slot_bytes_;
    std::memcpy(slot, &time_ns, 8);
    std::memcpy(slot + 8, &len, 4);
    std::memcpy(slot + kHeaderBytes, data, kept);
    head_.store(head + 1, std::memory_order_release);
  }

  // Consumer: `visit(const CapturedFrame&)` for each frame in order, at most `limit`; the slots are
  // free again after it. Returns how many it visited.
  template <typename Visit>
  uint64_t drain(Visit visit, uint64_t limit = ~0ull) {
    const uint64_t head = head_.load(std::memory_order_acquire);
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    uint64_t n = 0;
    for (; tail != head && n < limit; ++tail, ++n) {
      const uint8_t* slot = slot_at(tail);
      CapturedFrame f;
      std::memcpy(&f.time_ns, slot, 8);
      std::memcpy(&f.len, slot + 8, 4);
      f.kept = f.len < slot_bytes_ ? f.len : slot_bytes_;
      f.data = slot + kHeaderBytes;
      visit(f);
    }
    tail_.store(tail, std::memory_order_release);
    return n;
  }
  // Consumer: frees every slot unread (a capture starting on a ring an earlier one used).
  void discard() { tail_.store(head_.load(std::memory_order_acquire), std::memory_order_release); }

  // Frames the producer found no slot for, since the ring was made (any thread).
  uint64_t dropped() const { return dropped_.get(); }
  // How many bytes of a frame a slot keeps.
  uint32_t slot_bytes() const { return slot_bytes_; }
  uint32_t slots() const { return mask_ + 1; }

 private:
  static constexpr uint32_t kHeaderBytes = 16;  // time_ns, len, padding
  static uint32_t round_up_pow2(uint32_t n) {
    uint32_t p = 1;
    while (p < n) p <<= 1;
    return p;
  }
  uint8_t* slot_at(uint64_t index) const { return storage_.get() + size_t(index & mask_) * stride_; }

  const uint32_t mask_;
  const uint32_t slot_bytes_;
  const uint32_t stride_;
  std::unique_ptr<uint8_t[]> storage_;
  alignas(64) std::atomic<uint64_t> head_{0};  // written by the producer
  Counter dropped_;                            // written by the producer
  alignas(64) std::atomic<uint64_t> tail_{0};  // written by the consumer
};

}  // namespace gnf::nic
