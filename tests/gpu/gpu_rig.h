// What the GPU path tests share: configs for the usual set-ups, running a pipeline to the end,
// and pcap files in and out.
#pragma once
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test.h"
#include "ctl/config.h"
#include "path/pipeline.h"
#include "wire/generator.h"
#include "wire/pcap_sink.h"
#include "wire/pcap_source.h"

namespace gnf::test {

inline nf::NfSpec l2fwd(const std::string& mode, const std::string& mac) {
  nf::Params params("gpu-test", 1, "nf[l2fwd]");
  params.set("mode", nf::ParamValue{mode, 0});
  params.set("mac", nf::ParamValue{mac, 0});
  return nf::NfSpec{"l2fwd", params};
}

inline nf::NfSpec ether_filter_to_host(const std::string& types) {
  nf::Params params("gpu-test", 1, "nf[ether_filter]");
  params.set("to_host", nf::ParamValue{types, 0});
  return nf::NfSpec{"ether_filter", params};
}

// A data path as the pcap oracles run it: the slot headroom on either side of the default, where
// the GPU code places and copies frames.
struct PathVariant {
  const char* name;
  ctl::PathKind path;
  driver::StagedMode staged_mode = driver::StagedMode::ZeroCopy;
  uint32_t headroom = driver::DriverOptions{}.headroom;
  uint32_t nf_blocks = 0;
};

inline const PathVariant kPathVariants[] = {
    {"cpu", ctl::PathKind::Cpu},
    {"staged zero-copy", ctl::PathKind::Staged, driver::StagedMode::ZeroCopy},
    {"staged copy", ctl::PathKind::Staged, driver::StagedMode::Copy},
    {"staged copy, headroom 1024", ctl::PathKind::Staged, driver::StagedMode::Copy, 1024},
    {"staged persistent", ctl::PathKind::Staged, driver::StagedMode::Persistent},
    {"bypass", ctl::PathKind::Bypass},
    {"bypass, no headroom", ctl::PathKind::Bypass, driver::StagedMode::ZeroCopy, 0},
    {"bypass, headroom 1024", ctl::PathKind::Bypass, driver::StagedMode::ZeroCopy, 1024},
    {"bypass, 3 NF blocks a queue", ctl::PathKind::Bypass, driver::StagedMode::ZeroCopy,
     driver::DriverOptions{}.headroom, 3},
};

inline void on_path(ctl::Config& c, const PathVariant& v) {
  c.path = v.path;
  c.driver.staged_mode = v.staged_mode;
  c.driver.headroom = v.headroom;
  c.driver.nf_blocks = v.nf_blocks;
}

// Lossless: a full tx ring holds the driver, a ring without descriptors holds the port (no
// DROP_EN), the full rx buffer pauses the sender (flow control). Every frame comes out.
inline void make_lossless(ctl::Config& c) {
  c.driver.drop_en = false;
  c.driver.tx_full_wait = true;
  for (ctl::PortSpec& p : c.ports) p.nic.flow_control = true;
}

// Port "in" (with a generator) and port "out", `queues` queues each, l2fwd pairs.
inline ctl::Config two_ports(ctl::PathKind path, int queues, uint64_t count, double rate_gbps, uint32_t flows = 256) {
  ctl::Config c;
  c.path = path;
  for (int p = 0; p < 2; ++p) {
    ctl::PortSpec port;
    port.nic.name = p == 0 ? "in" : "out";
    port.nic.rx_queues = port.nic.tx_queues = uint16_t(queues);
    nic::fill_reta_round_robin(port.nic.rss, queues);
    c.ports.push_back(port);
  }
  wire::GeneratorOptions& g = c.ports[0].source.generator;
  c.ports[0].source.kind = ctl::SourceSpec::Kind::Generator;
  g.flows = flows;
  g.count = count;
  g.rate_gbps_l1 = rate_gbps;
  c.nfs.push_back(l2fwd("pairs", "rewrite"));
  return c;
}

// Waits until every packet is accounted for (two readings in a row) or `timeout_s` passed.
inline bool wait_drained(path::Pipeline& pipeline, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int drained = 0;
  while (std::chrono::steady_clock::now() < deadline && drained < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    drained = pipeline.drained() ? drained + 1 : 0;
  }
  return drained >= 2;
}

// Starts, runs until drained (or the timeout), stops. Returns whether it drained.
inline bool run_to_end(path::Pipeline& pipeline, double timeout_s = 60) {
  pipeline.start();
  bool drained = wait_drained(pipeline, timeout_s);
  if (!drained) {  // what is still in flight, to tell where it stuck
    path::Snapshot s = pipeline.snapshot();
    for (const path::PortStats& p : s.ports)
      std::printf("not drained: port %s: offered %llu rx %llu tx %llu missed %llu no_desc %llu\n", p.name.c_str(),
                  (unsigned long long)p.source_frames, (unsigned long long)p.rx_good_packets,
                  (unsigned long long)p.tx_good_packets, (unsigned long long)p.rx_missed,
                  (unsigned long long)p.rx_no_desc_drop);
    std::printf("not drained: driver rx %llu tx %llu consumed %llu to_host %llu tx_full %llu\n",
                (unsigned long long)s.driver.rx_packets, (unsigned long long)s.driver.tx_packets,
                (unsigned long long)s.driver.consumed, (unsigned long long)s.driver.to_host,
                (unsigned long long)s.driver.tx_ring_full);
  }
  pipeline.stop();
  return drained;
}

inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gnf-gpu-" + std::to_string(getpid()) + "-" + name)).string();
}

