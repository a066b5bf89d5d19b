// The flags that set how much gnf run and gnf bench log (util/log.h): -v, -q or --log-level.
#pragma once
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

namespace gnf::app {

struct LogFlags {
  int verbose = 0;        // -v: debug, -vv: trace
  bool quiet = false;     // -q: warnings and errors only
  std::string level_name; // --log-level NAME
  // The level the flags given ask for; info when none was given.
  spdlog::level::level_enum level() const;
};

// Declares -v, -q and --log-level on `cmd` (one of them at most); `quiet_help` says what -q hides.
void add_log_options(CLI::App& cmd, LogFlags& flags, const std::string& quiet_help);

}  // namespace gnf::app
