// `gnf bench`'s flags (bench/SCHEMA.md, "The command") and the trial they describe.
#pragma once
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "app/config_flags.h"
#include "app/log_flags.h"
#include "ctl/config.h"

namespace gnf::app {

struct BenchFlags {
  std::string config_file;
  bool calibrate = false;
  uint32_t ports = 2;
  double load_pct = 0;  // none given (nor a rate): 100 % of line rate
  double warmup_s = 0.5, duration_s = 2.0;
  bool tx_writeback_fc = false;
  std::string json_file;
  LogFlags log;
  ConfigFlags config;  // the flags that set config options (--path, --speed, --size, --burst ...)
};

// Declares the bench subcommand's options on `cmd`, bound to `flags`.
void add_bench_options(CLI::App& cmd, BenchFlags& flags);

struct Trial {
  ctl::Config config;  // the generator is port 0's source; path Calibrate for --calibrate
  double warmup_s = 0;
  double duration_s = 0;
};

// Builds the trial: the default two-port (or one-port) l2fwd setup or the config file, with the
// generator on port 0 and every given flag applied. Throws gnf::UserError naming the flag for a
// value no flag's check can judge alone (a rate above the line rate, ...).
Trial trial_from_flags(const BenchFlags& flags);

}  // namespace gnf::app
