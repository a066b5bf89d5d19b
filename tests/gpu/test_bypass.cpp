// The bypass path end to end on the GPU: softnic ports whose rings and slots are in GPU memory,
// driven by the persistent kernel, compared with the cpu path.
#include <chrono>
#include <filesystem>
#include <thread>

#include "gpu_test.h"
#include "path/pipeline.h"
#include "wire/generator.h"
#include "wire/pcap_sink.h"
#include "wire/pcap_source.h"

using namespace gnf;

namespace {

nf::NfSpec l2fwd(const std::string& mode, const std::string& mac) {
  nf::Params params("gpu-test", 1, "nf[0]");
  params.set("mode", nf::ParamValue{mode, 0});
  params.set("mac", nf::ParamValue{mac, 0});
  return nf::NfSpec{"l2fwd", params};
}

// Runs until every packet is accounted for (or 60 s), then stops. Returns whether it drained.
bool run_to_end(path::Pipeline& pipeline) {
  pipeline.start();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int drained = 0;
  while (std::chrono::steady_clock::now() < deadline && drained < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    drained = pipeline.drained() ? drained + 1 : 0;
  }
  pipeline.stop();
  return drained >= 2;
}

std::vector<std::vector<uint8_t>> read_pcap(const std::string& file) {
  wire::PcapSourceOptions o;
  o.file = file;
  wire::PcapSource source(o);
  source.start(0);
  std::vector<std::vector<uint8_t>> frames;
  wire::Frame f;
  while (source.next(f)) frames.emplace_back(f.data, f.data + f.len);
  return frames;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gnf-gpu-" + std::to_string(getpid()) + "-" + name)).string();
}

}  // namespace

TEST(GpuPaths, ThePcapComesOutOfStagedAndBypassByteIdenticalToTheCpuPath) {
  GNF_REQUIRE_GPU();
  // Input: 5000 generated frames of mixed sizes in 16 flows, written to a pcap.
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
    while (gen.next(f)) sink.deliver(f.data, f.len, f.time_ns);
    sink.finish();
  }
  auto run = [&](ctl::PathKind kind, const std::string& output) {
    ctl::Config c;
    c.path = kind;
    // Lossless replay: a full tx ring holds the driver, a ring that runs out of descriptors holds
    // the port (no DROP_EN), the full buffer pauses the sender (flow control).
    c.driver.drop_en = false;
    c.driver.tx_full_wait = true;
    ctl::PortSpec port;
    port.nic.flow_control = true;
    nic::fill_reta_round_robin(port.nic.rss, 1);
    port.source.kind = ctl::SourceSpec::Kind::Pcap;
    port.source.pcap.file = input;
    port.sink.pcap_file = output;
    c.ports.push_back(port);
    c.nfs.push_back(l2fwd("reflect", "swap"));
    path::Pipeline pipeline(c);
    EXPECT_TRUE(run_to_end(pipeline)) << ctl::path_name(kind);
    path::Snapshot s = pipeline.snapshot();
    EXPECT_EQ(s.offered(), s.accounted()) << ctl::path_name(kind);
    for (const auto& a : pipeline.audit()) EXPECT_TRUE(a.consistent()) << ctl::path_name(kind);
  };
  std::string cpu_out = temp_path("cpu.pcap"), staged_out = temp_path("staged.pcap"), bypass_out = temp_path("bypass.pcap");
  run(ctl::PathKind::Cpu, cpu_out);
  run(ctl::PathKind::Staged, staged_out);
  run(ctl::PathKind::Bypass, bypass_out);
  auto cpu = read_pcap(cpu_out);
  ASSERT_EQ(cpu.size(), 5000u);
  for (const std::string* out : {&staged_out, &bypass_out}) {
    auto gpu = read_pcap(*out);
    ASSERT_EQ(gpu.size(), cpu.size()) << *out;
    for (size_t i = 0; i < cpu.size(); ++i) ASSERT_EQ(gpu[i], cpu[i]) << *out << " frame " << i;
  }
  for (auto* f : {&input, &cpu_out, &staged_out, &bypass_out}) std::filesystem::remove(*f);
}

class BypassRings : public ::testing::TestWithParam<int> {};

