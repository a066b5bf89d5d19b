// A looped-back port (calibration): what the rx buffer holds goes straight to the port's own tx
// line, every frame, in order, never sooner than both its serialisations allow.
#include <gtest/gtest.h>

#include <vector>

#include "harness.h"
#include "nic/pacing.h"
#include "wire/generator.h"
#include "wire/stamp.h"

using namespace gnf;

TEST(Loopback, DeliversEveryFrameInOrderNoSoonerThanItsTwoSerialisations) {
  // Line rate on a 10 Gbit/s port, three sizes, four flows over two queues.
  wire::GeneratorOptions g{.sizes = {64, 1518, 300}, .flows = 4, .line_gbps = 10, .count = 3000};
  nic::PortOptions options;
  options.rx_queues = options.tx_queues = 2;
  options.loopback = true;
  nic::fill_reta_round_robin(options.rss, 2);

  // The same schedule twice: once to keep the frames, once to feed the port.
  const uint64_t start_ns = 1'000'000;
  wire::Generator reference(g);
  reference.start(start_ns);
  std::vector<std::vector<uint8_t>> sent;
  for (wire::Frame f; reference.next(f) == wire::Next::Frame;) sent.emplace_back(f.data, f.data + f.len);

  wire::Generator source(g);
  test::CollectSink sink;
  nic::Port port(options, &source, &sink);
  port.start(start_ns);
  uint64_t now = start_ns;
  for (int i = 0; i < 1'000'000 && !port.rx_drained(); ++i) {
    now += 200;
    port.poll(now);
  }
  ASSERT_TRUE(port.rx_drained());

  ASSERT_EQ(sink.frames.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    ASSERT_EQ(sink.frames[i], sent[i]) << "frame " << i;
    std::optional<wire::Stamp> stamp = wire::decode_stamp(sink.frames[i].data(), uint32_t(sink.frames[i].size()));
    ASSERT_TRUE(stamp);
    // In on the rx line, out on the tx line: each takes the frame's whole wire time.
    uint64_t wire_ns = nic::wire_time_ps(uint32_t(sent[i].size()), options.speed_gbps) / 1000;
    EXPECT_GE(sink.times[i] - stamp->send_time_ns, 2 * wire_ns) << "frame " << i;
    // Paced: the tx line carries one frame at a time (times are rounded down to ns).
    if (i) {
      EXPECT_GE(sink.times[i] - sink.times[i - 1] + 1, wire_ns) << "frame " << i;
    }
  }

  const nic::PortCounterSnapshot c = port.counters();
  EXPECT_EQ(c.rx_good_packets, sent.size());
  EXPECT_EQ(c.tx_good_packets, sent.size());
  EXPECT_EQ(c.rx_good_bytes, c.tx_good_bytes);
  EXPECT_EQ(c.rx_missed, 0u);
  EXPECT_EQ(c.rx_queue_packets[0] + c.rx_queue_packets[1], sent.size());
  EXPECT_GT(c.rx_queue_packets[1], 0u);  // RSS still spreads the flows
  // No rings and no driver: nothing crossed the bus.
  const nic::DmaCounterValues d = port.dma_counters();
  EXPECT_EQ(d.packet_bytes_to_memory + d.packet_bytes_from_memory + d.desc_bytes_to_memory +
                d.desc_bytes_from_memory,
            0u);
}

TEST(Loopback, TheTxSideAloneMovesNothing) {
  nic::PortOptions options;
  options.loopback = true;
  wire::Generator source({.count = 10});
  test::CollectSink sink;
  nic::Port port(options, &source, &sink);
  port.start(1000);
  EXPECT_FALSE(port.poll_tx(1'000'000));
  EXPECT_EQ(sink.count, 0u);
  EXPECT_TRUE(port.poll_rx(1'000'000));
  EXPECT_EQ(sink.count, 10u);
}

TEST(Loopback, AModelHeldUpForMillisecondsCatchesUpWithoutLosingFramesItWasLateFor) {
  // Half of a 10 Gbit/s line of 64 B frames into a buffer of ~1,000 of them; the NIC model is not
  // polled for 2 ms (a VM taking its core), ~15,000 frames' arrival. Taken in all at once they
  // would overflow the buffer; taken in as the DMA moves them on, none is lost. They were late,
  // and say so.
  wire::GeneratorOptions g{.sizes = {64}, .flows = 4, .rate_pps = 7.44e6, .count = 60'000};
  nic::PortOptions options;
  options.loopback = true;
  options.rx_buffer_bytes = 64 * 1024;
  wire::Generator source(g);
  test::CollectSink sink;
  nic::Port port(options, &source, &sink);
  const uint64_t start_ns = 1'000'000;
  port.start(start_ns);
  uint64_t now = start_ns;
  for (int i = 0; i < 1'000'000 && !port.rx_drained(); ++i) {
    now += i == 1000 ? 2'000'000 : 200;
    port.poll(now);
  }
  ASSERT_TRUE(port.rx_drained());
  const nic::PortCounterSnapshot c = port.counters();
  EXPECT_EQ(c.rx_missed, 0u);
  EXPECT_EQ(sink.count, 60'000u);
  EXPECT_GT(c.wire_late_frames, 10'000u);
}
