// The JSON of one `gnf bench` trial (bench/SCHEMA.md, "The JSON").
#pragma once
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/bench_flags.h"
#include "app/verdict.h"
#include "util/nvml.h"
#include "path/pipeline.h"

namespace gnf::app {

// What running a trial left for its report.
struct TrialRun {
  path::Snapshot first;      // before start (time: the start)
  path::Snapshot at_window;  // just before the measured window opened
  path::Snapshot end;        // after the pipeline stopped
  uint64_t start_ns = 0, stop_ns = 0;
  bool drained = false;
  bool on_schedule = true;   // the generator sent its whole schedule in real time
  bool interrupted = false;  // Ctrl-C
  std::optional<GpuSampler::Summary> gpu;  // with NVML only
  std::string output_error;  // a sink that could not write its file ("" if none)
};

// Frames lost between two snapshots by where they died: {"nic_rx_buffer", "rx_ring", "tx_ring",
// "nf_drop", "to_host", "other"} (util/counter.h's Loss), each the change of the counters filed there.
nlohmann::json loss_where_json(const path::Snapshot& a, const path::Snapshot& b);

// What the NIC model's counters say between two snapshots (late frames, tx stalls, tx-ring loss);
// `sent` and `on_schedule` are the caller's to fill.
ModelHealth model_health(const path::Snapshot& a, const path::Snapshot& b);

// Only after the pipeline stopped.
nlohmann::json bench_json(const Trial& trial, const path::Pipeline& pipeline, const TrialRun& run,
                          const nlohmann::json& environment);

}  // namespace gnf::app
