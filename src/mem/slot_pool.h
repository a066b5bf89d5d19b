// A pool of fixed-size packet slots carved out of one block (the driver's "mbufs").
//
// Each rx ring gets a pool of its own, so no two threads ever touch one pool: allocation is a pop
// from a free stack, release a push, no locks. A slot is named by its address (what descriptors
// carry). The pool knows which addresses are its own, so a slot sent out on another port's tx ring
// finds its way home on completion.
#pragma once
#include <cstdint>
#include <vector>

namespace gnf::mem {

class SlotPool {
 public:
  // Slots are `slot_size` bytes each, `count` of them, starting at `base` (which must stay alive).
  SlotPool(uint8_t* base, uint32_t slot_size, uint32_t count);

  // A free slot's address, or 0 when the pool is empty (the caller counts and copes; never aborts).
  uint64_t alloc() {
    if (free_.empty()) return 0;
    uint32_t index = free_.back();
    free_.pop_back();
    return base_ + uint64_t(index) * slot_size_;
  }

  // Returns a slot; the address must be one of this pool's slot starts.
  void release(uint64_t addr) { free_.push_back(index_of(addr)); }

  bool owns(uint64_t addr) const { return addr >= base_ && addr < base_ + uint64_t(count_) * slot_size_; }
  uint32_t index_of(uint64_t addr) const { return uint32_t((addr - base_) / slot_size_); }
  uint64_t address_of(uint32_t index) const { return base_ + uint64_t(index) * slot_size_; }
  uint32_t available() const { return uint32_t(free_.size()); }
  uint32_t capacity() const { return count_; }
  uint32_t slot_size() const { return slot_size_; }

  // The free slots' indices, for audits that check every slot is in exactly one place.
  const std::vector<uint32_t>& free_indices() const { return free_; }

 private:
  uint64_t base_;
  uint32_t slot_size_;
  uint32_t count_;
  std::vector<uint32_t> free_;
};

}  // namespace gnf::mem
