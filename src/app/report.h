// What `gnf run` prints: the per-second stats line and the final JSON summary.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "path/pipeline.h"

namespace gnf::app {

// One line per port for the interval between two snapshots (rates over that interval).
std::string stats_lines(const path::Snapshot& previous, const path::Snapshot& current, double since_start_s);

// The final summary: config, counters (ports, driver, NFs), measurements, accounting checks.
nlohmann::json summary_json(const path::Pipeline& pipeline, const path::Snapshot& start, const path::Snapshot& end,
                            bool drained);

}  // namespace gnf::app
