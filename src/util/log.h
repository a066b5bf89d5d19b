// gnf's log: spdlog's default logger, named "gnf", on stderr. A line carries the logger's name, and
// a warning or an error says so after the name, as gnf's messages always did; once a data path
// runs (log_times()), the time comes first:
//   gnf: error: run.toml:7: nf[0].type: each [[nf]] needs a type
//   2026-11-25T06:40:01.123 gnf: [    1.0s] port0    rx  812.345 kpps ...
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
// From now on every line begins with the time (ms, local): a data path runs, and what it logs is
// read against what else happened then. What went before (the command line, the config) says only
// what was wrong, as a compiler does.
void log_times();

// The names --log-level takes, most verbose first: trace, debug, info, warning, error, off.
std::vector<std::string> log_level_names();
// The level of one of those names; std::invalid_argument for another.
spdlog::level::level_enum log_level_from_name(const std::string& name);

}  // namespace gnf
