// A log-linear latency histogram over nanoseconds (HDR-histogram style).
//
// With the default precision (10 sub-bucket bits) values below 2048 ns have a bucket each. Above,
// every power-of-two range [2^e, 2^(e+1)) is split into 1024 equal buckets, so a bucket is never
// wider than 1/1024 of the values in it. Fewer bits trade precision for memory: with b bits the
// exact range is below 2^(b+1) ns and buckets are at most 1/2^b of their values wide (b = 6: 1.6 %,
// about 10 KiB for latencies up to 10 ms; b = 10: about 120 KiB).
// Count, min, max, mean and standard deviation are exact (kept beside the buckets). Recording a
// value is integer work only (a sink records every frame it measures, at up to line rate): the
// moments are sums of integers, divided once when they are read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gnf::wire {

class LatencyHistogram {
 public:
  static constexpr unsigned kDefaultSubBucketBits = 10;
  // Whether the mean and standard deviation are kept (a sum and a sum of squares per value); a
  // series that reports only percentiles and the maximum skips them.
  enum class Moments : uint8_t { Kept, Skipped };
  // `sub_bucket_bits`: 1..16.
  explicit LatencyHistogram(unsigned sub_bucket_bits = kDefaultSubBucketBits, Moments moments = Moments::Kept);

  // Inline: a measuring sink records every frame it measures, at up to line rate.
  void record(uint64_t ns) {
    const size_t b = bucket_of(ns);
    if (b >= counts_.size()) [[unlikely]]
      counts_.resize(b + 1);
    counts_[b]++;
    if (count_++ == 0) [[unlikely]]
      shift_ = ns;
    min_ = ns < min_ ? ns : min_;
    max_ = ns > max_ ? ns : max_;
    if (moments_ == Moments::Skipped) return;
    sum_ += ns;
    // The usual deviation fits 64 bits and its square one 64 x 64 multiplication.
    const int64_t d = int64_t(ns - shift_);
    const uint64_t magnitude = d < 0 ? uint64_t(-d) : uint64_t(d);
    if (magnitude < kExactDeviation && (ns >= shift_) == (d >= 0)) [[likely]] {
      deviations_ += d;
      squares_ += (unsigned __int128)magnitude * magnitude;
    } else {
      add_deviation(__int128(ns) - __int128(shift_), 1);
    }
  }
  // Adds all of `other`'s values, as if they had been recorded here. Both must have the same
  // precision (std::invalid_argument otherwise).
  void merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }  // 0 when empty, like max/mean/stddev
  uint64_t max() const { return max_; }
  // With Moments::Kept only (std::logic_error otherwise).
  double mean() const;
  double stddev() const;  // population standard deviation (divides by count)

  // The q-th percentile, q in [0, 100] (rounded to 1e-7), by the nearest-rank rule: the value
  // of rank ceil(q/100 * count) in sorted order (at least rank 1). The answer is the highest value of
  // that value's bucket, but never more than max(): exact below 2048 ns, at most 1/1024 high
  // above (with the default precision). percentile(0) == min() and percentile(100) == max() exactly. 0 when empty.
  uint64_t percentile(double q) const;

  // Nonzero buckets in increasing order: (lowest value of the bucket, count), e.g. for JSON.
  std::vector<std::pair<uint64_t, uint64_t>> buckets() const;

 private:
  static constexpr uint64_t kExactDeviation = uint64_t(1) << 40;

  // With b = sub_bucket_bits, values below 2^(b+1) have a bucket each. For larger ns with highest
  // bit e: bucket (e - b) * 2^b + (ns >> (e - b)), where the shifted value lies in [2^b, 2^(b+1)).
  // That continues the exact buckets without a gap (b = 10: 2048 -> 2048).
  size_t bucket_of(uint64_t ns) const {
    const unsigned b = sub_bucket_bits_;
    if (ns < (uint64_t(2) << b)) return size_t(ns);
    const unsigned shift = unsigned(63 - __builtin_clzll(ns)) - b;
    return (size_t(shift) << b) + size_t(ns >> shift);
  }
  uint64_t bucket_low(size_t bucket) const;
  uint64_t bucket_high(size_t bucket) const;

  unsigned sub_bucket_bits_;
  Moments moments_;
  std::vector<uint64_t> counts_;  // grown to the highest bucket used
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  unsigned __int128 sum_ = 0;  // exact: 2^64 values below 2^64 cannot overflow it
  // The spread is kept as sums of deviations from the first value recorded (`shift_`), so that a
  // large mean with a small spread (µs latency, ns jitter) loses nothing to cancellation: for
  // |deviation| < 2^40 ns (18 minutes) the sums are exact integers; the rare larger deviation
  // adds its square to `far_squares_` instead, where exactness cannot matter.
  uint64_t shift_ = 0;
  __int128 deviations_ = 0;
  unsigned __int128 squares_ = 0;
  long double far_squares_ = 0;
  void add_deviation(__int128 d, uint64_t times);
};

}  // namespace gnf::wire
