// One-way measurements on the bypass path (driver.one_way): the GPU as the sink (rx) and the
// GPU's departure time in the stamp (tx). Every frame is still accounted for, and each side's
// delay is shorter than the whole path's.
#include <cstdio>

#include "gpu_rig.h"

using namespace gnf;
using namespace gnf::test;

namespace {

constexpr uint64_t kFrames = 200'000;

ctl::Config one_way_config(driver::OneWay way, uint64_t frames, double rate_gbps) {
  ctl::Config c = two_ports(ctl::PathKind::Bypass, 2, frames, rate_gbps, 64);
  c.ports[0].source.generator.sizes = {300};
  c.driver.one_way = way;
  return c;
}

uint64_t nic_drops(const path::Snapshot& s) {
  uint64_t n = s.driver.tx_ring_full;
  for (const path::PortStats& p : s.ports) n += p.rx_missed + p.rx_no_desc_drop;
  return n;
}

struct Outcome {
  wire::MeasureReport measured;  // the GPU sink's (rx) or the out port's
  path::Snapshot snapshot;
  uint64_t worst_uncertainty_ns = 0;  // the GPU clock's offset, over the run
};

Outcome run(driver::OneWay way, uint64_t frames = kFrames, double rate_gbps = 1.0) {
  path::Pipeline pipeline(one_way_config(way, frames, rate_gbps));
  EXPECT_TRUE(run_to_end(pipeline)) << driver::one_way_name(way);
  Outcome o;
  o.snapshot = pipeline.snapshot();
  auto reports = pipeline.measurements();
  EXPECT_EQ(reports.size(), way == driver::OneWay::Rx ? 3u : 2u);
  o.measured = reports.back();
  if (way == driver::OneWay::Rx) {
    EXPECT_EQ(reports[1].received, 0u) << "the GPU sink sent frames on";
  }
  EXPECT_EQ(o.snapshot.offered(), o.snapshot.accounted()) << driver::one_way_name(way);
  expect_slots_consistent(pipeline, driver::one_way_name(way));
  if (way != driver::OneWay::Off) {
    std::optional<driver::GpuClockStats> clock = pipeline.gpu_clock();
    EXPECT_TRUE(clock);
    if (clock) {
      EXPECT_LT(clock->worst_uncertainty_ns, 50'000u);
      o.worst_uncertainty_ns = clock->worst_uncertainty_ns;
    }
  }
  const wire::MeasureReport& m = o.measured;
  std::printf("one-way %s: %llu measured, %llu dropped, latency min %llu p50 %llu p99 %llu ns, clock skew %llu (up to %llu ns, uncertainty %llu ns)\n",
              driver::one_way_name(way), (unsigned long long)m.received, (unsigned long long)nic_drops(o.snapshot),
              (unsigned long long)m.latency.min(), (unsigned long long)m.latency.percentile(50),
              (unsigned long long)m.latency.percentile(99), (unsigned long long)m.clock_skew,
              (unsigned long long)m.clock_skew_max_ns, (unsigned long long)o.worst_uncertainty_ns);
  return o;
}

}  // namespace

TEST(OneWay, RxTheGpuIsTheSinkAndNotesEveryFrameItTakesIn) {
  GNF_REQUIRE_GPU();
  const Outcome rx = run(driver::OneWay::Rx);
  const path::Snapshot& s = rx.snapshot;
  EXPECT_EQ(s.driver.consumed, s.driver.rx_packets);
  EXPECT_EQ(s.driver.unrecorded, 0u);
  EXPECT_EQ(s.driver.tx_packets, 0u);
  EXPECT_EQ(rx.measured.received + nic_drops(s), kFrames);
  EXPECT_EQ(rx.measured.reordered, 0u);
  EXPECT_EQ(rx.measured.duplicates, 0u);
  EXPECT_EQ(rx.measured.clock_skew, 0u) << "the GPU saw frames before they were sent: the clock is off";
  EXPECT_GT(rx.measured.latency.min(), 0u);
}

// The tx side's shortest true delay (a tail across PCIe, the agent's round, the wire) is about as
// long as the clock offset's uncertainty (half a calibration ping's round trip, 2-5 us on the H100
// under load), so a few frames may seem to arrive before they left: by no more than that
// uncertainty plus the drift between two calibrations (about 20 ppm of 10 ms on the H100).
TEST(OneWay, TxFramesCarryTheirDepartureAndEveryOneArrives) {
  GNF_REQUIRE_GPU();
  const Outcome tx = run(driver::OneWay::Tx);
  EXPECT_EQ(tx.measured.received + nic_drops(tx.snapshot), kFrames);
  EXPECT_EQ(tx.measured.reordered, 0u);
  EXPECT_LT(tx.measured.clock_skew, kFrames / 100) << "many frames arrived before the GPU handed them over";
  constexpr uint64_t kDriftAllowanceNs = 1'000;
  EXPECT_LE(tx.measured.clock_skew_max_ns, tx.worst_uncertainty_ns + kDriftAllowanceNs)
      << "a frame arrived before the GPU handed it over by more than the clock's uncertainty: the offset is off";
  EXPECT_GT(tx.measured.latency.min(), 0u);
}

// The same traffic timed from the wire to the GPU, from the GPU to the wire and end to end: each
// side alone is shorter than the whole (a clock offset off by more than a side would break this).
// At low load: as the sink the GPU writes 32 bytes per frame across PCIe, which at higher loads
// slows its polling enough to queue frames (see bench/results, one-way).
TEST(OneWay, AtLowLoadEachSideTakesLessThanTheWholePath) {
  GNF_REQUIRE_GPU();
  constexpr uint64_t kFew = 40'000;
  constexpr double kLowGbps = 0.1;  // about 40,000 frames/s of 300 B
  const uint64_t whole = run(driver::OneWay::Off, kFew, kLowGbps).measured.latency.percentile(50);
  const uint64_t rx = run(driver::OneWay::Rx, kFew, kLowGbps).measured.latency.percentile(50);
  const uint64_t tx = run(driver::OneWay::Tx, kFew, kLowGbps).measured.latency.percentile(50);
  EXPECT_LT(rx, whole);
  EXPECT_LT(tx, whole);
  EXPECT_GT(rx, 0u);
  EXPECT_GT(tx, 0u);
}
