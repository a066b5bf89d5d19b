// The nids alert ring's protocol (nf/nids/alert_ring.h) run by host threads, the same code GPU
// threads run: records leave in claim order, a reserved record not yet published holds the
// consumer, a full ring refuses at once, and under many producers on a tiny ring every record that
// went in comes out once, whole, in each producer's order, the others counted as lost.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "nf/nids/alert_ring.h"

using gnf::mem::Domain;
using gnf::nf::NidsAlert;
using gnf::nf::NidsAlertRing;
using gnf::nf::NidsAlertRingRef;

namespace {

// A record that says who made it and which of theirs it is, every field derived from the two, so
// that a torn record shows.
NidsAlert record(uint32_t producer, uint32_t number) {
  NidsAlert a{};
  a.unix_ns = uint64_t(producer) << 32 | number;
  a.rule = number;
  a.generation = producer;
  a.sport = uint16_t(producer);
  a.dport = uint16_t(number);
  for (int k = 0; k < 16; ++k) {
    a.src[k] = uint8_t(number + k);
    a.dst[k] = uint8_t(producer + k);
  }
  return a;
}

bool whole(const NidsAlert& a) {
  const NidsAlert expected = record(a.generation, a.rule);
  return std::memcmp(&a, &expected, sizeof a) == 0;
}

}  // namespace

TEST(NidsAlertRing, RecordsLeaveInClaimOrderAndAReservedRecordHoldsTheConsumer) {
  NidsAlertRing ring(8, Domain::Host, Domain::Host);
  const NidsAlertRingRef ref = ring.ref();
  uint64_t first, second;
  ASSERT_TRUE(ref.reserve(first));
  ASSERT_TRUE(ref.reserve(second));
  EXPECT_EQ(second, first + 1);
  ref.publish(second, record(0, 2));
  NidsAlert out;
  EXPECT_FALSE(ring.pop(out)) << "the record claimed first is not there yet";
  ref.publish(first, record(0, 1));
  ASSERT_TRUE(ring.pop(out));
  EXPECT_EQ(out.rule, 1u);
  ASSERT_TRUE(ring.pop(out));
  EXPECT_EQ(out.rule, 2u);
  EXPECT_FALSE(ring.pop(out));
}

TEST(NidsAlertRing, AFullRingRefusesAtOnceAndTakesRecordsAgainOnceRead) {
  NidsAlertRing ring(3, Domain::Host, Domain::Host);
  EXPECT_EQ(ring.capacity(), 4u);
  EXPECT_EQ(NidsAlertRing(1, Domain::Host, Domain::Host).capacity(), 2u);
  const NidsAlertRingRef ref = ring.ref();
  for (uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(ref.push(record(0, i)));
  EXPECT_FALSE(ref.push(record(0, 4)));
  uint64_t position;
  EXPECT_FALSE(ref.reserve(position));
  NidsAlert out;
  ASSERT_TRUE(ring.pop(out));
  EXPECT_EQ(out.rule, 0u);
  EXPECT_TRUE(ref.push(record(0, 5)));
  for (const uint32_t expected : {1u, 2u, 3u, 5u}) {
    ASSERT_TRUE(ring.pop(out));
    EXPECT_EQ(out.rule, expected);
  }
  EXPECT_FALSE(ring.pop(out));
}

TEST(NidsAlertRing, ManyProducersOnATinyRingEveryRecordOnceWholeInEachProducersOrderTheRestLost) {
  constexpr uint32_t kProducers = 6, kEach = 40000;
  NidsAlertRing ring(4, Domain::Host, Domain::Host);
  const NidsAlertRingRef ref = ring.ref();
  std::vector<uint64_t> pushed(kProducers, 0), lost(kProducers, 0);
  std::atomic<bool> producing{true};
  std::vector<std::vector<uint32_t>> received(kProducers);
  uint64_t torn = 0;
  std::thread consumer([&] {
    NidsAlert a;
    auto take = [&] {
      if (!whole(a)) ++torn;
      else received.at(a.generation).push_back(a.rule);
    };
    for (;;) {
      if (ring.pop(a)) {
        take();
        continue;
      }
      if (!producing.load(std::memory_order_acquire)) {
        while (ring.pop(a)) take();
        return;
      }
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> producers;
  for (uint32_t p = 0; p < kProducers; ++p)
    producers.emplace_back([&, p] {
      for (uint32_t i = 0; i < kEach; ++i) ++(ref.push(record(p, i)) ? pushed[p] : lost[p]);
    });
  for (std::thread& t : producers) t.join();
  producing.store(false, std::memory_order_release);
  consumer.join();

  EXPECT_EQ(torn, 0u);
  uint64_t all_lost = 0;
  for (uint32_t p = 0; p < kProducers; ++p) {
    EXPECT_EQ(pushed[p] + lost[p], kEach);
    EXPECT_EQ(received[p].size(), pushed[p]) << "producer " << p;
    for (size_t i = 1; i < received[p].size(); ++i)
      ASSERT_LT(received[p][i - 1], received[p][i]) << "producer " << p << ": out of order or twice";
    all_lost += lost[p];
  }
  EXPECT_GT(all_lost, 0u) << "a ring of 4 under " << kProducers << " producers never filled";
}