inline std::vector<std::vector<uint8_t>> read_pcap(const std::string& file) {
  wire::PcapSourceOptions o;
  o.file = file;
  wire::PcapSource source(o);
  source.start(0);
  std::vector<std::vector<uint8_t>> frames;
  wire::Frame f;
  while (source.next(f) == wire::Next::Frame) frames.emplace_back(f.data, f.data + f.len);
  return frames;
}

inline void write_pcap(const std::string& file, const std::vector<std::vector<uint8_t>>& frames) {
  wire::PcapSink sink(file);
  for (const auto& f : frames) sink.deliver(f.data(), uint32_t(f.size()), 0);
  sink.finish();
}

// Every slot in exactly one place, on every plane.
inline void expect_slots_consistent(const path::Pipeline& pipeline, const std::string& what) {
  for (const auto& a : pipeline.audit())
    EXPECT_TRUE(a.consistent()) << what << ": free " << a.free << " rx " << a.in_rx_rings << " tx " << a.in_tx_rings
                                << " driver " << a.in_driver << " of " << a.capacity << ", duplicates " << a.duplicates;
}

// `count` generated frames of `sizes` in `flows` flows, in a temporary pcap file: its path.
inline std::string generated_pcap(const std::string& name, std::vector<uint32_t> sizes, uint32_t flows, uint64_t count) {
  const std::string file = temp_path(name);
  wire::GeneratorOptions g;
  g.sizes = std::move(sizes);
  g.flows = flows;
  g.count = count;
  wire::Generator gen(g);
  gen.start(0);
  wire::PcapSink sink(file);
  wire::Frame f;
  while (gen.next(f) == wire::Next::Frame) sink.deliver(f.data, f.len, f.time_ns);
  sink.finish();
  return file;
}

// The pcap oracle's run: `input` into port `port` of `c` (its ports and NFs set) on the variant's
// path, losslessly; the frames that port sent. Checks that every frame is accounted for, that NF 0's
// counter `counter` is `expected`, and the slots. The run's last snapshot goes to `snapshot` if given.
inline std::vector<std::vector<uint8_t>> pcap_through(ctl::Config c, const PathVariant& v, uint32_t port,
                                                      const std::string& input, uint32_t counter, uint64_t expected,
                                                      path::Snapshot* snapshot = nullptr) {
  const std::string output = temp_path("out.pcap");
  on_path(c, v);
  c.ports[port].source.kind = ctl::SourceSpec::Kind::Pcap;
  c.ports[port].source.pcap.file = input;
  c.ports[port].sink.pcap_file = output;
  make_lossless(c);
  {
    path::Pipeline pipeline(c);
    EXPECT_TRUE(run_to_end(pipeline)) << v.name;
    path::Snapshot s = pipeline.snapshot();
    EXPECT_EQ(s.offered(), s.accounted()) << v.name;
    EXPECT_EQ(s.nfs[0].counters[counter].second, expected) << v.name << ": " << s.nfs[0].counters[counter].first;
    expect_slots_consistent(pipeline, v.name);
    if (snapshot) *snapshot = std::move(s);
  }
  auto frames = read_pcap(output);
  std::filesystem::remove(output);
  return frames;
}

}  // namespace gnf::test
