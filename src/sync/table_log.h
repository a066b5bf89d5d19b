// What a table builder stored, in order, so that a copy of the table elsewhere (a GPU's memory:
// sync/device_mirror.h) can be brought up to date by replaying the same stores in the same order.
//
// Builders keep their tables as arrays of 32-bit words ("regions"), each entry written whole with one
// store, so a reader racing an update sees either the old or the new word. Where a reader must not see
// one store before earlier ones (a pointer to a group before the group's entries, a seqlock's closing
// count before the entry's body), the builder calls release(): every store before it becomes visible
// before any store after it. The stores between two releases ("a phase") may land in any order, so a
// phase holds at most one store per word: a later store to a word overwrites the earlier one's value
// in place (builders do store a word twice, e.g. a new group's entries are filled, then a route's
// entries overwritten; replayed by different threads, the two could land in either order).
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sync/ordering.h"

namespace gnf::sync {

struct TableStore {
  uint32_t region;  // which array (the mirror's numbering)
  uint32_t index;   // word index within it
  uint32_t value;
};

class TableLog {
 public:
  void store(uint32_t region, uint32_t index, uint32_t value) {
    const uint64_t word = uint64_t(region) << 32 | index;
    auto [it, fresh] = in_phase_.try_emplace(word, uint32_t(stores_.size()));
    if (fresh) stores_.push_back({region, index, value});
    else stores_[it->second].value = value;
  }
  // Stores so far become visible before later ones. Consecutive releases collapse into one.
  void release() {
    if (!stores_.empty() && (phase_ends_.empty() || phase_ends_.back() != stores_.size()))
      phase_ends_.push_back(uint32_t(stores_.size()));
    in_phase_.clear();
  }

  const std::vector<TableStore>& stores() const { return stores_; }
  // The end index (exclusive) of each phase; the last phase ends at stores().size().
  std::vector<uint32_t> phase_ends() const {
    std::vector<uint32_t> ends = phase_ends_;
    if (!stores_.empty() && (ends.empty() || ends.back() != stores_.size())) ends.push_back(uint32_t(stores_.size()));
    return ends;
  }
  bool empty() const { return stores_.empty(); }
  void clear() {
    stores_.clear();
    phase_ends_.clear();
    in_phase_.clear();
  }

 private:
  std::vector<TableStore> stores_;
  std::vector<uint32_t> phase_ends_;
  std::unordered_map<uint64_t, uint32_t> in_phase_;  // (region, index) -> its store in this phase
};

// How a builder writes its tables' words: one atomic store each (readers may be looking), also put
// into a TableLog once one is attached. A table is up to two arrays (an LPM's first level and its
// groups), each a region of the log.
class TableWriter {
 public:
  void attach(TableLog* log, const uint32_t* first, size_t first_words, uint32_t first_region, const uint32_t* second,
              uint32_t second_region) {
    log_ = log;
    first_ = first;
    first_end_ = first + first_words;
    second_ = second;
    regions_[0] = first_region;
    regions_[1] = second_region;
  }

  void store(uint32_t* word, uint32_t value) {
    store_sys<MemoryOrder::Relaxed>(word, value);
    record(word, value);
  }
  // Every earlier store becomes visible first (a pointer to a group after the group's entries).
  void store_release(uint32_t* word, uint32_t value) {
    if (log_) log_->release();
    store_release_sys(word, value);
    record(word, value);
  }

 private:
  void record(const uint32_t* word, uint32_t value) {
    if (!log_) return;
    const bool first = word >= first_ && word < first_end_;
    log_->store(regions_[first ? 0 : 1], uint32_t(word - (first ? first_ : second_)), value);
  }

  TableLog* log_ = nullptr;
  const uint32_t *first_ = nullptr, *first_end_ = nullptr, *second_ = nullptr;
  uint32_t regions_[2] = {0, 0};
};

}  // namespace gnf::sync
