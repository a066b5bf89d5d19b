// Where a benchmark ran: host, CPU, kernel, GPU and how gnf was built (bench/SCHEMA.md,
// `environment`).
#pragma once
#include <nlohmann/json.hpp>

#include "util/nvml.h"

namespace gnf::app {

// `nvml` may be null (no GPU or no NVML): "gpu" is then null.
nlohmann::json environment_json(const Nvml* nvml);

}  // namespace gnf::app
