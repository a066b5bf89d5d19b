#include "nf/l3fwd/neighbour.h"

#include <cstring>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nf {

static_assert(std::is_trivially_copyable_v<NeighbourView>);

NeighbourTable::NeighbourTable(uint32_t slots, uint32_t records) : slots_(slots, 0), records_(records) {
  if (slots < 16 || (slots & (slots - 1)) != 0)
    throw UserError(fmt::format("neighbour table: {} slots: must be a power of two, at least 16", slots));
  if (records == 0 || records >= kNeighbourTombstone)
    throw UserError(fmt::format("neighbour table: {} records is out of range", records));
}

NeighbourView NeighbourTable::view() const {
  return NeighbourView{slots_.data(), records_.data(), uint32_t(slots_.size() - 1)};
}

void NeighbourTable::record_stores(sync::TableLog* records_log, uint32_t records_region, sync::TableLog* slots_log,
                                   uint32_t slots_region) {
  records_log_ = records_log;
  records_region_ = records_region;
  slots_log_ = slots_log;
  slots_region_ = slots_region;
}

int64_t NeighbourTable::find(uint16_t port, uint8_t family, const uint8_t* address, int64_t* free_slot) const {
  const uint32_t mask = uint32_t(slots_.size() - 1);
  const uint32_t h = neighbour_hash(port, address, family);
  const size_t n = family == 4 ? 4 : 16;
  if (free_slot) *free_slot = -1;
  for (uint32_t probe = 0; probe < kNeighbourMaxProbe; ++probe) {
    const uint32_t slot = (h + probe) & mask;
    const uint32_t s = slots_[slot];
    if (s == 0 || s == kNeighbourTombstone) {
      if (free_slot && *free_slot < 0) *free_slot = slot;
      if (s == 0) return -1;
      continue;
    }
    const NeighbourRecord& r = records_[s - 1];
    if (r.port == port && r.family == family && std::memcmp(r.address, address, n) == 0) return slot;
  }
  return -1;
}

void NeighbourTable::store_slot(uint32_t slot, uint32_t value) {
  __atomic_store_n(&slots_[slot], value, __ATOMIC_RELAXED);
  if (slots_log_) slots_log_->store(slots_region_, slot, value);
}

void NeighbourTable::set(uint16_t port, uint8_t family, const uint8_t* address, const std::array<uint8_t, 6>& mac) {
  int64_t free_slot = -1;
  const int64_t slot = find(port, family, address, &free_slot);
  if (slot >= 0 && std::memcmp(records_[slots_[slot] - 1].mac, mac.data(), 6) == 0) return;  // no change
  if (slot < 0 && (free_slot < 0 || size_ + 1 > slots_.size() / 4 * 3)) {
    throw UserError(fmt::format("neighbour table: no room for another neighbour ({} slots, {} in use)",
                                slots_.size(), size_));
  }
  if (records_used_ == records_.size()) {
    throw UserError(fmt::format("neighbour table: all {} records are used (records are not reused yet)",
                                records_.size()));
  }
  const uint32_t index = records_used_++;
  NeighbourRecord r{};
  r.port = port;
  r.family = family;
  std::memcpy(r.address, address, family == 4 ? 4 : 16);
  std::memcpy(r.mac, mac.data(), 6);
  // The record first (plain stores: nobody reads an unpublished record), then the slot word.
  records_[index] = r;
  if (records_log_) {
    const auto* words = reinterpret_cast<const uint32_t*>(&r);
    for (uint32_t w = 0; w < sizeof r / 4; ++w) records_log_->store(records_region_, index * (sizeof r / 4) + w, words[w]);
  }
  __atomic_thread_fence(__ATOMIC_RELEASE);
  if (slot >= 0) {
    store_slot(uint32_t(slot), index + 1);
  } else {
    store_slot(uint32_t(free_slot), index + 1);
    ++size_;
  }
}

bool NeighbourTable::remove(uint16_t port, uint8_t family, const uint8_t* address) {
  const int64_t slot = find(port, family, address, nullptr);
  if (slot < 0) return false;
  store_slot(uint32_t(slot), kNeighbourTombstone);
  --size_;
  return true;
}

}  // namespace gnf::nf
