// ReorderTracker on RFC 4737's definitions, and MeasuringSink's latency, loss and order accounting.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "wire/frame_size.h"
#include "wire/generator.h"
#include "wire/measure.h"
#include "wire/reorder_tracker.h"

namespace gnf::wire {
namespace {

struct Feed {
  std::vector<uint64_t> reordered;  // sequence numbers found reordered, in arrival order
  std::vector<uint64_t> extents;    // their extents
  uint64_t duplicates = 0;
};

Feed feed(ReorderTracker& t, const std::vector<uint64_t>& seqs) {
  Feed f;
  for (uint64_t s : seqs) {
    ReorderTracker::Verdict v = t.arrive(s);
    if (v.order == ReorderTracker::Order::Reordered) {
      f.reordered.push_back(s);
      f.extents.push_back(v.extent);
    }
    if (v.order == ReorderTracker::Order::Duplicate) f.duplicates++;
  }
  return f;
}

// RFC 4737 section 4.2.1 taken literally: for each reordered arrival i, the earliest j < i with
// s[j] > s[i]; e = i - j. Duplicates (repeated sequence numbers) must not occur in `seqs`.
std::vector<uint64_t> brute_force_extents(const std::vector<uint64_t>& seqs) {
  std::vector<uint64_t> extents;
  uint64_t next_exp = 0;
  for (size_t i = 0; i < seqs.size(); ++i) {
    if (seqs[i] >= next_exp) {
      next_exp = seqs[i] + 1;
      continue;
    }
    size_t j = 0;
    while (seqs[j] <= seqs[i]) ++j;
    extents.push_back(i - j);
  }
  return extents;
}

TEST(ReorderTracker, LateFourAfterFiveAndSixIsOneReorderedPacketOfExtentTwo) {
  // 1 2 3 5 6 4 7, arrival indices 1..7. NextExp is 7 when 4 arrives at i = 6: reordered.
  // The earliest arrival with a sequence number above 4 is 5 at j = 4, so e = 6 - 4 = 2.
  // Every other packet is >= NextExp when it arrives.
  ReorderTracker t;
  Feed f = feed(t, {1, 2, 3, 5, 6, 4, 7});
  EXPECT_EQ(f.reordered, (std::vector<uint64_t>{4}));
  EXPECT_EQ(f.extents, (std::vector<uint64_t>{2}));
  EXPECT_EQ(t.reordered(), 1u);
  EXPECT_EQ(t.extent_max(), 2u);
  EXPECT_EQ(t.next_expected(), 8u);
}

TEST(ReorderTracker, LateTwoAfterThreeAndFourIsTheOnlyReorderedPacket) {
  // 1 3 4 2 5: NextExp goes 2, 4, 5 over the first three arrivals; 2 arrives at i = 4 with
  // NextExp 5: reordered. Earliest s[j] > 2 is 3 at j = 2: e = 4 - 2 = 2. 3 and 4 are not
  // reordered (each was >= NextExp on arrival), nor is 5: one reordered packet, not two.
  ReorderTracker t;
  Feed f = feed(t, {1, 3, 4, 2, 5});
  EXPECT_EQ(f.reordered, (std::vector<uint64_t>{2}));
  EXPECT_EQ(f.extents, (std::vector<uint64_t>{2}));
}

TEST(ReorderTracker, ABlockOvertakenByLaterPacketsHasGrowingExtents) {
  // 1 2 3 7 8 9 10 4 5 6: 4, 5, 6 arrive at i = 8, 9, 10; for each, the earliest larger
  // sequence number is 7 at j = 4: extents 4, 5, 6.
  ReorderTracker t;
  Feed f = feed(t, {1, 2, 3, 7, 8, 9, 10, 4, 5, 6});
  EXPECT_EQ(f.reordered, (std::vector<uint64_t>{4, 5, 6}));
  EXPECT_EQ(f.extents, (std::vector<uint64_t>{4, 5, 6}));
  EXPECT_EQ(t.extent_sum(), 15u);
  EXPECT_EQ(t.extent_max(), 6u);
}

TEST(ReorderTracker, OnePacketOvertakenByManyHasTheExtentOfHowManyPassedIt) {
  // 2 3 4 5 1: 1 arrives at i = 5, the earliest larger is 2 at j = 1: e = 4.
  ReorderTracker t;
  Feed f = feed(t, {0, 2, 3, 4, 5, 1});
  EXPECT_EQ(f.extents, (std::vector<uint64_t>{4}));
}

TEST(ReorderTracker, LossAloneIsNotReordering) {
  ReorderTracker t;
  Feed f = feed(t, {0, 1, 5, 6, 9, 100});
  EXPECT_TRUE(f.reordered.empty());
  EXPECT_EQ(t.arrivals(), 6u);
}

TEST(ReorderTracker, ExtentsMatchTheDefinitionOnRandomLossyShuffles) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint64_t> seqs;
    for (uint64_t s = 0; s < 500; ++s)
      if (rng() % 10) seqs.push_back(s);  // 10 % loss
    // Local disorder, like several rings: swap each packet with one up to 20 places later.
    for (size_t i = 0; i + 1 < seqs.size(); ++i)
      if (rng() % 4 == 0) std::swap(seqs[i], seqs[std::min(seqs.size() - 1, i + 1 + rng() % 20)]);
    ReorderTracker t;
    Feed f = feed(t, seqs);
    EXPECT_EQ(f.extents, brute_force_extents(seqs)) << "trial " << trial;
    EXPECT_EQ(t.arrivals(), seqs.size());
  }
}

