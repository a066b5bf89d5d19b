#include "wire/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace gnf::wire {

namespace {

constexpr unsigned kSubBucketBits = 10;                    // 1024 buckets per power of two
constexpr uint64_t kExactLimit = 2ull << kSubBucketBits;  // 2048: one bucket per ns below

}  // namespace

// For ns >= 2048 with highest bit e: bucket (e - 10) * 1024 + (ns >> (e - 10)), where the shifted
// value lies in [1024, 2048). That continues the exact buckets without a gap: 2048 -> 2048.
size_t LatencyHistogram::bucket_of(uint64_t ns) {
  if (ns < kExactLimit) return size_t(ns);
  unsigned shift = unsigned(std::bit_width(ns)) - 1 - kSubBucketBits;
  return (size_t(shift) << kSubBucketBits) + size_t(ns >> shift);
}

uint64_t LatencyHistogram::bucket_low(size_t bucket) {
  if (bucket < kExactLimit) return bucket;
  unsigned shift = unsigned(bucket >> kSubBucketBits) - 1;
  uint64_t sub = (bucket & ((1u << kSubBucketBits) - 1)) | (1u << kSubBucketBits);
  return sub << shift;
}

uint64_t LatencyHistogram::bucket_high(size_t bucket) {
  if (bucket < kExactLimit) return bucket;
  unsigned shift = unsigned(bucket >> kSubBucketBits) - 1;
  return bucket_low(bucket) + ((uint64_t(1) << shift) - 1);
}

void LatencyHistogram::record(uint64_t ns) {
  size_t b = bucket_of(ns);
  if (b >= counts_.size()) counts_.resize(b + 1);
  counts_[b]++;
  count_++;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
  sum_ += ns;
  long double delta = (long double)ns - welford_mean_;
  welford_mean_ += delta / count_;
  m2_ += delta * ((long double)ns - welford_mean_);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size());
  for (size_t b = 0; b < other.counts_.size(); ++b) counts_[b] += other.counts_[b];
  // Chan et al.'s pairwise update of Welford's sums.
  long double n_a = count_, n_b = other.count_, n = n_a + n_b;
  long double delta = other.welford_mean_ - welford_mean_;
  welford_mean_ += delta * n_b / n;
  m2_ += other.m2_ + delta * delta * n_a * n_b / n;
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

double LatencyHistogram::mean() const { return count_ ? double((long double)sum_ / count_) : 0; }

double LatencyHistogram::stddev() const { return count_ ? double(std::sqrt(m2_ / count_)) : 0; }

uint64_t LatencyHistogram::percentile(double q) const {
  if (count_ == 0) return 0;
  if (q <= 0) return min_;
  if (q >= 100) return max_;
  // In integers, with q rounded to 1e-7 %: a q with no exact binary form (99.9) must still give
  // the rank a person computes (999 of 1000), not the next one.
  constexpr uint64_t kScale = 1'000'000'000;  // q / 100 in units of 1e-9
  auto q_scaled = (unsigned __int128)std::llround(q * (kScale / 100));
  uint64_t rank = uint64_t((q_scaled * count_ + kScale - 1) / kScale);
  rank = std::max<uint64_t>(rank, 1);
  uint64_t seen = 0;
  for (size_t b = 0; b < counts_.size(); ++b) {
    seen += counts_[b];
    if (seen >= rank) return std::min(bucket_high(b), max_);
  }
  return max_;
}

std::vector<std::pair<uint64_t, uint64_t>> LatencyHistogram::buckets() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (size_t b = 0; b < counts_.size(); ++b)
    if (counts_[b]) out.emplace_back(bucket_low(b), counts_[b]);
  return out;
}

}  // namespace gnf::wire
