// A traffic generator: stamped UDP test traffic at a given rate, size mix and flow count
// (generator_options.h), as a wire::Source, or split into shards that several threads send.
//
// Frame i goes to flow i % flows and has size sizes[i % sizes.size()]; it is scheduled to start
// at start_ns plus the spacing of the frames before it (generator_plan.h).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wire/generator_options.h"
#include "wire/generator_plan.h"
#include "wire/generator_shard.h"
#include "wire/window.h"
#include "wire/wire.h"

namespace gnf::wire {

class Generator : public Source {
 public:
  // Throws UserError for sizes out of range, a bad flow count or IP version, or bad rates.
  // A rate above line_gbps is clamped to it (describe() says so).
  explicit Generator(const GeneratorOptions& opts);

  void start(uint64_t start_ns) override;
  // Never allocates: the frame is written into a buffer of the generator's, valid until the next
  // call. Only while the generator is not split.
  Next next(Frame& out) override;
  SourceCounters counters() const override;
  std::string describe() const override;

  // The options in force: IMIX expanded into `sizes`.
  const GeneratorOptions& options() const { return plan_->options(); }
  const GeneratorPlan& plan() const { return *plan_; }
  // The schedule's mean rate over one size cycle, after clamping to the line rate.
  double rate_pps() const { return plan_->rate_pps(); }
  double rate_gbps_l1() const { return plan_->rate_gbps_l1(); }
  bool clamped() const { return clamped_; }

  // Whether split() can divide this schedule exactly: no two of its frames overlap on the line
  // (each arrives one wire time after it is sent, whatever the others do) and its period is short
  // enough for a shard to list its frames.
  bool splittable() const;
  // Replaces the one sender by `shards` of them: shard k sends the flows f with
  // shard_of_flow[f] == k (one entry per flow), and next() may no longer be called. Call before
  // start() and set_window(); needs splittable(). The shards belong to the generator.
  std::vector<GeneratorShard*> split(const std::vector<uint32_t>& shard_of_flow, uint32_t shards);
  // The first frame of flow `flow` (as a NIC would see it, e.g. to compute its RSS hash).
  std::vector<uint8_t> sample_frame(uint32_t flow) const;

  // Frames sent so far, indexed by flow id; what MeasureReport::loss() compares against. Summed
  // over shards: only once no thread sends any more.
  std::vector<uint64_t> sent_per_flow() const;

  // Also counts the frames whose scheduled send time falls inside `window`, per flow and per
  // second of the window (both empty without a window). Call before start().
  void set_window(const MeasuredWindow& window);
  std::vector<uint64_t> sent_in_window_per_flow() const;
  std::vector<uint64_t> sent_in_window_per_second() const;

  // True once the whole schedule (count or duration) has been sent. Any thread may ask: a sender
  // that falls behind its schedule is still busy when its scheduled end has passed.
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  // A shard's thread says its shard is done (any thread).
  void shard_finished();

 private:
  std::shared_ptr<const GeneratorPlan> plan_;
  bool clamped_ = false;
  std::vector<std::unique_ptr<GeneratorShard>> shards_;
  std::vector<uint8_t> frame_;  // next()'s frame
  std::atomic<uint32_t> shards_running_{1};
  std::atomic<bool> finished_{false};
};

}  // namespace gnf::wire
