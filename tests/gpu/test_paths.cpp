// The same traffic through every data path gives the same result: the pcap oracle across cpu,
// the three staged modes and bypass, and flow order over many rings on the staged path.
#include "gpu_rig.h"

using namespace gnf;
using namespace gnf::test;

namespace {

struct PathVariant {
  const char* name;
  ctl::PathKind path;
  driver::StagedMode staged_mode = driver::StagedMode::ZeroCopy;
  uint32_t headroom = driver::DriverOptions{}.headroom;
};

// The slot headroom on either side of the default, where the GPU code places and copies frames.
const PathVariant kVariants[] = {
    {"cpu", ctl::PathKind::Cpu},
    {"staged zero-copy", ctl::PathKind::Staged, driver::StagedMode::ZeroCopy},
    {"staged copy", ctl::PathKind::Staged, driver::StagedMode::Copy},
    {"staged copy, headroom 1024", ctl::PathKind::Staged, driver::StagedMode::Copy, 1024},
    {"staged persistent", ctl::PathKind::Staged, driver::StagedMode::Persistent},
    {"bypass", ctl::PathKind::Bypass},
    {"bypass, no headroom", ctl::PathKind::Bypass, driver::StagedMode::ZeroCopy, 0},
    {"bypass, headroom 1024", ctl::PathKind::Bypass, driver::StagedMode::ZeroCopy, 1024},
};

}  // namespace

TEST(GpuPaths, ThePcapComesOutOfEveryPathByteIdenticalToTheCpuPath) {
  GNF_REQUIRE_GPU();
  // Input: 5000 generated frames of mixed sizes in 16 flows.
  std::string input = temp_path("in.pcap");
  {
    wire::GeneratorOptions g;
    g.sizes = {64, 128, 594, 1518, 200};
    g.flows = 16;
    g.count = 5000;
    wire::Generator gen(g);
    gen.start(0);
    wire::PcapSink sink(input);
    wire::Frame f;
    while (gen.next(f) == wire::Next::Frame) sink.deliver(f.data, f.len, f.time_ns);
    sink.finish();
  }
  std::vector<std::vector<uint8_t>> reference;
  for (const PathVariant& v : kVariants) {
    std::string output = temp_path("out.pcap");
    ctl::Config c;
    c.path = v.path;
    c.driver.staged_mode = v.staged_mode;
    c.driver.headroom = v.headroom;
    ctl::PortSpec port;
    nic::fill_reta_round_robin(port.nic.rss, 1);
    port.source.kind = ctl::SourceSpec::Kind::Pcap;
    port.source.pcap.file = input;
    port.sink.pcap_file = output;
    c.ports.push_back(port);
    c.nfs.push_back(l2fwd("reflect", "swap"));
    make_lossless(c);
    {
      path::Pipeline pipeline(c);
      EXPECT_TRUE(run_to_end(pipeline)) << v.name;
      path::Snapshot s = pipeline.snapshot();
      EXPECT_EQ(s.offered(), s.accounted()) << v.name;
      EXPECT_EQ(s.nfs[0].counters[0].second, 5000u) << v.name << ": l2fwd's forwarded counter";
      expect_slots_consistent(pipeline, v.name);
    }
    auto frames = read_pcap(output);
    std::filesystem::remove(output);
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
