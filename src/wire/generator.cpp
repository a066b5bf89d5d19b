#include "wire/generator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <numeric>

namespace gnf::wire {

namespace {

// Elementwise sum over shards of one of their per-flow or per-second counts.
std::vector<uint64_t> sum_over(const std::vector<std::unique_ptr<GeneratorShard>>& shards,
                               const std::vector<uint64_t>& (GeneratorShard::*counts)() const) {
  std::vector<uint64_t> total;
  for (const auto& s : shards) {
    const auto& c = (*s.*counts)();
    if (total.size() < c.size()) total.resize(c.size());
    for (size_t i = 0; i < c.size(); ++i) total[i] += c[i];
  }
  return total;
}

}  // namespace

Generator::Generator(const GeneratorOptions& opts) : plan_(std::make_shared<const GeneratorPlan>(opts)) {
  clamped_ = plan_->clamped();
  shards_.push_back(std::make_unique<GeneratorShard>(plan_));
  frame_.resize(plan_->largest_frame_len());
}

void Generator::start(uint64_t start_ns) {
  for (auto& s : shards_) s->start(start_ns);
}

void Generator::set_window(const MeasuredWindow& window) {
  for (auto& s : shards_) s->set_window(window);
}

Next Generator::next(Frame& out) {
  GeneratorShard& shard = *shards_.front();
  if (shard.done()) {
    finished_.store(true, std::memory_order_release);
    return Next::Exhausted;
  }
  shard.write_front(frame_.data());
  out = Frame{frame_.data(), shard.len(), shard.send_ns()};
  shard.pop();
  return Next::Frame;
}

bool Generator::splittable() const {
  const uint64_t period = std::lcm(uint64_t(plan_->flows()), uint64_t(plan_->cycle_length()));
  return !plan_->frames_may_overlap() && period <= GeneratorShard::kMaxPeriod;
}

std::vector<GeneratorShard*> Generator::split(const std::vector<uint32_t>& shard_of_flow, uint32_t shards) {
  std::vector<std::vector<uint32_t>> flows(shards);
  for (uint32_t f = 0; f < plan_->flows(); ++f) flows.at(shard_of_flow.at(f)).push_back(f);
  shards_.clear();
  std::vector<GeneratorShard*> out;
  for (const auto& mine : flows) {
    shards_.push_back(std::make_unique<GeneratorShard>(plan_, mine));
    out.push_back(shards_.back().get());
  }
  shards_running_.store(shards);
  return out;
}

std::vector<uint8_t> Generator::sample_frame(uint32_t flow) const {
  std::vector<uint8_t> f(plan_->frame_len(plan_->template_at(0)));
  plan_->write(f.data(), plan_->template_at(0), flow, 0, 0);
  return f;
}

void Generator::shard_finished() {
  if (shards_running_.fetch_sub(1) == 1) finished_.store(true, std::memory_order_release);
}

SourceCounters Generator::counters() const {
  SourceCounters c;
  for (const auto& s : shards_) {
    c.frames += s->frames();
    c.bytes += s->bytes();
  }
  return c;
}

std::vector<uint64_t> Generator::sent_per_flow() const { return sum_over(shards_, &GeneratorShard::sent_per_flow); }

std::vector<uint64_t> Generator::sent_in_window_per_flow() const {
  return sum_over(shards_, &GeneratorShard::sent_in_window_per_flow);
}

std::vector<uint64_t> Generator::sent_in_window_per_second() const {
  return sum_over(shards_, &GeneratorShard::sent_in_window_per_second);
}

std::string Generator::describe() const {
  const GeneratorOptions& o = options();
  std::string sizes = o.imix ? "IMIX" : fmt::format("{} B", fmt::join(o.sizes, "/"));
  std::string rate = o.rate_pps > 0 && !clamped_ ? fmt::format("{} pps", o.rate_pps)
                                                 : fmt::format("{} Gbit/s (L1)", plan_->rate_gbps_l1());
  std::string s = fmt::format("generator: UDP/IPv{}, {}, {} flow(s), {}{}", o.ip_version, sizes, o.flows, rate,
                              clamped_ ? " (clamped to line rate)" : "");
  if (o.count) s += fmt::format(", {} frames", o.count);
  if (o.duration_ns) s += fmt::format(", {} ns", o.duration_ns);
  return s;
}

}  // namespace gnf::wire
