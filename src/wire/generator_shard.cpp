#include "wire/generator_shard.h"

#include <numeric>
#include <stdexcept>

#include "wire/frame_size.h"

namespace gnf::wire {

GeneratorShard::GeneratorShard(std::shared_ptr<const GeneratorPlan> plan) : plan_(std::move(plan)) {
  sent_per_flow_.assign(plan_->flows(), 0);
}

GeneratorShard::GeneratorShard(std::shared_ptr<const GeneratorPlan> plan, const std::vector<uint32_t>& flows)
    : GeneratorShard(std::move(plan)) {
  const uint32_t n_flows = plan_->flows(), cycle = plan_->cycle_length();
  if (flows.size() == n_flows) return;
  period_ = std::lcm(uint64_t(n_flows), uint64_t(cycle));
  if (period_ > kMaxPeriod) throw std::invalid_argument("GeneratorShard: the schedule's period is too long to split");
  std::vector<bool> mine(n_flows, false);
  for (uint32_t f : flows) mine.at(f) = true;
  for (uint64_t j = 0; j < period_; ++j) {
    const uint32_t t = plan_->template_at(uint32_t(j % cycle));
    if (mine[j % n_flows]) positions_.push_back(Position{uint32_t(j), uint32_t(j % n_flows), t, period_l1_bytes_});
    period_l1_bytes_ += l1_bytes(plan_->frame_len(t));
  }
}

void GeneratorShard::set_window(const MeasuredWindow& window) {
  window_ = window;
  window_second_end_ns_ = window.start_ns + kNsPerSecond;
  window_per_flow_.assign(plan_->flows(), 0);
  window_per_second_.assign(window.seconds(), 0);
}

void GeneratorShard::start(uint64_t start_ns) {
  start_ns_ = start_ns;
  if (period_ == 0) {
    place(0, 0, 0, plan_->template_at(0));
  } else if (positions_.empty()) {
    done_ = true;
  } else {
    const Position& p = positions_[0];
    place(p.offset, p.l1_before, p.flow, p.template_index);
  }
}

void GeneratorShard::place(uint64_t index, uint64_t l1_before, uint32_t flow, uint32_t template_index) {
  const GeneratorOptions& o = plan_->options();
  const uint64_t offset_ns = plan_->send_offset_ns(index, l1_before);
  if ((o.count && index >= o.count) || (o.duration_ns && offset_ns >= o.duration_ns)) {
    done_ = true;
    return;
  }
  index_ = index;
  l1_before_ = l1_before;
  send_ns_ = start_ns_ + offset_ns;
  flow_ = flow;
  template_ = template_index;
  len_ = plan_->frame_len(template_index);
  seq_ = sent_per_flow_[flow];
}

void GeneratorShard::pop() {
  frames_.add();
  bytes_.add(len_);
  sent_per_flow_[flow_]++;
  if (window_ && window_->contains(send_ns_)) {
    while (send_ns_ >= window_second_end_ns_) {
      window_second_end_ns_ += kNsPerSecond;
      ++window_second_;
    }
    window_per_flow_[flow_]++;
    window_per_second_[window_second_]++;
  }
  if (period_ == 0) {
    if (++cycle_position_ == plan_->cycle_length()) cycle_position_ = 0;
    const uint32_t flow = flow_ + 1 == plan_->flows() ? 0 : flow_ + 1;
    place(index_ + 1, l1_before_ + l1_bytes(len_), flow, plan_->template_at(cycle_position_));
    return;
  }
  if (++position_ == positions_.size()) {
    position_ = 0;
    ++round_;
  }
  const Position& p = positions_[position_];
  place(round_ * period_ + p.offset, round_ * period_l1_bytes_ + p.l1_before, p.flow, p.template_index);
}

}  // namespace gnf::wire
