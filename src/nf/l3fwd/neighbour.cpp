#include "nf/l3fwd/neighbour.h"

#include <cstring>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nf {

static_assert(std::is_trivially_copyable_v<NeighbourView>);

NeighbourTable::NeighbourTable(uint32_t slots, uint32_t records)
    : slots_(slots, 0), states_(slots), records_(records) {
  if (slots < 16 || (slots & (slots - 1)) != 0)
    throw UserError(fmt::format("neighbour table: {} slots: must be a power of two, at least 16", slots));
  if (records == 0 || records >= kNeighbourTombstone)
    throw UserError(fmt::format("neighbour table: {} records is out of range", records));
  free_records_.reserve(records);
  for (uint32_t r = records; r-- > 0;) free_records_.push_back(r);
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

void NeighbourTable::forget_age(uint32_t slot) {
  SlotState& state = states_[slot];
  if (state.confirmed) learnt_by_age_.erase(state.confirmed);
  state.confirmed = 0;
}

void NeighbourTable::mark(uint32_t slot, Kind kind) {
  forget_age(slot);
  SlotState& state = states_[slot];
  state.kind = kind;
  if (kind == Kind::Learnt) {
    state.confirmed = next_stamp_++;
    learnt_by_age_.emplace(state.confirmed, slot);
  }
}

void NeighbourTable::unlink(uint32_t slot) {
  const uint32_t record = slots_[slot] - 1;
  store_slot(slot, kNeighbourTombstone);
  recycler_.release(record);
  forget_age(slot);
  --size_;
}

int64_t NeighbourTable::make_room(uint32_t home, int64_t free_slot) {
  const bool full = size_ + 1 > slots_.size() / 4 * 3;
  if (free_slot >= 0 && !full) return free_slot;
  if (free_slot < 0) {  // every slot of the window holds an entry: the oldest learnt one gives way
    const uint32_t mask = uint32_t(slots_.size() - 1);
    int64_t victim = -1;
    for (uint32_t probe = 0; probe < kNeighbourMaxProbe; ++probe) {
      const uint32_t slot = (home + probe) & mask;
      const SlotState& state = states_[slot];
      if (state.kind == Kind::Learnt && (victim < 0 || state.confirmed < states_[victim].confirmed)) victim = slot;
    }
    return victim;
  }
  if (learnt_by_age_.empty()) return -1;
  unlink(learnt_by_age_.begin()->second);
  return free_slot;
}

NeighbourTable::Outcome NeighbourTable::set(uint16_t port, uint8_t family, const uint8_t* address,
                                            const std::array<uint8_t, 6>& mac, Kind kind, bool create) {
  int64_t free_slot = -1;
  int64_t slot = find(port, family, address, &free_slot);
  if (slot >= 0) {
    if (kind == Kind::Learnt && states_[slot].kind == Kind::Permanent) return Outcome::Refused;
    if (std::memcmp(records_[slots_[slot] - 1].mac, mac.data(), 6) == 0) {
      mark(uint32_t(slot), kind);
      return Outcome::Confirmed;
    }
  } else if (kind == Kind::Learnt && !create) {
    return Outcome::Refused;
  }
  if (free_records_.empty()) recycler_.reclaim(true);
  if (free_records_.empty()) return Outcome::NoRoom;
  if (slot < 0) slot = make_room(neighbour_hash(port, address, family), free_slot);
  if (slot < 0) return Outcome::NoRoom;
  const uint32_t index = free_records_.back();
  free_records_.pop_back();
  NeighbourRecord r{};
  r.port = port;
  r.family = family;
  std::memcpy(r.address, address, family == 4 ? 4 : 16);
  std::memcpy(r.mac, mac.data(), 6);
  // The record first (plain stores: no slot points to a free record, and its last readers' grace
  // is over), then the slot word.
  records_[index] = r;
  if (records_log_) {
    const auto* words = reinterpret_cast<const uint32_t*>(&r);
    for (uint32_t w = 0; w < sizeof r / 4; ++w) records_log_->store(records_region_, index * (sizeof r / 4) + w, words[w]);
  }
  __atomic_thread_fence(__ATOMIC_RELEASE);
  const uint32_t replaced = slots_[slot];
  store_slot(uint32_t(slot), index + 1);
  if (replaced == 0 || replaced == kNeighbourTombstone) ++size_;
  else recycler_.release(replaced - 1);
  mark(uint32_t(slot), kind);
  return Outcome::Stored;
}

bool NeighbourTable::remove(uint16_t port, uint8_t family, const uint8_t* address) {
  const int64_t slot = find(port, family, address, nullptr);
  if (slot < 0) return false;
  unlink(uint32_t(slot));
  return true;
}

}  // namespace gnf::nf
