// The NIC model and the CPU driver together, stepped by hand: rings, head/tail rules, drops,
// slot accounting and counters.
#include <gtest/gtest.h>

#include "harness.h"
#include "wire/generator.h"

using namespace gnf;
using gnf::test::plane_sum;
using gnf::test::Rig;
using gnf::test::VectorSource;

namespace {

std::vector<std::vector<uint8_t>> numbered_frames(uint32_t count, uint32_t flows = 1, uint32_t len = 60) {
  std::vector<std::vector<uint8_t>> frames;
  for (uint32_t i = 0; i < count; ++i) frames.push_back(test::udp_frame(len, uint16_t(1000 + i % flows), i));
  return frames;
}

driver::DriverOptions small_rings(uint32_t entries = 16) {
  driver::DriverOptions d;
  d.rx_ring_size = d.tx_ring_size = entries;
  d.burst = 4;
  return d;
}

// Port 0 receives the generator's traffic; l2fwd sends all of it out of port 1.
Rig generator_into_port0_out_of_port1(const wire::GeneratorOptions& g, const nic::PortOptions& in,
                                      const nic::PortOptions& out, const driver::DriverOptions& d) {
  std::vector<std::unique_ptr<wire::Source>> sources;
  sources.push_back(std::make_unique<wire::Generator>(g));
  sources.push_back(nullptr);
  nf::Params params;
  params.set("mode", nf::ParamValue{std::string("to"), 0});
  params.set("to_port", nf::ParamValue{int64_t(1), 0});
  return Rig(std::move(sources), {in, out}, d, {nf::NfSpec{"l2fwd", params}});
}

void expect_every_slot_in_one_place(const Rig& rig) {
  for (const auto& plane : rig.planes) {
    driver::SlotAudit a = plane->audit();
    EXPECT_TRUE(a.consistent()) << "free " << a.free << " rx " << a.in_rx_rings << " tx " << a.in_tx_rings
                                << " capacity " << a.capacity << " duplicates " << a.duplicates;
  }
}

}  // namespace

TEST(Rings, PacketsWrapTheRingsManyTimesAndLeaveInOrderByteForByte) {
  auto frames = numbered_frames(16 * 40);
  Rig rig(std::make_unique<VectorSource>(frames), nic::PortOptions{}, small_rings());
  rig.run_to_completion();
  ASSERT_EQ(rig.sink.frames.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) ASSERT_EQ(rig.sink.frames[i], frames[i]) << "frame " << i;
  expect_every_slot_in_one_place(rig);
}

TEST(Rings, TheNicNeverMovesTheHeadOntoTheTail) {
  // The driver never polls: the NIC fills every descriptor it was given (all but one) and then
  // drops, with DROP_EN, for lack of descriptors.
  Rig rig(std::make_unique<VectorSource>(numbered_frames(100)), nic::PortOptions{}, small_rings());
  for (int i = 0; i < 10'000; ++i) {
    rig.now_ns += 100;
    rig.port->poll(rig.now_ns);
  }
  const auto& regs = rig.port->regs().rx[0];
  EXPECT_EQ(regs.RDH, regs.RDT);
  EXPECT_EQ(rig.port->counters().rx_good_packets, 15u);
  EXPECT_EQ(rig.port->counters().rx_no_desc_drop, 85u);
  EXPECT_EQ(rig.port->counters().rx_queue_drops[0], 85u);
}

TEST(Rings, WithoutDropEnAStalledQueueBlocksTheWholePortAndOverflowsTheBuffer) {
  nic::PortOptions port;
  port.rx_queues = port.tx_queues = 2;
  port.rx_buffer_bytes = 16 * 1024;
  driver::DriverOptions d = small_rings();
  d.drop_en = false;
  Rig rig(std::make_unique<VectorSource>(numbered_frames(2000, 64)), port, d);
  // Only plane 1 is served; plane 0's ring fills and its next frame blocks queue 1 too.
  for (int i = 0; i < 20'000; ++i) {
    rig.now_ns += 100;
    rig.port->poll(rig.now_ns);
    rig.planes[1]->poll(rig.now_ns);
  }
  const auto& c = rig.port->counters();
  EXPECT_EQ(c.rx_no_desc_drop, 0u);
  EXPECT_GE(c.rx_no_desc_stall, 1u);
  EXPECT_GT(c.rx_missed, 0u);
  EXPECT_EQ(c.rx_queue_packets[0], 15u);
  // Queue 1 got little: everything behind the blocking frame waited, then overflowed.
  EXPECT_LT(c.rx_queue_packets[1], 100u);
}

