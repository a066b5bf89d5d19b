// One sender of part of a generator's schedule: the frames of a subset of its flows, in schedule
// order. A generator at 100+ Mpps is several shards on several threads, each feeding the NIC
// queues its flows hash to; together they send exactly the frames one sender would (same
// indices, times and bytes), since a frame's send time depends on its index alone.
//
// Not thread-safe except where noted: one thread takes frames; others may read the counters.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "util/counter.h"
#include "wire/generator_plan.h"
#include "wire/window.h"

namespace gnf::wire {

class GeneratorShard {
 public:
  // A shard of every flow: the whole schedule, one frame after the other.
  explicit GeneratorShard(std::shared_ptr<const GeneratorPlan> plan);
  // A shard of `flows` (ascending, possibly none). A proper subset needs the schedule's period,
  // lcm(flows, size cycle), to be at most kMaxPeriod frames: the shard keeps the positions of its
  // frames within one period.
  static constexpr uint64_t kMaxPeriod = uint64_t(1) << 22;
  GeneratorShard(std::shared_ptr<const GeneratorPlan> plan, const std::vector<uint32_t>& flows);

  // Called once, before the first frame; schedules are relative to start_ns.
  void start(uint64_t start_ns);
  // Also counts the frames whose scheduled send time falls inside `window`, per flow and per
  // second of the window. Call before start().
  void set_window(const MeasuredWindow& window);

  // The frame at the front: valid while !done().
  bool done() const { return done_; }
  uint64_t send_ns() const { return send_ns_; }
  uint32_t len() const { return len_; }
  uint32_t flow() const { return flow_; }
  // Writes the front frame's len() bytes at `dst`.
  void write_front(uint8_t* dst) const { plan_->write(dst, template_, flow_, seq_, send_ns_); }
  // The front frame has been sent (written or not: a frame dropped before anyone stored it was
  // sent all the same); the next one comes to the front.
  void pop();

  // Any thread.
  uint64_t frames() const { return frames_.get(); }
  uint64_t bytes() const { return bytes_.get(); }
  // Only once no thread takes frames any more (or from the taking thread).
  const std::vector<uint64_t>& sent_per_flow() const { return sent_per_flow_; }
  const std::vector<uint64_t>& sent_in_window_per_flow() const { return window_per_flow_; }
  const std::vector<uint64_t>& sent_in_window_per_second() const { return window_per_second_; }

 private:
  // Makes frame `index` of the schedule (of flow `flow` and template `template_index`, with
  // `l1_before` layer-1 bytes before it) the front, or ends the shard if the schedule has ended.
  void place(uint64_t index, uint64_t l1_before, uint32_t flow, uint32_t template_index);

  std::shared_ptr<const GeneratorPlan> plan_;
  // A proper subset: the positions of its frames within one period of `period_` frames, and the
  // layer-1 bytes of the period before each; a full shard (every flow) steps one frame at a time.
  struct Position {
    uint32_t offset;
    uint32_t flow;
    uint32_t template_index;
    uint64_t l1_before;
  };
  std::vector<Position> positions_;
  uint64_t period_ = 0;
  uint64_t period_l1_bytes_ = 0;
  // The front frame's place: its position (in positions_) and period, or in a full shard its
  // place in the size cycle. Stepped, never divided out: this runs once per frame.
  size_t position_ = 0;
  uint64_t round_ = 0;
  uint32_t cycle_position_ = 0;

  uint64_t start_ns_ = 0;
  uint64_t index_ = 0;       // the front frame's index in the whole schedule
  uint64_t l1_before_ = 0;   // layer-1 bytes of the schedule before it
  uint64_t send_ns_ = 0;
  uint32_t flow_ = 0;
  uint32_t template_ = 0;
  uint32_t len_ = 0;
  uint64_t seq_ = 0;
  bool done_ = false;

  Counter frames_;
  Counter bytes_;
  std::vector<uint64_t> sent_per_flow_;
  std::optional<MeasuredWindow> window_;
  uint64_t window_second_end_ns_ = 0;  // the end of the window second `window_second_` covers
  uint64_t window_second_ = 0;
  std::vector<uint64_t> window_per_flow_;
  std::vector<uint64_t> window_per_second_;
};

}  // namespace gnf::wire
