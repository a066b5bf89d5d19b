// A poll-mode thread's back-off (util/idle_backoff.h): spin, pause, yield, then sleeps that double
// up to the longest; back to spinning at the first round with work; spinning forever in spin mode.
#include <gtest/gtest.h>

#include "util/idle_backoff.h"

namespace {

using gnf::IdleBackoff;
using Step = IdleBackoff::Step;

constexpr uint64_t kStart = 1'000'000'000;  // any clock reading
constexpr uint64_t kSleepMaxNs = 100'000;

IdleBackoff backing_off() { return IdleBackoff(gnf::IdlePolicy{true, kSleepMaxNs}); }

TEST(IdleBackoff, SpinsThenPausesThenYieldsThenSleepsAsTheIdleTimeGrows) {
  IdleBackoff b = backing_off();
  EXPECT_EQ(b.after_empty_round(kStart), Step::Spin);
  EXPECT_EQ(b.after_empty_round(kStart + IdleBackoff::kSpinNs - 1), Step::Spin);
  EXPECT_EQ(b.after_empty_round(kStart + IdleBackoff::kSpinNs), Step::Pause);
  EXPECT_EQ(b.after_empty_round(kStart + IdleBackoff::kPauseNs - 1), Step::Pause);
  EXPECT_EQ(b.after_empty_round(kStart + IdleBackoff::kPauseNs), Step::Yield);
  EXPECT_EQ(b.after_empty_round(kStart + IdleBackoff::kYieldNs - 1), Step::Yield);
  EXPECT_EQ(b.after_empty_round(kStart + IdleBackoff::kYieldNs), Step::Sleep);
  EXPECT_EQ(b.sleep_ns(), IdleBackoff::kFirstSleepNs);
}

TEST(IdleBackoff, SleepsTwiceAsLongEachTimeUpToTheLongest) {
  IdleBackoff b = backing_off();
  b.after_empty_round(kStart);
  uint64_t now = kStart + IdleBackoff::kYieldNs, expected = IdleBackoff::kFirstSleepNs;
  for (int i = 0; i < 20; ++i, now += b.sleep_ns()) {
    ASSERT_EQ(b.after_empty_round(now), Step::Sleep);
    EXPECT_EQ(b.sleep_ns(), expected) << "sleep " << i;
    expected = std::min(2 * expected, kSleepMaxNs);
  }
  EXPECT_EQ(b.sleep_ns(), kSleepMaxNs);
}

TEST(IdleBackoff, ARoundWithWorkStartsTheSpinAgainAndTheSleepsFromTheShortest) {
  IdleBackoff b = backing_off();
  b.after_empty_round(kStart);
  b.after_empty_round(kStart + IdleBackoff::kYieldNs);
  b.after_empty_round(kStart + 2 * IdleBackoff::kYieldNs);
  ASSERT_GT(b.sleep_ns(), IdleBackoff::kFirstSleepNs);
  b.reset();
  const uint64_t later = kStart + 10 * IdleBackoff::kYieldNs;
  EXPECT_EQ(b.after_empty_round(later), Step::Spin);
  EXPECT_EQ(b.after_empty_round(later + IdleBackoff::kSpinNs - 1), Step::Spin);
  EXPECT_EQ(b.after_empty_round(later + IdleBackoff::kYieldNs), Step::Sleep);
  EXPECT_EQ(b.sleep_ns(), IdleBackoff::kFirstSleepNs);
}

TEST(IdleBackoff, SpinModeSpinsHoweverLongNothingComes) {
  IdleBackoff b(gnf::IdlePolicy{false, kSleepMaxNs});
  for (uint64_t idle_ns : {uint64_t(0), IdleBackoff::kSpinNs, IdleBackoff::kYieldNs, uint64_t(60'000'000'000)})
    EXPECT_EQ(b.after_empty_round(kStart + idle_ns), Step::Spin) << idle_ns;
}

TEST(IdleBackoff, ALongestSleepShorterThanTheFirstIsKept) {
  IdleBackoff b(gnf::IdlePolicy{true, 1'000});
  b.after_empty_round(kStart);
  EXPECT_EQ(b.after_empty_round(kStart + IdleBackoff::kYieldNs), Step::Sleep);
  EXPECT_EQ(b.sleep_ns(), 1'000u);
}

}  // namespace
