// The measuring end of a test: a sink that reads the generator's stamps back and accounts for
// latency, loss, duplication and reordering (RFC 4737) per flow.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "wire/latency_histogram.h"
#include "wire/reorder_tracker.h"
#include "wire/stamp.h"
#include "wire/window.h"
#include "wire/wire.h"

namespace gnf::wire {

// Per-second latency histograms are coarser (1.6 %) than the whole window's, so that a long trial
// costs about 10 KiB per second rather than 120 KiB.
inline constexpr unsigned kPerSecondLatencyBits = 6;

struct MeasureReport {
  uint64_t received = 0;    // stamped frames, first copies only
  uint64_t received_bytes = 0;  // their layer-2 bytes (with FCS)
  uint64_t foreign = 0;     // frames without a stamp
  uint64_t duplicates = 0;  // further copies of a stamped frame
  uint64_t reordered = 0;   // RFC 4737 reordered frames
  uint64_t reorder_extent_max = 0;
  uint64_t reorder_extent_sum = 0;  // mean extent = sum / reordered
  uint64_t clock_skew = 0;  // delivered before their latency origin: left out of `latency`
  uint64_t clock_skew_max_ns = 0;  // the earliest of them, by how much (a one-way clock's error)
  // Indexed by flow id, up to the highest flow seen.
  std::vector<uint64_t> received_per_flow;
  std::vector<uint64_t> duplicates_per_flow;
  std::vector<uint64_t> reordered_per_flow;
  // Last bit delivered minus scheduled first bit sent (minus the GPU's departure time for a stamp
  // that carries one), for first copies.
  LatencyHistogram latency;

  // With a measured window only: by send second of the window (index 0 is its first second).
  struct Second {
    uint64_t received = 0;
    LatencyHistogram latency{kPerSecondLatencyBits, LatencyHistogram::Moments::Skipped};  // percentiles, maximum
  };
  std::vector<Second> per_second;

  // Frames sent but never received, summed over flows; a flow that received more than was sent
  // (someone else's traffic) counts 0, not less.
  uint64_t loss(const std::vector<uint64_t>& sent_per_flow) const;
  // Adds another sink's report (e.g. every port of a run), flow by flow and second by second.
  void merge(const MeasureReport& other);
};

class MeasuringSink : public Sink {
 public:
  // Every frame is passed on to `inner` first when given (e.g. a PcapSink, so one port can be
  // both recorded and measured); it is not owned. `duplicate_window` is per flow, see
  // ReorderTracker. Not thread-safe: read report() from the delivering thread or after finish().
  explicit MeasuringSink(Sink* inner = nullptr, uint32_t duplicate_window = 1u << 16);

  // From now on the report covers only frames sent inside `window` (received, duplicates,
  // reordering, latency) and adds a per-second series. Frames sent outside it still go through
  // their flow's order tracking, so a window frame overtaken by a warm-up frame is still found
  // reordered. Call before the first deliver().
  void set_window(const MeasuredWindow& window);

  void deliver(const uint8_t* data, uint32_t len, uint64_t time_ns) override;
  // As deliver(), for a frame of `len` bytes whose stamp was read elsewhere (the GPU as the sink
  // of a one-way measurement reads it and reports when it saw the frame).
  void deliver_stamp(const Stamp& stamp, uint32_t len, uint64_t time_ns);
  void flush() override;
  void finish() override;

  MeasureReport report() const;

 private:
  // A frame in order touches one cache line of its flow: `received` and the tracker's in-order
  // fields (ReorderTracker keeps them at its top).
  struct alignas(64) Flow {
    explicit Flow(uint32_t duplicate_window) : order(duplicate_window) {}
    uint64_t received = 0;  // frames in the window (all frames without one)
    ReorderTracker order;   // every stamped frame of the flow, in or out of the window
    uint64_t duplicates = 0, reordered = 0, extent_max = 0, extent_sum = 0;  // in the window, as received
  };

  Sink* inner_;
  uint32_t duplicate_window_;
  // Made on a flow's first frame: a stray stamp with a high flow id costs a pointer per flow
  // below it, not a tracker.
  std::vector<std::unique_ptr<Flow>> flows_;
  std::optional<MeasuredWindow> window_;
  uint64_t foreign_ = 0;
  uint64_t clock_skew_ = 0;
  uint64_t clock_skew_max_ns_ = 0;
  uint64_t received_bytes_ = 0;
  LatencyHistogram latency_;
  std::vector<MeasureReport::Second> per_second_;  // window_->seconds() entries
  // The window second of a send time (inside the window), through the last one looked up.
  MeasureReport::Second& second_of(uint64_t send_time_ns);
  uint64_t second_ = 0, second_start_ns_ = 0;
};

}  // namespace gnf::wire