TEST_P(BypassRings, GeneratedTrafficLeavesInFlowOrderAndEverySlotIsAccountedFor) {
  GNF_REQUIRE_GPU();
  const int queues = GetParam();
  ctl::Config c;
  c.path = ctl::PathKind::Bypass;
  c.driver.rx_ring_size = c.driver.tx_ring_size = 256;
  for (int p = 0; p < 2; ++p) {
    ctl::PortSpec port;
    port.nic.name = p == 0 ? "in" : "out";
    port.nic.rx_queues = port.nic.tx_queues = uint16_t(queues);
    nic::fill_reta_round_robin(port.nic.rss, queues);
    c.ports.push_back(port);
  }
  c.ports[0].source.kind = ctl::SourceSpec::Kind::Generator;
  c.ports[0].source.generator.flows = 256;
  c.ports[0].source.generator.count = 300'000;
  c.ports[0].source.generator.rate_gbps_l1 = 1.0;
  c.nfs.push_back(l2fwd("pairs", "rewrite"));
  path::Pipeline pipeline(c);
  ASSERT_TRUE(run_to_end(pipeline));
  path::Snapshot s = pipeline.snapshot();
  EXPECT_EQ(s.offered(), 300'000u);
  EXPECT_EQ(s.offered(), s.accounted());
  auto reports = pipeline.measurements();
  EXPECT_EQ(reports[1].reordered, 0u);
  EXPECT_EQ(reports[1].duplicates, 0u);
  uint64_t drops = s.ports[0].rx_missed + s.ports[0].rx_no_desc_drop + s.driver.tx_ring_full;
  EXPECT_EQ(reports[1].received + drops, 300'000u);
  EXPECT_EQ(s.driver.rx_packets, s.ports[0].rx_packets);
  for (const auto& a : pipeline.audit()) {
    EXPECT_TRUE(a.consistent()) << "free " << a.free << " rx " << a.in_rx_rings << " tx " << a.in_tx_rings << " of "
                                << a.capacity << ", duplicates " << a.duplicates;
  }
  std::printf("bypass, %d rings: %llu delivered, %llu dropped, latency p50 %llu ns p99 %llu ns\n", queues,
              (unsigned long long)reports[1].received, (unsigned long long)drops,
              (unsigned long long)reports[1].latency.percentile(50), (unsigned long long)reports[1].latency.percentile(99));
}

INSTANTIATE_TEST_SUITE_P(Rings, BypassRings, ::testing::Values(1, 2, 8));

TEST(Bypass, TailBatchingWritesFewerTailsAndLosesNothing) {
  GNF_REQUIRE_GPU();
  auto run = [](uint32_t batch) {
    ctl::Config c;
    c.path = ctl::PathKind::Bypass;
    c.driver.drop_en = false;  // lossless: see ThePcapComesOut...
    c.driver.tx_full_wait = true;
    c.driver.rx_tail_batch = c.driver.tx_tail_batch = batch;
    // The NIC model writes back 32 descriptors at a time, so a burst holds up to 32: batching by 64
    // with a long timeout writes fewer tails (about half at full speed; how many fewer depends on
    // timing, e.g. under compute-sanitizer, so only "fewer" is asserted).
    c.driver.tail_timeout_ns = 1'000'000;
    ctl::PortSpec port;
    port.nic.flow_control = true;
    nic::fill_reta_round_robin(port.nic.rss, 1);
    port.source.kind = ctl::SourceSpec::Kind::Generator;
    port.source.generator.count = 50'000;
    port.source.generator.flows = 4;
    c.ports.push_back(port);
    c.nfs.push_back(l2fwd("reflect", "none"));
    path::Pipeline pipeline(c);
    EXPECT_TRUE(run_to_end(pipeline));
    path::Snapshot s = pipeline.snapshot();
    EXPECT_EQ(pipeline.measurements()[0].received, 50'000u) << "batch " << batch;
    EXPECT_EQ(pipeline.measurements()[0].reordered, 0u) << "batch " << batch;
    for (const auto& a : pipeline.audit()) EXPECT_TRUE(a.consistent()) << "batch " << batch;
    return s.driver.tail_writes;
  };
  uint64_t every_burst = run(1), batched = run(64);
  std::printf("tail writes for 50000 packets: %llu with batch 1, %llu with batch 64\n",
              (unsigned long long)every_burst, (unsigned long long)batched);
  EXPECT_GT(batched, 0u);
  EXPECT_LT(batched, every_burst);
}
