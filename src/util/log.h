// gnf's log: spdlog's default logger, named "gnf", on stderr. Every line carries the time and the
// logger's name, and a warning or an error says so after the name, as gnf's messages always did:
//   2026-11-25T06:40:01.123 gnf: error: run.toml:7: nf[0].type: each [[nf]] needs a type
// Call spdlog::info/warn/error/debug anywhere; set_up_log() chooses the level once, before anything
// logs. A command's own lines may come from a clone under its name
// (spdlog::default_logger()->clone("gnf bench")), which writes alike at the same level.
#pragma once
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

namespace gnf {

// Messages below `level` are not written.
void set_up_log(spdlog::level::level_enum level);

// The names --log-level takes, most verbose first: trace, debug, info, warning, error, off.
std::vector<std::string> log_level_names();
// The level of one of those names; std::invalid_argument for another.
spdlog::level::level_enum log_level_from_name(const std::string& name);

}  // namespace gnf