TEST(ReorderTracker, CopiesAreDuplicatesAndNotArrivals) {
  // 1 2 2 3 1: the second 2 and the second 1 are copies; only first copies are evaluated.
  ReorderTracker t;
  Feed f = feed(t, {1, 2, 2, 3, 1});
  EXPECT_EQ(f.duplicates, 2u);
  EXPECT_TRUE(f.reordered.empty());
  EXPECT_EQ(t.arrivals(), 3u);
  EXPECT_EQ(t.duplicates(), 2u);
}

// Long in-order stretches (which the tracker keeps out of its bitmap until they end), gaps,
// packets overtaken, and copies from up to twice the duplicate window back: a copy is a duplicate
// exactly when its sequence number arrived before and is within the window below NextExp.
TEST(ReorderTracker, CopiesAreFoundExactlyWithinTheDuplicateWindow) {
  std::mt19937_64 rng(25);
  for (uint32_t window : {64u, 256u}) {
    for (int trial = 0; trial < 50; ++trial) {
      ReorderTracker t(window);
      std::vector<bool> arrived;
      std::vector<uint64_t> sent;
      uint64_t next_exp = 0, next_seq = 0;
      for (int step = 0; step < 3000; ++step) {
        uint64_t seq;
        const uint64_t r = rng() % 100;
        if (r < 70 || sent.empty()) {
          seq = next_seq++;  // in order
        } else if (r < 80) {
          next_seq += 1 + rng() % (2 * window);  // a gap: lost, or overtaken and sent below
          seq = next_seq++;
        } else {
          const uint64_t back = 1 + rng() % std::min<uint64_t>(sent.size(), 2 * window);
          seq = sent[sent.size() - back];  // a copy, or a packet overtaken
          if (rng() % 2) seq = seq > 0 ? seq - 1 : 0;
        }
        if (seq >= arrived.size()) arrived.resize(seq + 1, false);
        const bool duplicate = arrived[seq] && seq < next_exp && next_exp - seq <= window;
        const ReorderTracker::Verdict v = t.arrive(seq);
        ASSERT_EQ(v.order == ReorderTracker::Order::Duplicate, duplicate)
            << "window " << window << " trial " << trial << " step " << step << " seq " << seq;
        if (!duplicate) {
          arrived[seq] = true;
          next_exp = std::max(next_exp, seq + 1);
        }
        sent.push_back(seq);
      }
    }
  }
}

TEST(ReorderTracker, ACopyOlderThanTheDuplicateWindowCountsAsReordered) {
  ReorderTracker t(64);
  for (uint64_t s = 0; s < 200; ++s) t.arrive(s);
  EXPECT_EQ(t.arrive(150).order, ReorderTracker::Order::Duplicate);  // 50 back: in the window
  ReorderTracker::Verdict v = t.arrive(10);                         // 190 back: beyond it
  EXPECT_EQ(v.order, ReorderTracker::Order::Reordered);
  EXPECT_EQ(v.extent, 189u);  // arrival 200 (0-based); the earliest above 10 is 11, arrival 11
}

