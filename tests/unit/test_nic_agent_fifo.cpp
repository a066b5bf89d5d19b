// The wire side of a port whose DMA is the GPU agent (nic/gpu_agent.cu), without a GPU: the test
// stands in for the agent's rx side and takes whatever each poll published. The agent reads a
// round's frame bytes before it has their records (its rx window: from where the last round's
// frames ended up to `produced_bytes`), so this checks what that relies on: each queue's FIFO holds
// its frames in order, each where the one before it ended or, when it did not fit before the byte
// ring's end, at the ring's start; and `produced_bytes` is where the last published frame ends.
#include <gtest/gtest.h>

#include <vector>

#include "nic/port.h"
#include "sync/ordering.h"
#include "wire/generator.h"

using namespace gnf;

TEST(AgentFifo, EachFrameLiesWhereTheLastEndedAndProducedBytesIsTheLastOnesEnd) {
  nic::PortOptions options;
  options.rx_queues = options.tx_queues = 2;
  options.rx_buffer_bytes = 24 * 1024;  // FIFOs of 32 KiB: their byte rings wrap every few polls
  options.flow_control = true;          // a full buffer holds the sender back: every frame arrives
  nic::fill_reta_round_robin(options.rss, 2);
  wire::Generator generator({.sizes = {64, 1518, 300, 65}, .flows = 8, .rate_gbps_l1 = 10, .count = 20000});
  nic::Port port(options, nic::PortWiring{&generator, &generator, {nullptr}, nic::DmaSide::GpuAgent, mem::Domain::Host});
  port.start(0);

  struct Queue {
    nic::FrameFifoRef fifo;
    uint32_t consumed = 0;
    uint32_t end = 0;  // free-running: where the last frame taken ended
    uint64_t frames = 0, skips = 0;
  };
  std::vector<Queue> queues;
  for (uint32_t g = 0; g < port.group_count(); ++g)
    for (uint16_t q : port.group(g).rx_queues()) queues.push_back(Queue{port.group(g).rx_fifo(q / port.group_count())});
  ASSERT_EQ(queues.size(), 2u);

  uint64_t taken = 0;
  for (uint64_t now = 0; now < 100'000'000 && taken < 20000; now += 5'000) {
    port.poll(now);
    for (Queue& q : queues) {
      const uint32_t produced = load_acquire_sys(q.fifo.produced);
      const uint32_t ring = q.fifo.byte_mask + 1;
      for (uint32_t i = q.consumed; i != produced; ++i) {
        const nic::FifoRecord& r = q.fifo.record(i);
        const uint32_t start_of_ring = q.end + (ring - (q.end & q.fifo.byte_mask)) % ring;
        if (r.position == start_of_ring && r.position != q.end) {
          // Moved to the start: it would not have fitted before the end.
          EXPECT_GT((q.end & q.fifo.byte_mask) + nic::fifo_align(r.len), ring) << "frame " << i;
          ++q.skips;
        } else {
          ASSERT_EQ(r.position, q.end) << "frame " << i << " does not start where the one before it ended";
        }
        q.end = r.position + nic::fifo_align(r.len);
        ++q.frames;
      }
      if (produced != q.consumed) {
        EXPECT_EQ(*q.fifo.produced_bytes(), q.end);
      }
      taken += produced - q.consumed;
      q.consumed = produced;
      store_release_sys(q.fifo.consumed, produced);
    }
  }
  EXPECT_EQ(taken, 20000u) << "missed " << port.counters().rx_missed;
  for (const Queue& q : queues) {
    EXPECT_GT(q.frames, 0u);
    EXPECT_GT(q.skips, 0u) << "the byte ring never wrapped";
    EXPECT_GT(q.end, 4 * (q.fifo.byte_mask + 1));
  }
}
