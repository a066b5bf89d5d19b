// The same traffic through every data path gives the same result: the pcap oracle across cpu,
// the three staged modes and bypass, and flow order over many rings on the staged path.
#include "gpu_rig.h"

using namespace gnf;
using namespace gnf::test;

TEST(GpuPaths, ThePcapComesOutOfEveryPathByteIdenticalToTheCpuPath) {
  GNF_REQUIRE_GPU();
  // Input: 5000 generated frames of mixed sizes in 16 flows.
  const std::string input = generated_pcap("in.pcap", {64, 128, 594, 1518, 200}, 16, 5000);
  std::vector<std::vector<uint8_t>> reference;
  for (const PathVariant& v : kPathVariants) {
    ctl::Config c;
    ctl::PortSpec port;
    nic::fill_reta_round_robin(port.nic.rss, 1);
    c.ports.push_back(port);
    c.nfs.push_back(l2fwd("reflect", "swap"));
    // l2fwd's counter 0: forwarded.
    auto frames = pcap_through(c, v, 0, input, 0, 5000);
    if (reference.empty()) {
      ASSERT_EQ(frames.size(), 5000u) << v.name;
      reference = frames;
      continue;
    }
    ASSERT_EQ(frames.size(), reference.size()) << v.name;
    for (size_t i = 0; i < frames.size(); ++i) ASSERT_EQ(frames[i], reference[i]) << v.name << ", frame " << i;
  }
  std::filesystem::remove(input);
}

class StagedModes : public ::testing::TestWithParam<driver::StagedMode> {};

TEST_P(StagedModes, EightRingsKeepEveryFlowInOrderWithBurstsInFlight) {
  GNF_REQUIRE_GPU();
  ctl::Config c = two_ports(ctl::PathKind::Staged, 8, 200'000, 2.0);
  c.driver.staged_mode = GetParam();
  c.driver.staged_depth = 4;
  path::Pipeline pipeline(c);
  ASSERT_TRUE(run_to_end(pipeline));
  path::Snapshot s = pipeline.snapshot();
  auto reports = pipeline.measurements();
  const char* mode = driver::staged_mode_name(GetParam());
  EXPECT_EQ(s.offered(), s.accounted()) << mode;
  EXPECT_EQ(reports[1].reordered, 0u) << mode;
  EXPECT_EQ(reports[1].duplicates, 0u) << mode;
  EXPECT_GT(reports[1].received, 0u) << mode;
  expect_slots_consistent(pipeline, mode);
  std::printf("staged %s, 8 rings: %llu of 200000 delivered, latency p50 %llu ns\n", mode,
              (unsigned long long)reports[1].received, (unsigned long long)reports[1].latency.percentile(50));
}

INSTANTIATE_TEST_SUITE_P(Modes, StagedModes,
                         ::testing::Values(driver::StagedMode::ZeroCopy, driver::StagedMode::Copy,
                                           driver::StagedMode::Persistent),
                         [](const ::testing::TestParamInfo<driver::StagedMode>& info) {
                           std::string name = driver::staged_mode_name(info.param);
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });
