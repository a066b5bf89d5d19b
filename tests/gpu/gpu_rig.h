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

}  // namespace gnf::test
