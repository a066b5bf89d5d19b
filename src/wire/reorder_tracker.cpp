#include "wire/reorder_tracker.h"

#include <algorithm>
#include <bit>

namespace gnf::wire {

ReorderTracker::ReorderTracker(uint32_t duplicate_window)
    : seen_bits_(std::bit_ceil(std::max(duplicate_window, 64u)) / 64),
      window_mask_(seen_bits_.size() * 64 - 1) {}

ReorderTracker::Verdict ReorderTracker::arrive(uint64_t seq) {
  if (seq == next_exp_ && newest_end_index_ == arrivals_ && newest_end_seq_ == seq) {
    // The next one in order, the common case: it extends the newest run of new maxima, whose
    // length is kept here (open_len_) rather than in its record, which a sink with many flows
    // would otherwise fetch from memory for every frame; its bit joins the stretch (seen()).
    // Old records are forgotten in steps.
    ++open_len_;
    ++newest_end_index_;
    ++newest_end_seq_;
    next_exp_ = seq + 1;
    arrivals_++;
    if (arrivals_ % kForgetStep == 0 && arrivals_ > kExtentWindow) {
      close_run();
      forget_before(arrivals_ - kExtentWindow);
    }
    return {};
  }
  close_run();
  if (seq >= next_exp_) {
    advance_window(seq);
    add_record(arrivals_, seq);
    next_exp_ = seq + 1;
    arrivals_++;
    return {};
  }
  if (next_exp_ - seq <= window_mask_ + 1) {
    if (seen(seq)) {
      duplicates_++;
      return {Order::Duplicate};
    }
    mark(seq);
  }
  uint64_t e = extent(arrivals_, seq);
  arrivals_++;
  reordered_++;
  extent_sum_ += e;
  extent_max_ = std::max(extent_max_, e);
  return {Order::Reordered, e};
}

bool ReorderTracker::seen(uint64_t seq) const {
  if (seq >= stretch_from_ && seq < next_exp_) return true;
  uint64_t bit = seq & window_mask_;
  return seen_bits_[bit / 64] >> (bit % 64) & 1;
}

// A word at a time; [from, to) spans at most a window, so no bit is written twice.
void ReorderTracker::fill_bits(uint64_t from, uint64_t to, bool value) {
  for (uint64_t s = from; s < to;) {
    const uint64_t bit = s & window_mask_, in_word = std::min<uint64_t>(64 - bit % 64, to - s);
    const uint64_t mask = (in_word == 64 ? ~uint64_t(0) : ((uint64_t(1) << in_word) - 1)) << (bit % 64);
    uint64_t& word = seen_bits_[bit / 64];
    word = value ? word | mask : word & ~mask;
    s += in_word;
  }
}

void ReorderTracker::close_stretch() {
  // Only the last window's worth matters: older numbers are out of the window (their bits are
  // those of numbers a window later, which this sets or which advance_window clears).
  fill_bits(std::max(stretch_from_, next_exp_ - std::min(next_exp_, window_mask_ + 1)), next_exp_, true);
  stretch_from_ = next_exp_;
}

void ReorderTracker::mark(uint64_t seq) {
  uint64_t bit = seq & window_mask_;
  seen_bits_[bit / 64] |= uint64_t(1) << (bit % 64);
}

// Sequence numbers next_exp_ .. seq enter the window and take the bits of those that leave it.
// The next one in order extends the stretch; a gap ends it, and seq starts the next one.
void ReorderTracker::advance_window(uint64_t seq) {
  if (seq == next_exp_) return;
  if (seq - next_exp_ > window_mask_) {
    std::fill(seen_bits_.begin(), seen_bits_.end(), 0);
  } else {
    close_stretch();
    fill_bits(next_exp_, seq, false);
  }
  stretch_from_ = seq;
}

void ReorderTracker::close_run() {
  if (open_len_ == 0) return;
  runs_.back().len += open_len_;
  open_len_ = 0;
}

void ReorderTracker::add_record(uint64_t index, uint64_t seq) {
  if (!runs_.empty() && runs_.back().index + runs_.back().len == index && runs_.back().seq + runs_.back().len == seq) {
    runs_.back().len++;
  } else {
    runs_.push_back({index, seq, 1});
  }
  newest_end_index_ = index + 1;
  newest_end_seq_ = seq + 1;
  // Keep arrivals index - kExtentWindow + 1 .. index: an extent that needs an older one is at
  // least kExtentWindow, which is what extent() then reports.
  if (index >= kExtentWindow) forget_before(index - kExtentWindow + 1);
}

void ReorderTracker::forget_before(uint64_t oldest) {
  while (runs_.front().index + runs_.front().len <= oldest) {
    dropped_max_seq_ = runs_.front().seq + runs_.front().len - 1;
    dropped_any_ = true;
    runs_.pop_front();
  }
  Run& front = runs_.front();
  if (front.index < oldest) {
    uint64_t k = oldest - front.index;
    dropped_max_seq_ = front.seq + k - 1;
    dropped_any_ = true;
    front.index += k;
    front.seq += k;
    front.len -= k;
  }
}

// For seq < NextExp - 1 (NextExp - 1 itself is always caught as a duplicate), the newest record
// has a higher sequence number, so the search below always finds a run.
uint64_t ReorderTracker::extent(uint64_t index, uint64_t seq) const {
  if (dropped_any_ && dropped_max_seq_ > seq) return kExtentWindow;
  auto run = std::partition_point(runs_.begin(), runs_.end(),
                                  [seq](const Run& r) { return r.seq + r.len - 1 <= seq; });
  uint64_t first_above = std::max(run->seq, seq + 1);
  uint64_t j = run->index + (first_above - run->seq);
  // Reordered arrivals add no records, so the kept ones may have aged past the window since.
  return std::min(index - j, kExtentWindow);
}

}  // namespace gnf::wire
