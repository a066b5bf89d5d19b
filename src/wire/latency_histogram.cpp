#include "wire/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace gnf::wire {

LatencyHistogram::LatencyHistogram(unsigned sub_bucket_bits, Moments moments)
    : sub_bucket_bits_(sub_bucket_bits), moments_(moments) {
  if (sub_bucket_bits < 1 || sub_bucket_bits > 16) throw std::invalid_argument("LatencyHistogram: sub_bucket_bits must be 1..16");
}

uint64_t LatencyHistogram::bucket_low(size_t bucket) const {
  const unsigned b = sub_bucket_bits_;
  if (bucket < (size_t(2) << b)) return bucket;
  unsigned shift = unsigned(bucket >> b) - 1;
  uint64_t sub = (bucket & ((size_t(1) << b) - 1)) | (uint64_t(1) << b);
  return sub << shift;
}

uint64_t LatencyHistogram::bucket_high(size_t bucket) const {
  if (bucket < (size_t(2) << sub_bucket_bits_)) return bucket;
  unsigned shift = unsigned(bucket >> sub_bucket_bits_) - 1;
  return bucket_low(bucket) + ((uint64_t(1) << shift) - 1);
}

void LatencyHistogram::add_deviation(__int128 d, uint64_t times) {
  deviations_ += d * __int128(times);
  const __int128 magnitude = d < 0 ? -d : d;
  if (magnitude < __int128(kExactDeviation)) {
    squares_ += (unsigned __int128)(magnitude * magnitude) * times;
  } else {
    far_squares_ += (long double)magnitude * (long double)magnitude * (long double)times;
  }
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.sub_bucket_bits_ != sub_bucket_bits_ || other.moments_ != moments_)
    throw std::invalid_argument("LatencyHistogram::merge: the histograms have different precisions or moments");
  if (other.count_ == 0) return;
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size());
  for (size_t b = 0; b < other.counts_.size(); ++b) counts_[b] += other.counts_[b];
  if (count_ == 0) shift_ = other.shift_;
  // The other's sums, moved to this shift: with e = other.shift - shift, each deviation grows by e,
  // so the sum grows by n e and the squares by 2 e (sum of deviations) + n e^2.
  const __int128 e = __int128(other.shift_) - __int128(shift_);
  deviations_ += other.deviations_;
  squares_ += other.squares_;
  far_squares_ += other.far_squares_;
  if (e != 0) {
    const __int128 cross = 2 * e * other.deviations_;
    if (cross >= 0) squares_ += (unsigned __int128)cross;
    else squares_ -= (unsigned __int128)(-cross);
    add_deviation(e, other.count_);
  }
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

double LatencyHistogram::mean() const {
  if (moments_ == Moments::Skipped) throw std::logic_error("LatencyHistogram: the mean of a histogram without moments");
  return count_ ? double((long double)sum_ / count_) : 0;
}

double LatencyHistogram::stddev() const {
  if (moments_ == Moments::Skipped) throw std::logic_error("LatencyHistogram: the spread of a histogram without moments");
  if (count_ == 0) return 0;
  const long double n = count_;
  const long double mean_deviation = (long double)deviations_ / n;
  const long double variance = ((long double)squares_ + far_squares_) / n - mean_deviation * mean_deviation;
  return variance > 0 ? double(std::sqrt(variance)) : 0;
}

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
