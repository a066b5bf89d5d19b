// What `gnf run` prints: the per-second stats line and the final JSON summary.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "path/pipeline.h"

namespace gnf::app {

// One line per port, and one for the driver, for the interval between two snapshots (rates over
// that interval).
std::vector<std::string> stats_lines(const path::Snapshot& previous, const path::Snapshot& current, double since_start_s);

// A latency histogram as JSON: count and unit, and when it is not empty min, p50, p90, p99,
// p99_9, max, mean, stddev and the nonzero buckets as [low edge ns, frames].
nlohmann::json latency_json(const wire::LatencyHistogram& histogram);

// The final summary: config, counters (ports, driver, NFs), measurements, accounting checks.
nlohmann::json summary_json(const path::Pipeline& pipeline, const path::Snapshot& start, const path::Snapshot& end,
                            bool drained);

// The exit code a summary calls for: 3 (with a message on stderr) when the slot audit failed or
// the counters of a drained run do not add up, else 0.
int consistency_exit_code(const nlohmann::json& summary);

}  // namespace gnf::app