TEST(ReorderTracker, ExtentsBeyondTheRecordWindowAreCappedAtIt) {
  // 0, then 2 .. W + 10, then 1: the earliest larger packet (2, arrival 1) is W + 9 arrivals
  // back, older than the records kept.
  ReorderTracker t;
  t.arrive(0);
  const uint64_t w = ReorderTracker::kExtentWindow;
  for (uint64_t s = 2; s <= w + 10; ++s) t.arrive(s);
  ReorderTracker::Verdict v = t.arrive(1);
  EXPECT_EQ(v.order, ReorderTracker::Order::Reordered);
  EXPECT_EQ(v.extent, w);
  // Within the window extents stay exact: w + 5 was passed by w + 6 .. w + 10, 6 arrivals back.
  ReorderTracker u;
  for (uint64_t s = 0; s < w + 5; ++s) u.arrive(s);
  for (uint64_t s = w + 6; s <= w + 10; ++s) u.arrive(s);
  EXPECT_EQ(u.arrive(w + 5).extent, 5u);
  // After twice the window in order (records forgotten on the way), an extent just inside it is
  // still exact: w + 100 comes after 0 .. 2w, passed first by w + 101 at arrival w + 100.
  ReorderTracker x;
  for (uint64_t s = 0; s <= 2 * w; ++s)
    if (s != w + 100) x.arrive(s);
  ReorderTracker::Verdict late = x.arrive(w + 100);
  EXPECT_EQ(late.order, ReorderTracker::Order::Reordered);
  EXPECT_EQ(late.extent, w - 100);
  EXPECT_EQ(x.arrive(2 * w + 1).order, ReorderTracker::Order::InOrder);
  EXPECT_EQ(x.arrive(5).extent, w);  // its first larger packet is long forgotten
}

// A Sink that keeps what it is given, to check forwarding.
struct RecordingSink : Sink {
  std::vector<std::vector<uint8_t>> frames;
  bool finished = false;
  void deliver(const uint8_t* data, uint32_t len, uint64_t) override { frames.emplace_back(data, data + len); }
  void finish() override { finished = true; }
};

struct Sent {
  std::vector<uint8_t> bytes;
  uint64_t time_ns;
};

std::vector<Sent> generate(Generator& g, uint64_t start_ns) {
  g.start(start_ns);
  std::vector<Sent> out;
  Frame fr;
  while (g.next(fr) == wire::Next::Frame) out.push_back({std::vector<uint8_t>(fr.data, fr.data + fr.len), fr.time_ns});
  return out;
}

TEST(MeasuringSink, LatencyIsDeliveryTimeMinusTheStampedSendTime) {
  Generator g({.ip_version = 6, .sizes = {84}, .flows = 3, .rate_pps = 1e6, .count = 30});
  MeasuringSink sink;
  uint64_t extra = 0;
  for (const Sent& s : generate(g, 1'000'000)) sink.deliver(s.bytes.data(), uint32_t(s.bytes.size()), s.time_ns + 500 + extra++);
  MeasureReport r = sink.report();
  EXPECT_EQ(r.received, 30u);
  EXPECT_EQ(r.latency.count(), 30u);
  EXPECT_EQ(r.latency.min(), 500u);
  EXPECT_EQ(r.latency.max(), 529u);
  EXPECT_DOUBLE_EQ(r.latency.mean(), 514.5);
  EXPECT_EQ(r.loss(g.sent_per_flow()), 0u);
  EXPECT_EQ(r.received_per_flow, (std::vector<uint64_t>{10, 10, 10}));
}

