// Where a run's threads ran ([threads] cpus and control_cpus, util/cores.h) and how its poll-mode
// threads waited (util/idle_backoff.h): the summary's "placement" and its line at the end of a run.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "path/pipeline.h"

namespace gnf::app {

// After stop(), every thread: [{"role" ("driver", "nic" or "control"), "name", "cpu" (the CPU it
// was pinned to, or null), "cpus" (those it could run on, as "0-3,6")}], the poll-mode threads
// first (the NIC model's, then the driver's).
nlohmann::json placement_json(const path::Pipeline& pipeline);

// "threads: gnf-nic0 (NIC model) on CPU 0, gnf-drv0 (driver) on CPU 1; other threads on CPUs 0:
// gnf, gnf-slowpath", from placement_json's.
std::string placement_line(const nlohmann::json& placement);

}  // namespace gnf::app
