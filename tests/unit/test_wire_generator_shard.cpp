// Generator shards: split into any number of shards by flow, a schedule sends exactly the frames
// (bytes and send times), counts and window counts that one sender would.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "wire/generator.h"

namespace gnf::wire {
namespace {

struct Sent {
  uint64_t time_ns;
  std::vector<uint8_t> bytes;
  bool operator==(const Sent&) const = default;
};

std::vector<Sent> whole(const GeneratorOptions& o, uint64_t start_ns, const MeasuredWindow* window = nullptr) {
  Generator g(o);
  if (window) g.set_window(*window);
  g.start(start_ns);
  std::vector<Sent> out;
  Frame f;
  while (g.next(f) == Next::Frame) out.push_back({f.time_ns, std::vector<uint8_t>(f.data, f.data + f.len)});
  return out;
}

// Every shard's frames, merged by send time (shards' frames never share one).
std::vector<Sent> sharded(Generator& g, const std::vector<uint32_t>& shard_of_flow, uint32_t shards, uint64_t start_ns,
                          const MeasuredWindow* window = nullptr) {
  std::vector<GeneratorShard*> parts = g.split(shard_of_flow, shards);
  if (window) g.set_window(*window);
  g.start(start_ns);
  std::vector<Sent> out;
  for (GeneratorShard* s : parts) {
    for (; !s->done(); s->pop()) {
      std::vector<uint8_t> bytes(s->len());
      s->write_front(bytes.data());
      out.push_back({s->send_ns(), bytes});
    }
    g.shard_finished();
  }
  std::sort(out.begin(), out.end(), [](const Sent& a, const Sent& b) { return a.time_ns < b.time_ns; });
  return out;
}

TEST(GeneratorShard, ShardsByFlowSendExactlyTheFramesOfOneSender) {
  for (int ip : {4, 6}) {
    GeneratorOptions o{.ip_version = ip, .sizes = {128, 200, 1518}, .flows = 7, .rate_gbps_l1 = 5, .count = 2000};
    const std::vector<Sent> want = whole(o, 1000);
    Generator g(o);
    ASSERT_TRUE(g.splittable());
    std::vector<uint32_t> shard_of_flow = {0, 1, 2, 0, 1, 2, 0};
    EXPECT_EQ(sharded(g, shard_of_flow, 3, 1000), want) << "IPv" << ip;
    EXPECT_EQ(g.counters().frames, 2000u);
    std::vector<uint64_t> per_flow(7, 0);
    for (uint64_t i = 0; i < 2000; ++i) per_flow[i % 7]++;
    EXPECT_EQ(g.sent_per_flow(), per_flow);
    EXPECT_TRUE(g.finished());
  }
}

TEST(GeneratorShard, AShardWithoutFlowsSendsNothingAndTheOthersStillSendEverything) {
  GeneratorOptions o{.flows = 4, .rate_pps = 1e6, .duration_ns = 50'000};
  const std::vector<Sent> want = whole(o, 0);
  Generator g(o);
  EXPECT_EQ(sharded(g, {0, 0, 2, 2}, 3, 0), want);
  EXPECT_EQ(want.size(), 50u);
}

TEST(GeneratorShard, WindowCountsSplitAsTheFramesDo) {
  GeneratorOptions o{.sizes = {64, 1518}, .flows = 5, .rate_gbps_l1 = 1, .duration_ns = 3'000'000'000};
  const MeasuredWindow window{500'000'000, 2'000'000'000};
  Generator one(o);
  one.set_window(window);
  one.start(0);
  Frame f;
  while (one.next(f) == Next::Frame) {
  }
  Generator g(o);
  sharded(g, {1, 0, 1, 0, 1}, 2, 0, &window);
  EXPECT_EQ(g.sent_in_window_per_flow(), one.sent_in_window_per_flow());
  EXPECT_EQ(g.sent_in_window_per_second(), one.sent_in_window_per_second());
  EXPECT_EQ(g.sent_per_flow(), one.sent_per_flow());
}

TEST(GeneratorShard, OverlappingFramesOrLongPeriodsCannotBeSplit) {
  // 1.2 Mpps of 64 and 1518 B frames on a 10 G line: a 1518 B frame takes 1.23 us, the spacing is
  // 0.83 us. At 0.5 Mpps (2 us) none overlap.
  EXPECT_FALSE(Generator({.sizes = {64, 1518}, .rate_pps = 1.2e6}).splittable());
  EXPECT_TRUE(Generator({.sizes = {64, 1518}, .rate_pps = 0.5e6}).splittable());
  // 65521 flows (prime) and 97 sizes: a period of 6.4 M frames.
  std::vector<uint32_t> sizes(97);
  for (uint32_t i = 0; i < sizes.size(); ++i) sizes[i] = 64 + i;
  EXPECT_FALSE(Generator({.sizes = sizes, .flows = 65521}).splittable());
}

TEST(GeneratorShard, SendTimesDoNotDriftOverAHundredBillionBytes) {
  // 8.11 Gbit/s: 0.98643... ns per byte, no exact binary form. The send time of the frame after
  // 10^11 bytes is that many bytes' time, to the nanosecond.
  GeneratorOptions o{.sizes = {1518}, .rate_gbps_l1 = 8.11};
  auto plan = std::make_shared<const GeneratorPlan>(o);
  const uint64_t frames = 100'000'000'000 / 1538;
  const uint64_t bytes = frames * 1538;
  EXPECT_EQ(plan->send_offset_ns(frames, bytes), uint64_t(std::llround((long double)bytes * 8 / 8.11L)));
}

}  // namespace
}  // namespace gnf::wire
