// LatencyHistogram: percentiles against a sorted array, exact moments, merging, export.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "wire/latency_histogram.h"

namespace gnf::wire {
namespace {

// Percentiles in tenths of a percent so that the reference rank is computed in integers.
const int kTenths[] = {0, 1, 10, 100, 250, 500, 750, 900, 990, 999, 1000};

uint64_t sorted_percentile(const std::vector<uint64_t>& sorted, int tenths) {
  uint64_t n = sorted.size();
  uint64_t rank = std::max<uint64_t>(1, (uint64_t(tenths) * n + 999) / 1000);  // nearest rank
  return sorted[rank - 1];
}

TEST(LatencyHistogram, PercentilesEqualSortedArrayPercentilesExactlyBelow2048ns) {
  std::mt19937_64 rng(1);
  for (uint64_t n : {1u, 7u, 1000u, 12345u}) {
    LatencyHistogram h;
    std::vector<uint64_t> v;
    for (uint64_t i = 0; i < n; ++i) v.push_back(rng() % 2048);
    for (uint64_t x : v) h.record(x);
    std::sort(v.begin(), v.end());
    for (int t : kTenths) EXPECT_EQ(h.percentile(t / 10.0), sorted_percentile(v, t)) << "n " << n << " q " << t / 10.0;
  }
}

TEST(LatencyHistogram, PercentilesAreAtMostOneTenthPercentHighAbove2048ns) {
  std::mt19937_64 rng(2);
  std::lognormal_distribution<double> dist(std::log(50'000.0), 2.0);
  LatencyHistogram h;
  std::vector<uint64_t> v;
  for (int i = 0; i < 100'000; ++i) v.push_back(2048 + uint64_t(dist(rng)));
  for (uint64_t x : v) h.record(x);
  std::sort(v.begin(), v.end());
  for (int t : kTenths) {
    uint64_t want = sorted_percentile(v, t), got = h.percentile(t / 10.0);
    EXPECT_GE(got, want) << "q " << t / 10.0;
    EXPECT_LE(double(got - want), double(want) * 0.001) << "q " << t / 10.0;
  }
  EXPECT_EQ(h.percentile(0), v.front());
  EXPECT_EQ(h.percentile(100), v.back());
  EXPECT_EQ(h.min(), v.front());
  EXPECT_EQ(h.max(), v.back());
}

TEST(LatencyHistogram, HandlesTheWholeUint64Range) {
  LatencyHistogram h;
  for (uint64_t x : {uint64_t(0), uint64_t(1) << 63, UINT64_MAX, UINT64_MAX - 1}) h.record(x);
  EXPECT_EQ(h.percentile(100), UINT64_MAX);
  EXPECT_EQ(h.percentile(0), 0u);
  EXPECT_EQ(h.percentile(50), uint64_t(1) << 63 | ((uint64_t(1) << 53) - 1));  // top of its bucket
  EXPECT_EQ(h.count(), 4u);
}

TEST(LatencyHistogram, MeanAndStddevMatchADirectComputation) {
  std::mt19937_64 rng(3);
  LatencyHistogram h;
  std::vector<uint64_t> v;
  for (int i = 0; i < 50'000; ++i) v.push_back(10'000'000 + rng() % 200);  // large mean, small spread
  for (uint64_t x : v) h.record(x);
  long double sum = 0, sq = 0;
  for (uint64_t x : v) sum += x;
  long double mean = sum / v.size();
  for (uint64_t x : v) sq += (x - mean) * (x - mean);
  double sd = double(std::sqrt(sq / v.size()));
  EXPECT_NEAR(h.mean(), double(mean), double(mean) * 1e-15);
  EXPECT_NEAR(h.stddev(), sd, sd * 1e-9);
}

TEST(LatencyHistogram, MergeEqualsRecordingEverythingInOne) {
  std::mt19937_64 rng(4);
  LatencyHistogram a, b, all;
  for (int i = 0; i < 10'000; ++i) {
    uint64_t x = rng() % 1'000'000, y = 500'000 + rng() % 5'000'000;
    a.record(x);
    b.record(y);
    all.record(x);
    all.record(y);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_EQ(a.buckets(), all.buckets());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  EXPECT_NEAR(a.stddev(), all.stddev(), all.stddev() * 1e-12);
  for (int t : kTenths) EXPECT_EQ(a.percentile(t / 10.0), all.percentile(t / 10.0));

  LatencyHistogram empty;
  empty.merge(all);
  EXPECT_EQ(empty.buckets(), all.buckets());
  EXPECT_DOUBLE_EQ(empty.stddev(), all.stddev());
}

TEST(LatencyHistogram, BucketsListNonzeroBucketsByLowestValue) {
  LatencyHistogram h;
  for (uint64_t x : {5u, 5u, 2047u, 2048u, 2049u, 3001u, 3000u, 4096u, 4099u, 4100u}) h.record(x);
  using B = std::vector<std::pair<uint64_t, uint64_t>>;
  // Above 2048 buckets are 2 ns wide up to 4096, then 4 ns wide up to 8192.
  EXPECT_EQ(h.buckets(), (B{{5, 2}, {2047, 1}, {2048, 2}, {3000, 2}, {4096, 2}, {4100, 1}}));
}

TEST(LatencyHistogram, FewerSubBucketBitsKeepPercentilesWithinTheirCoarserBound) {
  // 6 bits: exact below 128 ns, then 64 buckets per power of two (at most 1/64 high).
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> dist(std::log(20'000.0), 1.5);
  LatencyHistogram coarse(6), fine;
  std::vector<uint64_t> v;
  for (int i = 0; i < 50'000; ++i) v.push_back(uint64_t(dist(rng)));
  for (uint64_t x : v) {
    coarse.record(x);
    fine.record(x);
  }
  std::sort(v.begin(), v.end());
  for (int t : kTenths) {
    uint64_t want = sorted_percentile(v, t), got = coarse.percentile(t / 10.0);
    EXPECT_GE(got, want) << "q " << t / 10.0;
    EXPECT_LE(double(got - want), double(want) / 64) << "q " << t / 10.0;
  }
  EXPECT_LT(coarse.buckets().size(), fine.buckets().size());
  EXPECT_EQ(coarse.count(), fine.count());
  EXPECT_EQ(coarse.min(), fine.min());
  EXPECT_EQ(coarse.max(), fine.max());
  EXPECT_DOUBLE_EQ(coarse.mean(), fine.mean());
  // Buckets: one per ns below 128, then 2 ns wide up to 256.
  LatencyHistogram h(6);
  for (uint64_t x : {127u, 128u, 129u, 130u, 256u, 259u}) h.record(x);
  using B = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(h.buckets(), (B{{127, 1}, {128, 2}, {130, 1}, {256, 2}}));
}

TEST(LatencyHistogram, MergingDifferentPrecisionsIsRefused) {
  LatencyHistogram coarse(6), fine;
  fine.record(5);
  EXPECT_THROW(coarse.merge(fine), std::invalid_argument);
  EXPECT_THROW(LatencyHistogram(0), std::invalid_argument);
}

TEST(LatencyHistogram, EmptyHistogramReportsZeros) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stddev(), 0.0);
  EXPECT_EQ(h.percentile(50), 0u);
  EXPECT_TRUE(h.buckets().empty());
}

}  // namespace
}  // namespace gnf::wire
