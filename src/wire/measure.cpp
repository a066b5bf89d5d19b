#include "wire/measure.h"

#include <algorithm>

#include "wire/stamp.h"

namespace gnf::wire {

uint64_t MeasureReport::loss(const std::vector<uint64_t>& sent_per_flow) const {
  uint64_t lost = 0;
  for (size_t f = 0; f < sent_per_flow.size(); ++f) {
    uint64_t got = f < received_per_flow.size() ? received_per_flow[f] : 0;
    lost += sent_per_flow[f] > got ? sent_per_flow[f] - got : 0;
  }
  return lost;
}

MeasuringSink::MeasuringSink(Sink* inner, uint32_t duplicate_window)
    : inner_(inner), duplicate_window_(duplicate_window) {}

void MeasuringSink::deliver(const uint8_t* data, uint32_t len, uint64_t time_ns) {
  if (inner_) inner_->deliver(data, len, time_ns);
  std::optional<Stamp> stamp = decode_stamp(data, len);
  if (!stamp) {
    foreign_++;
    return;
  }
  uint32_t flow = stamp->flow();
  if (flow >= flows_.size()) flows_.resize(flow + 1);
  if (!flows_[flow]) flows_[flow] = std::make_unique<ReorderTracker>(duplicate_window_);
  if (flows_[flow]->arrive(stamp->seq()).order == ReorderTracker::Order::Duplicate) return;
  if (time_ns < stamp->send_time_ns) {
    clock_skew_++;
    return;
  }
  latency_.record(time_ns - stamp->send_time_ns);
}

void MeasuringSink::finish() {
  if (inner_) inner_->finish();
}

MeasureReport MeasuringSink::report() const {
  MeasureReport r;
  r.foreign = foreign_;
  r.clock_skew = clock_skew_;
  r.latency = latency_;
  r.received_per_flow.assign(flows_.size(), 0);
  r.duplicates_per_flow.assign(flows_.size(), 0);
  r.reordered_per_flow.assign(flows_.size(), 0);
  for (size_t f = 0; f < flows_.size(); ++f) {
    const ReorderTracker* t = flows_[f].get();
    if (!t) continue;
    r.received_per_flow[f] = t->arrivals();
    r.duplicates_per_flow[f] = t->duplicates();
    r.reordered_per_flow[f] = t->reordered();
    r.received += t->arrivals();
    r.duplicates += t->duplicates();
    r.reordered += t->reordered();
    r.reorder_extent_max = std::max(r.reorder_extent_max, t->extent_max());
    r.reorder_extent_sum += t->extent_sum();
  }
  return r;
}

}  // namespace gnf::wire
