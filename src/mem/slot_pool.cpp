#include "mem/slot_pool.h"

namespace gnf::mem {

SlotPool::SlotPool(uint8_t* base, uint32_t slot_size, uint32_t count)
    : base_(reinterpret_cast<uint64_t>(base)), slot_size_(slot_size), count_(count) {
  free_.reserve(count);
  // Highest index first, so that the first allocations hand out the lowest addresses.
  for (uint32_t i = count; i-- > 0;) free_.push_back(i);
}

}  // namespace gnf::mem
