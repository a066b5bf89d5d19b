#include "wire/measure.h"

#include <algorithm>

#include "wire/frame_size.h"
#include "wire/stamp.h"

namespace gnf::wire {

namespace {

void add_elementwise(std::vector<uint64_t>& into, const std::vector<uint64_t>& from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (size_t i = 0; i < from.size(); ++i) into[i] += from[i];
}

}  // namespace

uint64_t MeasureReport::loss(const std::vector<uint64_t>& sent_per_flow) const {
  uint64_t lost = 0;
  for (size_t f = 0; f < sent_per_flow.size(); ++f) {
    uint64_t got = f < received_per_flow.size() ? received_per_flow[f] : 0;
    lost += sent_per_flow[f] > got ? sent_per_flow[f] - got : 0;
  }
  return lost;
}

void MeasureReport::merge(const MeasureReport& other) {
  received += other.received;
  received_bytes += other.received_bytes;
  foreign += other.foreign;
  duplicates += other.duplicates;
  reordered += other.reordered;
  reorder_extent_max = std::max(reorder_extent_max, other.reorder_extent_max);
  reorder_extent_sum += other.reorder_extent_sum;
  clock_skew += other.clock_skew;
  clock_skew_max_ns = std::max(clock_skew_max_ns, other.clock_skew_max_ns);
  add_elementwise(received_per_flow, other.received_per_flow);
  add_elementwise(duplicates_per_flow, other.duplicates_per_flow);
  add_elementwise(reordered_per_flow, other.reordered_per_flow);
  latency.merge(other.latency);
  if (per_second.size() < other.per_second.size()) per_second.resize(other.per_second.size());
  for (size_t s = 0; s < other.per_second.size(); ++s) {
    per_second[s].received += other.per_second[s].received;
    per_second[s].latency.merge(other.per_second[s].latency);
  }
}

MeasuringSink::MeasuringSink(Sink* inner, uint32_t duplicate_window)
    : inner_(inner), duplicate_window_(duplicate_window) {}

void MeasuringSink::set_window(const MeasuredWindow& window) {
  window_ = window;
  per_second_.assign(window.seconds(), MeasureReport::Second{});
  second_start_ns_ = window.start_ns;
}

void MeasuringSink::deliver(const uint8_t* data, uint32_t len, uint64_t time_ns) {
  if (inner_) inner_->deliver(data, len, time_ns);
  std::optional<Stamp> stamp = decode_stamp(data, len);
  if (!stamp) {
    foreign_++;
    return;
  }
  deliver_stamp(*stamp, len, time_ns);
}

void MeasuringSink::deliver_stamp(const Stamp& stamp, uint32_t len, uint64_t time_ns) {
  uint32_t flow_id = stamp.flow();
  if (flow_id >= flows_.size()) flows_.resize(flow_id + 1);
  if (!flows_[flow_id]) flows_[flow_id] = std::make_unique<Flow>(duplicate_window_);
  Flow& flow = *flows_[flow_id];
  ReorderTracker::Verdict verdict = flow.order.arrive(stamp.seq());
  if (window_ && !window_->contains(stamp.send_time_ns)) return;  // only the order history moved on
  if (verdict.order == ReorderTracker::Order::Duplicate) {
    flow.duplicates++;
    return;
  }
  flow.received++;
  received_bytes_ += l2_bytes(len);
  if (verdict.order == ReorderTracker::Order::Reordered) {
    flow.reordered++;
    flow.extent_sum += verdict.extent;
    flow.extent_max = std::max(flow.extent_max, verdict.extent);
  }
  MeasureReport::Second* second = window_ ? &second_of(stamp.send_time_ns) : nullptr;
  if (second) second->received++;
  const uint64_t origin = stamp.latency_origin_ns();
  if (time_ns < origin) {
    clock_skew_++;
    clock_skew_max_ns_ = std::max(clock_skew_max_ns_, origin - time_ns);
    return;
  }
  uint64_t latency = time_ns - origin;
  latency_.record(latency);
  if (second) second->latency.record(latency);
}

MeasureReport::Second& MeasuringSink::second_of(uint64_t send_time_ns) {
  // Frames come in nearly in send order: the second of the last one is nearly always theirs.
  if (send_time_ns - second_start_ns_ >= kNsPerSecond) {
    second_ = window_->second_of(send_time_ns);
    second_start_ns_ = window_->start_ns + second_ * kNsPerSecond;
  }
  return per_second_[second_];
}

void MeasuringSink::flush() {
  if (inner_) inner_->flush();
}

void MeasuringSink::finish() {
  if (inner_) inner_->finish();
}

MeasureReport MeasuringSink::report() const {
  MeasureReport r;
  r.foreign = foreign_;
  r.clock_skew = clock_skew_;
  r.clock_skew_max_ns = clock_skew_max_ns_;
  r.received_bytes = received_bytes_;
  r.latency = latency_;
  r.per_second = per_second_;
  r.received_per_flow.assign(flows_.size(), 0);
  r.duplicates_per_flow.assign(flows_.size(), 0);
  r.reordered_per_flow.assign(flows_.size(), 0);
  for (size_t f = 0; f < flows_.size(); ++f) {
    const Flow* flow = flows_[f].get();
    if (!flow) continue;
    r.received_per_flow[f] = flow->received;
    r.duplicates_per_flow[f] = flow->duplicates;
    r.reordered_per_flow[f] = flow->reordered;
    r.received += flow->received;
    r.duplicates += flow->duplicates;
    r.reordered += flow->reordered;
    r.reorder_extent_max = std::max(r.reorder_extent_max, flow->extent_max);
    r.reorder_extent_sum += flow->extent_sum;
  }
  return r;
}

}  // namespace gnf::wire
