// The flags that set how much gnf run and gnf bench log (util/log.h): -v or --log-level, and -q.
#pragma once
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

namespace gnf::app {

struct LogFlags {
  int verbose = 0;        // -v: debug, -vv: trace
  std::string level_name; // --log-level NAME
  // -q: none of the command's own report (stats lines, the end-of-run summary; the progress bar and
  // the outcome line of a trial); other messages stay, at any level.
  bool quiet = false;
  // The level the flags given ask for; info when none was given.
  spdlog::level::level_enum level() const;
};

// Declares -v and --log-level (one of them at most) and -q on `cmd`; `quiet_help` says what -q hides.
void add_log_options(CLI::App& cmd, LogFlags& flags, const std::string& quiet_help);

}  // namespace gnf::app
