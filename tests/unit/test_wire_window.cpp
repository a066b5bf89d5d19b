// The measured window: the generator counts what it sends inside it, the measuring sink counts
// only frames sent inside it but tracks order over all of them.
#include <gtest/gtest.h>

#include <vector>

#include "wire/generator.h"
#include "wire/measure.h"
#include "wire/window.h"

namespace gnf::wire {
namespace {

constexpr uint64_t kStart = 5 * kNsPerSecond;
constexpr uint64_t kMs = 1'000'000;

struct Sent {
  std::vector<uint8_t> bytes;
  uint64_t time_ns;
};

// Everything the generator sends, starting at kStart.
std::vector<Sent> generate(Generator& g) {
  g.start(kStart);
  std::vector<Sent> out;
  Frame fr;
  while (g.next(fr) == wire::Next::Frame) out.push_back({std::vector<uint8_t>(fr.data, fr.data + fr.len), fr.time_ns});
  return out;
}

void deliver(MeasuringSink& sink, const Sent& s, uint64_t latency_ns) {
  sink.deliver(s.bytes.data(), uint32_t(s.bytes.size()), s.time_ns + latency_ns);
}

TEST(MeasuredWindow, ContainsItsStartButNotItsEnd) {
  MeasuredWindow w{.start_ns = 1000, .length_ns = 2'500'000'000};
  EXPECT_FALSE(w.contains(999));
  EXPECT_TRUE(w.contains(1000));
  EXPECT_TRUE(w.contains(1000 + 2'499'999'999));
  EXPECT_FALSE(w.contains(1000 + 2'500'000'000));
  EXPECT_EQ(w.seconds(), 3u);  // the last, partial second has a bin too
  EXPECT_EQ(w.second_of(1000 + kNsPerSecond - 1), 0u);
  EXPECT_EQ(w.second_of(1000 + kNsPerSecond), 1u);
}

TEST(GeneratorWindow, CountsFramesScheduledInsideTheWindowPerFlowAndPerSecond) {
  Generator g({.flows = 3, .rate_pps = 10, .count = 50});  // sends at 0, 0.1, ..., 4.9 s
  // Frames at 1.0 .. 3.4 s: 25 frames, 10 + 10 + 5 by second of the window.
  g.set_window({.start_ns = kStart + kNsPerSecond, .length_ns = 2500 * kMs});
  std::vector<Sent> sent = generate(g);
  ASSERT_EQ(sent.size(), 50u);
  EXPECT_EQ(g.sent_in_window_per_second(), (std::vector<uint64_t>{10, 10, 5}));
  // Frame i is flow i % 3: of frames 10..34 flow 1 gets nine (10, 13, ..., 34), flows 0 and 2 eight.
  EXPECT_EQ(g.sent_in_window_per_flow(), (std::vector<uint64_t>{8, 9, 8}));
  EXPECT_EQ(g.sent_per_flow(), (std::vector<uint64_t>{17, 17, 16}));  // all of them, as before
  EXPECT_TRUE(g.finished());
}

TEST(GeneratorWindow, WithoutAWindowNothingIsCountedAsInIt) {
  Generator g({.count = 5});
  generate(g);
  EXPECT_TRUE(g.sent_in_window_per_flow().empty());
  EXPECT_TRUE(g.sent_in_window_per_second().empty());
}

TEST(GeneratorWindow, IsFinishedOnlyOnceItsScheduleIsSent) {
  Generator g({.rate_pps = 10, .duration_ns = 1 * kNsPerSecond});
  g.start(0);
  Frame fr;
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(g.next(fr), wire::Next::Frame);
    EXPECT_FALSE(g.finished());
  }
  EXPECT_EQ(g.next(fr), wire::Next::Exhausted);
  EXPECT_TRUE(g.finished());
}

TEST(MeasuringSinkWindow, CountsOnlyFramesSentInsideTheWindow) {
  Generator g({.flows = 2, .rate_pps = 10, .count = 40});  // 0.0 .. 3.9 s
  MeasuredWindow window{.start_ns = kStart + kNsPerSecond, .length_ns = 2 * kNsPerSecond};  // frames 10..29
  g.set_window(window);
  std::vector<Sent> sent = generate(g);
  MeasuringSink sink;
  sink.set_window(window);
  for (size_t i = 0; i < sent.size(); ++i) deliver(sink, sent[i], 1000 + i);
  MeasureReport r = sink.report();
  EXPECT_EQ(r.received, 20u);
  EXPECT_EQ(r.received_bytes, 20u * 64);  // with FCS
  EXPECT_EQ(r.received_per_flow, (std::vector<uint64_t>{10, 10}));
  EXPECT_EQ(r.loss(g.sent_in_window_per_flow()), 0u);
  EXPECT_EQ(r.latency.count(), 20u);
  EXPECT_EQ(r.latency.min(), 1010u);
  EXPECT_EQ(r.latency.max(), 1029u);
  ASSERT_EQ(r.per_second.size(), 2u);
  EXPECT_EQ(r.per_second[0].received, 10u);
  EXPECT_EQ(r.per_second[0].latency.max(), 1019u);
  EXPECT_EQ(r.per_second[1].received, 10u);
  EXPECT_EQ(r.per_second[1].latency.min(), 1020u);
}

TEST(MeasuringSinkWindow, LossPerSecondIsWhatTheGeneratorSentThatSecondAndTheSinkNeverSaw) {
  Generator g({.rate_pps = 10, .count = 30});
  MeasuredWindow window{.start_ns = kStart, .length_ns = 3 * kNsPerSecond};
  g.set_window(window);
  std::vector<Sent> sent = generate(g);
  MeasuringSink sink;
  sink.set_window(window);
  for (size_t i = 0; i < sent.size(); ++i)
    if (i < 10 || i % 2) deliver(sink, sent[i], 500);  // second 1 and 2 lose their even frames
  MeasureReport r = sink.report();
  std::vector<uint64_t> received;
  for (const auto& s : r.per_second) received.push_back(s.received);
  EXPECT_EQ(g.sent_in_window_per_second(), (std::vector<uint64_t>{10, 10, 10}));
  EXPECT_EQ(received, (std::vector<uint64_t>{10, 5, 5}));
  EXPECT_EQ(r.loss(g.sent_in_window_per_flow()), 10u);
}

TEST(MeasuringSinkWindow, WarmUpFramesStillCountInTheOrderHistory) {
  Generator g({.rate_pps = 10, .count = 6});  // one flow, seqs 0..5 at 0.0 .. 0.5 s
  MeasuredWindow window{.start_ns = kStart + 300 * kMs, .length_ns = kNsPerSecond};  // seqs 3, 4, 5
  std::vector<Sent> sent = generate(g);
  MeasuringSink sink;
  sink.set_window(window);
  // Arrivals 0 2 4 1 3 5: 1 (warm-up) and 3 (window) are late. Only 3 counts, with the extent the
  // whole arrival history gives it: it arrives 5th (index 4); the earliest larger is 4 (index 2).
  for (size_t i : {0, 2, 4, 1, 3, 5}) deliver(sink, sent[i], 10);
  // A copy of a warm-up frame is not the window's duplicate; a copy of a window frame is.
  deliver(sink, sent[2], 20);
  deliver(sink, sent[5], 20);
  MeasureReport r = sink.report();
  EXPECT_EQ(r.received, 3u);
  EXPECT_EQ(r.reordered, 1u);
  EXPECT_EQ(r.reorder_extent_max, 2u);
  EXPECT_EQ(r.duplicates, 1u);
  EXPECT_EQ(r.latency.count(), 3u);
}

TEST(MeasuringSinkWindow, FramesSentAfterTheWindowAreOutsideItToo) {
  Generator g({.rate_pps = 10, .count = 20});
  MeasuredWindow window{.start_ns = kStart, .length_ns = 1 * kNsPerSecond};
  std::vector<Sent> sent = generate(g);
  MeasuringSink sink;
  sink.set_window(window);
  for (const Sent& s : sent) deliver(sink, s, 1);
  MeasureReport r = sink.report();
  EXPECT_EQ(r.received, 10u);
  ASSERT_EQ(r.per_second.size(), 1u);
  EXPECT_EQ(r.per_second[0].received, 10u);
}

TEST(MeasuringSinkWindow, ClockSkewInTheWindowIsReceivedButHasNoLatency) {
  Generator g({.rate_pps = 10, .count = 2});
  std::vector<Sent> sent = generate(g);
  MeasuringSink sink;
  sink.set_window({.start_ns = kStart, .length_ns = kNsPerSecond});
  sink.deliver(sent[0].bytes.data(), uint32_t(sent[0].bytes.size()), sent[0].time_ns - 1);
  deliver(sink, sent[1], 7);
  MeasureReport r = sink.report();
  EXPECT_EQ(r.received, 2u);
  EXPECT_EQ(r.clock_skew, 1u);
  EXPECT_EQ(r.latency.count(), 1u);
  EXPECT_EQ(r.per_second[0].received, 2u);
  EXPECT_EQ(r.per_second[0].latency.count(), 1u);
}

TEST(MeasureReport, MergingTwoSinksEqualsOneSinkThatSawEverything) {
  Generator g({.flows = 4, .rate_pps = 10, .count = 40});
  MeasuredWindow window{.start_ns = kStart + 500 * kMs, .length_ns = 3 * kNsPerSecond};
  std::vector<Sent> sent = generate(g);
  MeasuringSink a, b, all;
  for (MeasuringSink* s : {&a, &b, &all}) s->set_window(window);
  for (size_t i = 0; i < sent.size(); ++i) {
    if (i % 7 == 3) continue;  // lost
    deliver(i % 2 ? a : b, sent[i], 100 + i);
    deliver(all, sent[i], 100 + i);
  }
  MeasureReport merged = a.report();
  merged.merge(b.report());
  MeasureReport want = all.report();
  EXPECT_EQ(merged.received, want.received);
  EXPECT_EQ(merged.received_per_flow, want.received_per_flow);
  EXPECT_EQ(merged.latency.buckets(), want.latency.buckets());
  ASSERT_EQ(merged.per_second.size(), want.per_second.size());
  for (size_t s = 0; s < want.per_second.size(); ++s) {
    EXPECT_EQ(merged.per_second[s].received, want.per_second[s].received);
    EXPECT_EQ(merged.per_second[s].latency.buckets(), want.per_second[s].latency.buckets());
  }
}

}  // namespace
}  // namespace gnf::wire
