// A deterministic single-thread rig for the NIC model and the CPU driver: the test decides when
// the NIC polls, when the driver polls and what time it is.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "driver/plane.h"
#include "nf/chain.h"
#include "nic/port.h"
#include "wire/wire.h"

namespace gnf::test {

// Frames given up front, all "as soon as the line is free".
class VectorSource : public wire::Source {
 public:
  explicit VectorSource(std::vector<std::vector<uint8_t>> frames) : frames_(std::move(frames)) {}
  void start(uint64_t) override {}
  wire::Next next(wire::Frame& out) override {
    if (next_ == frames_.size()) return wire::Next::Exhausted;
    const auto& f = frames_[next_++];
    out = wire::Frame{f.data(), uint32_t(f.size()), 0};
    counters_.frames++;
    counters_.bytes += f.size();
    return wire::Next::Frame;
  }
  wire::SourceCounters counters() const override { return counters_; }
  std::string describe() const override { return "vector"; }

 private:
  std::vector<std::vector<uint8_t>> frames_;
  size_t next_ = 0;
  wire::SourceCounters counters_;
};

class CollectSink : public wire::Sink {
 public:
  void deliver(const uint8_t* data, uint32_t len, uint64_t time_ns) override {
    ++count;
    ++unflushed;
    if (!keep) return;
    frames.emplace_back(data, data + len);
    times.push_back(time_ns);
  }
  void flush() override {
    ++flushes;
    unflushed = 0;
  }
  bool keep = true;  // false: count only (long runs)
  uint64_t count = 0;
  uint64_t flushes = 0;
  uint64_t unflushed = 0;  // delivered since the last flush
  std::vector<std::vector<uint8_t>> frames;
  std::vector<uint64_t> times;
};

// A UDP/IPv4 frame of `len` bytes (without FCS) whose source port and payload identify it.
std::vector<uint8_t> udp_frame(uint32_t len, uint16_t src_port, uint32_t tag);

// Ports with their sources, one plane per queue, an NF chain (default: l2fwd reflect).
struct Rig {
  Rig(std::unique_ptr<wire::Source> source, nic::PortOptions port_options, driver::DriverOptions driver_options,
      std::vector<nf::NfSpec> nfs = {});
  Rig(std::vector<std::unique_ptr<wire::Source>> sources, std::vector<nic::PortOptions> port_options,
      driver::DriverOptions driver_options, std::vector<nf::NfSpec> nfs);

  // Polls the NIC `nic_polls` times, then every plane once; the clock moves `step_ns` per NIC poll.
  void step(int nic_polls = 1, uint64_t step_ns = 100);
  // Steps until the port and every plane are idle and the source is done (or `max_steps`).
  void run_to_completion(int nic_polls = 1, uint64_t step_ns = 100, uint64_t max_steps = 100'000'000);
  bool drained() const;

  uint64_t now_ns = 1'000'000;
  std::vector<std::unique_ptr<wire::Source>> sources;
  std::vector<std::unique_ptr<CollectSink>> sinks;
  std::unique_ptr<nf::NfChain> chain;
  std::vector<std::unique_ptr<nic::Port>> ports;
  std::vector<std::unique_ptr<driver::Plane>> planes;
  // The first port's parts, for single-port tests.
  wire::Source* source = nullptr;
  CollectSink& sink;
  nic::Port* port = nullptr;
};

// Sum of the driver's counters over every plane.
uint64_t plane_sum(const Rig& rig, const Counter driver::PlaneCounters::*member);

}  // namespace gnf::test
