// A live source (a Linux interface): it often has nothing now, it is never exhausted on its own,
// and the port keeps asking until the run stops it.
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "harness.h"

using namespace gnf;

namespace {

// Frames appear when the test pushes them; in between the source has nothing yet.
class TrickleSource : public wire::Source {
 public:
  void start(uint64_t) override {}
  wire::Next next(wire::Frame& out) override {
    ++calls;
    if (waiting.empty()) return wire::Next::Later;
    current = std::move(waiting.front());
    waiting.pop_front();
    out = wire::Frame{current.data(), uint32_t(current.size()), 0};
    counters_.frames++;
    return wire::Next::Frame;
  }
  wire::SourceCounters counters() const override { return counters_; }
  std::string describe() const override { return "trickle"; }

  std::deque<std::vector<uint8_t>> waiting;
  std::vector<uint8_t> current;
  uint64_t calls = 0;

 private:
  wire::SourceCounters counters_;
};

nic::PortOptions looped_back() {
  nic::PortOptions options;
  options.loopback = true;
  nic::fill_reta_round_robin(options.rss, 1);
  return options;
}

// A looped-back port (no driver needed) on a live source, started.
class LiveSource : public ::testing::Test {
 protected:
  LiveSource() { port.start(now); }
  // Polls `rounds` times, 1 us apart.
  void run(int rounds) {
    for (int i = 0; i < rounds; ++i) port.poll(now += 1000);
  }

  TrickleSource source;
  test::CollectSink sink;
  nic::Port port{looped_back(), &source, &sink};
  uint64_t now = 1'000'000;
};

}  // namespace

TEST_F(LiveSource, NothingYetIsNotTheEndAFrameThatComesLaterIsTaken) {
  run(100);
  EXPECT_FALSE(port.rx_drained());
  EXPECT_GE(source.calls, 100u);  // asked on every round

  source.waiting.push_back(test::udp_frame(60, 1, 7));
  run(10);
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0], test::udp_frame(60, 1, 7));
  EXPECT_FALSE(port.rx_drained());
}

TEST_F(LiveSource, StoppingTheSourceDrainsThePortAndItIsNotAskedAgain) {
  run(10);
  port.stop_source();
  run(10);
  EXPECT_TRUE(port.rx_drained());
  uint64_t calls = source.calls;
  source.waiting.push_back(test::udp_frame(60, 1, 7));
  run(10);
  EXPECT_EQ(source.calls, calls);
  EXPECT_TRUE(sink.frames.empty());
}

TEST_F(LiveSource, TheSinkIsFlushedAtTheEndOfEveryRoundAfterItsFrames) {
  for (uint16_t i = 0; i < 3; ++i) source.waiting.push_back(test::udp_frame(60, i, i));
  for (uint64_t round = 1; round <= 20; ++round) {
    run(1);
    EXPECT_EQ(sink.flushes, round);  // rounds that sent nothing too: the sink may hold a backlog
    EXPECT_EQ(sink.unflushed, 0u);   // nothing delivered after the round's flush
  }
  EXPECT_EQ(sink.count, 3u);
}