TEST(MeasuringSink, AGpuDepartureIsTheLatencyOriginAndTheSendTimeTheWindow) {
  Generator g({.sizes = {128}, .rate_pps = 1e6, .count = 4});
  MeasuringSink sink;
  sink.set_window(MeasuredWindow{1'000'000, 2'000});  // the first two frames' send times
  for (const Sent& s : generate(g, 1'000'000)) {
    std::vector<uint8_t> f = s.bytes;
    ASSERT_TRUE(mark_departure(f.data(), find_stamp(f.data(), uint32_t(f.size())), s.time_ns + 5'000));
    sink.deliver(f.data(), uint32_t(f.size()), s.time_ns + 5'300);
  }
  MeasureReport r = sink.report();
  EXPECT_EQ(r.received, 2u);  // departures at +5 µs fall outside the window; send times do not
  EXPECT_EQ(r.latency.count(), 2u);
  EXPECT_EQ(r.latency.min(), 300u);
  EXPECT_EQ(r.latency.max(), 300u);
}

TEST(MeasuringSink, AStampDeliveredOnItsOwnCountsAsItsFrameWould) {
  MeasuringSink sink;
  sink.deliver_stamp(Stamp{Stamp::make_flow_seq(1, 0), 1000}, 300, 1700);
  sink.deliver_stamp(Stamp{Stamp::make_flow_seq(1, 2), 1000}, 300, 1800);
  sink.deliver_stamp(Stamp{Stamp::make_flow_seq(1, 1), 1000}, 300, 1900);
  sink.deliver_stamp(Stamp{Stamp::make_flow_seq(1, 1), 1000}, 300, 1950);
  sink.deliver_stamp(Stamp{Stamp::make_flow_seq(0, 0), 2000}, 300, 1999);
  MeasureReport r = sink.report();
  EXPECT_EQ(r.received, 4u);
  EXPECT_EQ(r.reordered, 1u);
  EXPECT_EQ(r.duplicates, 1u);
  EXPECT_EQ(r.clock_skew, 1u);
  EXPECT_EQ(r.clock_skew_max_ns, 1u);
  EXPECT_EQ(r.received_bytes, 4u * l2_bytes(300));
  EXPECT_EQ(r.latency.min(), 700u);
  EXPECT_EQ(r.latency.max(), 900u);
}

TEST(MeasuringSink, FramesWithoutAStampAreForeignAndStillForwarded) {
  RecordingSink inner;
  MeasuringSink sink(&inner);
  std::vector<uint8_t> arp(60, 0xff);
  sink.deliver(arp.data(), 60, 1);
  sink.deliver(arp.data(), 0, 2);
  Generator g({.count = 1});
  for (const Sent& s : generate(g, 0)) sink.deliver(s.bytes.data(), uint32_t(s.bytes.size()), s.time_ns + 1);
  sink.finish();
  MeasureReport r = sink.report();
  EXPECT_EQ(r.foreign, 2u);
  EXPECT_EQ(r.received, 1u);
  ASSERT_EQ(inner.frames.size(), 3u);
  EXPECT_EQ(inner.frames[0], arp);
  EXPECT_TRUE(inner.finished);
}

TEST(MeasuringSink, LossIsSentMinusReceivedPerFlowAndNeverNegative) {
  Generator g({.flows = 4, .count = 100});
  std::vector<Sent> sent = generate(g, 0);
  MeasuringSink sink;
  for (size_t i = 0; i < sent.size(); ++i)
    if (i % 10 != 3) sink.deliver(sent[i].bytes.data(), uint32_t(sent[i].bytes.size()), sent[i].time_ns);
  MeasureReport r = sink.report();
  EXPECT_EQ(r.received, 90u);
  // Dropped: 3, 13, ..., 93: flow 3 loses 3, 23, 43, 63, 83; flow 1 loses 13, 33, 53, 73, 93.
  EXPECT_EQ(r.received_per_flow, (std::vector<uint64_t>{25, 20, 25, 20}));
  EXPECT_EQ(r.loss(g.sent_per_flow()), 10u);
  EXPECT_EQ(r.loss({30, 10}), 5u);  // flow 1 got more than "sent": 0, not -10
  EXPECT_EQ(r.reordered, 0u);
}

TEST(MeasuringSink, CopiesAndSwapsAreCountedPerFlow) {
  Generator g({.flows = 2, .count = 8});
  std::vector<Sent> sent = generate(g, 0);
  MeasuringSink sink;
  // Flow 0 gets seqs 0, 2, 1, 3 (frames 0, 4, 2, 6); flow 1 gets 0, 1, 1, 2, 3.
  for (size_t i : {0, 1, 4, 3, 3, 2, 5, 6, 7}) sink.deliver(sent[i].bytes.data(), uint32_t(sent[i].bytes.size()), sent[i].time_ns);
  MeasureReport r = sink.report();
  EXPECT_EQ(r.received, 8u);
  EXPECT_EQ(r.duplicates, 1u);
  EXPECT_EQ(r.duplicates_per_flow, (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(r.reordered, 1u);
  EXPECT_EQ(r.reordered_per_flow, (std::vector<uint64_t>{1, 0}));
  EXPECT_EQ(r.reorder_extent_max, 1u);
  EXPECT_EQ(r.latency.count(), 8u);  // copies add no latency sample
}

TEST(MeasuringSink, FramesDeliveredBeforeTheirSendTimeAreClockSkewNotLatency) {
  Generator g({.count = 2});
  std::vector<Sent> sent = generate(g, 1000);
  MeasuringSink sink;
  sink.deliver(sent[0].bytes.data(), uint32_t(sent[0].bytes.size()), 999);
  sink.deliver(sent[1].bytes.data(), uint32_t(sent[1].bytes.size()), sent[1].time_ns + 10);
  MeasureReport r = sink.report();
  EXPECT_EQ(r.clock_skew, 1u);
  EXPECT_EQ(r.received, 2u);
  EXPECT_EQ(r.latency.count(), 1u);
  EXPECT_EQ(r.latency.max(), 10u);
}

}  // namespace
}  // namespace gnf::wire
