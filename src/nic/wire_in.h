// How frames come off the wire into one queue group of a port (queue_group.h): the NIC's MAC sees
// each frame once its last bit has arrived, and its RSS stage picks the queue.
//
// Two kinds, with one interface so that the group's receive loop is written once (a template over
// them):
//  - SourceWire: any wire::Source (a pcap file, a Linux interface, an unsplit generator), one frame
//    at a time, spaced by the port's line clock, classified by RSS frame by frame;
//  - ShardWire: the part of a generator's schedule that hashes to the group's queues
//    (wire/generator_shard.h). Its frames never overlap on the line, so each arrives one wire
//    time after it was sent; RSS is computed once per flow (every frame of a flow hashes alike),
//    and the frame is written straight into the buffer it is stored in.
// Interface: next(now_ps, arrival) describes the next frame if its last bit arrived by now_ps;
// write(dst) writes its bytes; taken() moves on; done() once no frame will come again; scheduled()
// while a frame is due at a time the wire fixed (a generator's, a timed pcap's), which the polling
// thread must not sleep through.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "nic/pacing.h"
#include "nic/rss.h"
#include "wire/generator.h"
#include "wire/wire.h"

namespace gnf::nic {

struct Arrival {
  uint32_t len;
  uint64_t arrival_ps;  // when its last bit arrived
  RssResult rss;
};

class SourceWire {
 public:
  SourceWire(wire::Source& source, uint32_t speed_gbps, const RssConfig& rss)
      : source_(source), line_(speed_gbps), rss_(rss), table_(rss.key) {}

  void start(uint64_t now_ns) {
    line_.reset(now_ns * 1000);
    source_.start(now_ns);
  }
  bool next(uint64_t now_ps, Arrival& a) {
    if (!pending_ && !pull()) return false;
    if (arrival_ps_ > now_ps) return false;
    a = Arrival{frame_.len, arrival_ps_, rss_classify(rss_, table_, frame_.data, frame_.len)};
    return true;
  }
  void write(uint8_t* dst) const { std::memcpy(dst, frame_.data, frame_.len); }
  void taken() { pending_ = false; }
  bool done() const { return done_ && !pending_; }
  // A live link has nothing pending between its frames: it answers "later" (wire.h).
  bool scheduled() const { return pending_; }
  void stop() { stopped_ = true; }

 private:
  bool pull() {
    if (done_) return false;
    const wire::Next got = stopped_ ? wire::Next::Exhausted : source_.next(frame_);
    if (got == wire::Next::Exhausted) done_ = true;
    if (got != wire::Next::Frame) return false;
    // The wire carries one frame at a time: it arrives (last bit) one wire time after it started,
    // and it cannot start before the previous one is through.
    arrival_ps_ = line_.transmit(frame_.len, frame_.time_ns * 1000);
    pending_ = true;
    return true;
  }

  wire::Source& source_;
  LineClock line_;
  const RssConfig& rss_;
  ToeplitzTable table_;
  wire::Frame frame_{};
  uint64_t arrival_ps_ = 0;
  bool pending_ = false;
  bool done_ = false;
  bool stopped_ = false;
};

class ShardWire {
 public:
  // `flow_rss`: every flow's RSS result (indexed by flow id).
  ShardWire(wire::Generator& generator, wire::GeneratorShard& shard, uint32_t speed_gbps,
            const std::vector<RssResult>& flow_rss)
      : generator_(generator), shard_(shard), ps_per_byte_(line_ps_per_byte(speed_gbps)), flow_rss_(flow_rss) {}

  void start(uint64_t now_ns) { shard_.start(now_ns); }
  bool next(uint64_t now_ps, Arrival& a) {
    if (done()) return false;
    const uint64_t arrival_ps = shard_.send_ns() * 1000 + wire::l1_bytes(shard_.len()) * ps_per_byte_;
    if (arrival_ps > now_ps) return false;
    a = Arrival{shard_.len(), arrival_ps, flow_rss_[shard_.flow()]};
    return true;
  }
  void write(uint8_t* dst) const { shard_.write_front(dst); }
  void taken() { shard_.pop(); }
  bool done() {
    if (shard_.done() && !finished_) {
      finished_ = true;
      generator_.shard_finished();
    }
    return stopped_ || finished_;
  }
  bool scheduled() const { return !stopped_ && !shard_.done(); }
  void stop() { stopped_ = true; }

 private:
  wire::Generator& generator_;
  wire::GeneratorShard& shard_;
  uint64_t ps_per_byte_;
  const std::vector<RssResult>& flow_rss_;
  bool stopped_ = false;
  bool finished_ = false;
};

}  // namespace gnf::nic
