// Whether anything on a port's receive side waits for the thread that polls it
// (QueueGroup::rx_quiet): only then may that thread back off (util/idle_backoff.h). A wire whose
// next frame is due at a time it fixed (a generator) keeps its thread awake until its last frame;
// a live link with nothing to say does not.
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "harness.h"

using namespace gnf;

namespace {

nic::PortOptions looped_back() {
  nic::PortOptions options;
  options.loopback = true;
  nic::fill_reta_round_robin(options.rss, 1);
  return options;
}

// A live source with nothing to say until the test pushes a frame.
class QuietLink : public wire::Source {
 public:
  void start(uint64_t) override {}
  wire::Next next(wire::Frame& out) override {
    if (waiting.empty()) return wire::Next::Later;
    current = std::move(waiting.front());
    waiting.pop_front();
    out = wire::Frame{current.data(), uint32_t(current.size()), 0};
    return wire::Next::Frame;
  }
  wire::SourceCounters counters() const override { return {}; }
  std::string describe() const override { return "quiet link"; }

  std::deque<std::vector<uint8_t>> waiting;
  std::vector<uint8_t> current;
};

constexpr uint64_t kStartNs = 1'000'000;
constexpr uint64_t kMs = 1'000'000;

}  // namespace

TEST(RxQuiet, AGeneratorsNextFrameKeepsItsThreadAwakeUntilTheLastIsSent) {
  wire::Generator source({.rate_pps = 1000, .count = 3});  // a frame a millisecond
  test::CollectSink sink;
  nic::Port port(looped_back(), &source, &sink);
  port.start(kStartNs);
  port.poll(kStartNs + kMs / 2);
  EXPECT_EQ(sink.count, 1u);
  EXPECT_FALSE(port.group(0).rx_quiet()) << "the second frame is due in half a millisecond";
  port.poll(kStartNs + 3 * kMs / 2);
  EXPECT_EQ(sink.count, 2u);
  EXPECT_FALSE(port.group(0).rx_quiet());
  port.poll(kStartNs + 5 * kMs / 2);
  port.poll(kStartNs + 3 * kMs);
  EXPECT_EQ(sink.count, 3u);
  EXPECT_TRUE(port.rx_drained());
  EXPECT_TRUE(port.group(0).rx_quiet());
}

TEST(RxQuiet, ALiveLinkWithNothingToSayLetsItsThreadRest) {
  QuietLink link;
  test::CollectSink sink;
  nic::Port port(looped_back(), &link, &sink);
  port.start(kStartNs);
  port.poll(kStartNs + 1000);
  EXPECT_TRUE(port.group(0).rx_quiet());
  // A frame the thread has not looked for yet waits in the link (the kernel's socket) for it.
  link.waiting.push_back(test::udp_frame(60, 1, 7));
  EXPECT_TRUE(port.group(0).rx_quiet());
  port.poll(kStartNs + 2000);
  EXPECT_EQ(sink.count, 1u);
  EXPECT_TRUE(port.group(0).rx_quiet());
  EXPECT_FALSE(port.rx_drained());  // quiet, not finished: a link never is by itself
}
