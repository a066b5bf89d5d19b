#include "app/log_flags.h"

#include "util/log.h"

namespace gnf::app {

spdlog::level::level_enum LogFlags::level() const {
  if (!level_name.empty()) return log_level_from_name(level_name);
  if (verbose >= 2) return spdlog::level::trace;
  return verbose == 1 ? spdlog::level::debug : spdlog::level::info;
}

void add_log_options(CLI::App& cmd, LogFlags& f, const std::string& quiet_help) {
  CLI::Option* verbose = cmd.add_flag("-v,--verbose", f.verbose, "More log: -v debug, -vv trace");
  cmd.add_flag("-q,--quiet", f.quiet, quiet_help);
  CLI::Option* level = cmd.add_option("--log-level", f.level_name, "Log messages of this level and above")
                           ->check(CLI::IsMember(log_level_names()));
  verbose->excludes(level);
}

}  // namespace gnf::app