TEST(Rings, AQueueStalledWithoutDropEnIsNoWorkForTheNicThread) {
  // The NIC thread counts a round busy when it moved frames (the model-bound share in gnf bench):
  // waiting on a stalled queue's first frame moves none.
  driver::DriverOptions d = small_rings();
  d.drop_en = false;
  Rig rig(std::make_unique<VectorSource>(numbered_frames(100)), nic::PortOptions{}, d);
  for (int i = 0; i < 10'000; ++i) rig.port->poll_rx(rig.now_ns += 100);
  EXPECT_EQ(rig.port->counters().rx_good_packets, 15u);
  EXPECT_GE(rig.port->counters().rx_no_desc_stall, 1u);
  EXPECT_FALSE(rig.port->poll_rx(rig.now_ns += 100));
}

TEST(Rings, WithDropEnAStalledQueueOnlyLosesItsOwnPackets) {
  nic::PortOptions port;
  port.rx_queues = port.tx_queues = 2;
  port.rx_buffer_bytes = 16 * 1024;
  Rig rig(std::make_unique<VectorSource>(numbered_frames(2000, 64)), port, small_rings());
  for (int i = 0; i < 20'000; ++i) {
    rig.now_ns += 100;
    rig.port->poll(rig.now_ns);
    rig.planes[1]->poll(rig.now_ns);
  }
  const auto& c = rig.port->counters();
  EXPECT_EQ(c.rx_missed, 0u);
  EXPECT_EQ(c.rx_queue_packets[0], 15u);
  EXPECT_EQ(c.rx_queue_drops[1], 0u);
  EXPECT_EQ(c.rx_queue_packets[0] + c.rx_queue_drops[0] + c.rx_queue_packets[1], 2000u);
}

TEST(Rings, EveryTxCompletionModeReturnsEverySlot) {
  for (auto mode : {driver::TxCompletion::HeadRegister, driver::TxCompletion::HeadWriteback,
                    driver::TxCompletion::DescWriteback}) {
    driver::DriverOptions d = small_rings();
    d.tx_completion = mode;
    auto frames = numbered_frames(1000);
    Rig rig(std::make_unique<VectorSource>(frames), nic::PortOptions{}, d);
    rig.run_to_completion();
    EXPECT_EQ(rig.sink.frames.size(), frames.size()) << int(mode);
    for (auto& plane : rig.planes) plane->poll(rig.now_ns);  // reclaim the last completions
    expect_every_slot_in_one_place(rig);
    driver::SlotAudit a = rig.planes[0]->audit();
    EXPECT_EQ(a.in_tx_rings, 0u) << int(mode);
  }
}

TEST(Rings, TailBatchingWritesTheTailsLessOftenWithoutLosingPackets) {
  auto run = [](uint32_t batch) {
    driver::DriverOptions d = small_rings(64);
    d.rx_tail_batch = d.tx_tail_batch = batch;
    d.burst = 1;
    Rig rig(std::make_unique<VectorSource>(numbered_frames(2000)), nic::PortOptions{}, d);
    rig.run_to_completion(1, 50);  // under one arrival per driver round: no drops
    EXPECT_EQ(rig.sink.frames.size(), 2000u);
    return plane_sum(rig, &driver::PlaneCounters::tail_writes);
  };
  uint64_t every = run(1), batched = run(8);
  EXPECT_GE(every, 2 * 2000u);
  EXPECT_LE(batched, every / 4);
}

TEST(Rings, RuntsAndOversizeFramesAreCountedAndDroppedAtTheMac) {
  std::vector<std::vector<uint8_t>> frames = {std::vector<uint8_t>(59, 1), test::udp_frame(60, 1, 1),
                                              std::vector<uint8_t>(1515, 2), std::vector<uint8_t>(0),
                                              test::udp_frame(1514, 2, 2)};
  Rig rig(std::make_unique<VectorSource>(frames), nic::PortOptions{}, small_rings());
  rig.run_to_completion();
  EXPECT_EQ(rig.port->counters().rx_runt, 2u);
  EXPECT_EQ(rig.port->counters().rx_oversize, 1u);
  EXPECT_EQ(rig.sink.frames.size(), 2u);
}

TEST(Rings, TenMillionPacketsWithDropsLoseOrDoubleNoSlotAndCountersAddUp) {
  // Port 0 (100G, 4 queues) receives 10 M frames and l2fwd sends them all to port 1 (10G):
  // - the NIC polls 40 times per driver round, so rx rings overflow (no-descriptor drops);
  // - port 1's line is 10x slower than the arrivals, so its tx rings fill (tx_ring_full drops).
  wire::GeneratorOptions g;
  g.flows = 256;
  g.count = 10'000'000;
  g.line_gbps = 100;
  nic::PortOptions fast, slow;
  fast.speed_gbps = 100;
  slow.speed_gbps = 10;
  fast.rx_queues = fast.tx_queues = slow.rx_queues = slow.tx_queues = 4;
  slow.tx_buffer_bytes = 16 * 1024;
  driver::DriverOptions d;
  d.rx_ring_size = d.tx_ring_size = 64;
  d.burst = 16;
  Rig rig = generator_into_port0_out_of_port1(g, fast, slow, d);
  rig.sinks[1]->keep = false;
  rig.run_to_completion(40, 20);

  uint64_t offered = rig.source->counters().frames;
  ASSERT_EQ(offered, 10'000'000u);
  const auto& in = rig.ports[0]->counters();
  const auto& out = rig.ports[1]->counters();
  EXPECT_GT(in.rx_no_desc_drop, 0u);
  EXPECT_GT(plane_sum(rig, &driver::PlaneCounters::tx_ring_full), 0u);
  EXPECT_GT(out.tx_good_packets, 0u);
  uint64_t drops = in.rx_missed + in.rx_no_desc_drop + plane_sum(rig, &driver::PlaneCounters::tx_ring_full) +
                   plane_sum(rig, &driver::PlaneCounters::nf_drops);
  EXPECT_EQ(offered, out.tx_good_packets + drops);
  EXPECT_EQ(rig.sinks[1]->count, out.tx_good_packets);
  expect_every_slot_in_one_place(rig);
}

TEST(Rings, WaitingOnAFullTxRingLosesNothingAndPushesBackToTheNic) {
  // 20,000 frames at 100G into port 0, all sent out of port 1 at 10G: with tx_full = wait and no
  // DROP_EN, the driver holds packets, the rx ring fills, the port stalls and flow control pauses
  // the sender. Nothing is lost; every slot is somewhere.
  wire::GeneratorOptions g;
  g.flows = 8;
  g.count = 20'000;
  g.line_gbps = 100;
  nic::PortOptions fast, slow;
  fast.speed_gbps = 100;
  fast.flow_control = true;
  slow.speed_gbps = 10;
  slow.tx_buffer_bytes = 16 * 1024;
  driver::DriverOptions d = small_rings(64);
  d.drop_en = false;
  d.tx_full_wait = true;
  Rig rig = generator_into_port0_out_of_port1(g, fast, slow, d);
  rig.sinks[1]->keep = false;
  bool saw_backlog = false;
  for (int i = 0; i < 10'000'000 && !rig.drained(); ++i) {
    rig.step(1, 20);
    if (i % 97 == 0) saw_backlog |= rig.planes[0]->audit().in_driver > 0;
  }
  EXPECT_TRUE(saw_backlog);
  EXPECT_EQ(rig.sinks[1]->count, 20'000u);
  EXPECT_EQ(plane_sum(rig, &driver::PlaneCounters::tx_ring_full), 0u);
  EXPECT_GT(rig.ports[0]->counters().rx_pause, 0u);
  expect_every_slot_in_one_place(rig);
}

TEST(Rings, FramesThatArrivedWhileTheModelsThreadWasAwayWaitForRoomInsteadOfDropping) {
  // The VM takes the NIC-model thread's core for a millisecond at times; the hardware's DMA would
  // have kept the buffer draining meanwhile. 2,000 frames arrive in that millisecond, ten times
  // what the buffer holds: they wait on the wire for room, none is lost, and the hold is counted;
  // so is the tx side's absence (PortCounters::tx_stalls).
  wire::GeneratorOptions g;
  g.count = 6'000;
  g.rate_pps = 2e6;
  nic::PortOptions port;
  port.rx_buffer_bytes = 16 * 1024;
  driver::DriverOptions d = small_rings(64);
  d.burst = 16;
  d.drop_en = false;  // the queue waits for descriptors: only the buffer can lose frames
  Rig rig(std::make_unique<wire::Generator>(g), port, d);
  const uint64_t away_from = rig.now_ns + 1'000'000, away_to = away_from + 1'000'000;
  for (uint64_t i = 0; i < 10'000'000 && !rig.drained(); ++i) {
    rig.now_ns += 100;
    if (rig.now_ns < away_from || rig.now_ns >= away_to) rig.port->poll(rig.now_ns);
    for (auto& plane : rig.planes) plane->poll(rig.now_ns);
  }
  const auto& c = rig.port->counters();
  EXPECT_EQ(c.rx_missed, 0u);
  EXPECT_GT(c.wire_held_frames, 0u);
  EXPECT_GT(c.wire_late_frames, 1'000u);
  EXPECT_EQ(rig.sink.frames.size(), 6'000u);
}

TEST(Rings, TheTxSidesAbsenceWhileFramesWaitIsCountedAsAStall) {
  // The driver is away first (the rx ring fills), then the NIC-model thread for a millisecond
  // while the driver moves the ring's frames into its tx ring: the first tx poll back finds them
  // waiting, the one stall a real NIC, which fetches as soon as TDT moves, would not have had.
  wire::GeneratorOptions g;
  g.count = 4'000;
  g.rate_pps = 2e6;
  nic::PortOptions port;
  driver::DriverOptions d = small_rings(64);
  d.drop_en = false;
  Rig rig(std::make_unique<wire::Generator>(g), port, d);
  const uint64_t driver_away = rig.now_ns + 500'000, nic_away = driver_away + 200'000, back = nic_away + 1'000'000;
  for (uint64_t i = 0; i < 10'000'000 && !rig.drained(); ++i) {
    rig.now_ns += 100;
    if (rig.now_ns < nic_away || rig.now_ns >= back) rig.port->poll(rig.now_ns);
    if (rig.now_ns < driver_away || rig.now_ns >= nic_away)
      for (auto& plane : rig.planes) plane->poll(rig.now_ns);
  }
  const auto& c = rig.port->counters();
  EXPECT_EQ(rig.sink.frames.size(), 4'000u);
  EXPECT_EQ(c.tx_stalls, 1u);
  EXPECT_GT(c.tx_stalled_frames, 16u);
  EXPECT_GE(c.tx_stall_max_ns, 1'000'000u);
  EXPECT_LT(c.tx_stall_max_ns, 1'001'000u);
}

TEST(Rings, AnOverloadedPortStillDropsAtItsBufferWhenItsThreadKeepsUp) {
  // The hold is for frames the model itself was late for: frames that find the buffer full while
  // the thread polls on time are lost there, as on the hardware.
  wire::GeneratorOptions g;
  g.count = 20'000;
  g.line_gbps = 100;
  nic::PortOptions port;
  port.speed_gbps = 100;
  port.rx_buffer_bytes = 16 * 1024;
  driver::DriverOptions d = small_rings(64);
  d.drop_en = false;
  Rig rig(std::make_unique<wire::Generator>(g), port, d);
  rig.run_to_completion(20, 100);  // the driver polls once per 20 NIC polls: it falls behind
  const auto& c = rig.port->counters();
  EXPECT_GT(c.rx_missed, 0u);
  EXPECT_EQ(c.wire_held_frames, 0u);
  EXPECT_EQ(c.tx_stalls, 0u);  // polled every 100 ns: its tx side was never away
}
