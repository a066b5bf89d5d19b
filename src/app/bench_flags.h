// `gnf bench`'s flags (bench/SCHEMA.md, "The command") and the trial they describe.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ctl/config.h"

namespace gnf::app {

struct BenchFlags {
  std::string config_file;
  std::string path;  // cpu | staged | bypass; empty: the config's, or cpu
  bool calibrate = false;
  uint32_t ports = 2;
  uint32_t speed = 10;
  uint32_t queues = 1;
  std::vector<uint32_t> sizes;  // empty: 64 B (IPv6: 84 B, the smallest stamped frame)
  bool imix = false;
  uint32_t flows = 64;
  int ip = 4;
  double load_pct = 0, rate_pps = 0, rate_gbps = 0;  // none given: 100 % of line rate
  double warmup_s = 0.5, duration_s = 2.0;
  uint32_t burst = 0, rx_ring = 0, tx_ring = 0, rx_tail_batch = 0, tx_tail_batch = 0;
  uint64_t tail_timeout_ns = 0;
  std::string tx_completion, tx_full;
  bool no_drop_en = false;
  uint32_t nic_threads = 0, driver_threads = 0;
  // Accepted so that the harness's command lines parse, refused until their features exist.
  std::string staged_mode;
  uint32_t staged_depth = 4;
  std::string nic_dma;
  bool tx_writeback_fc = false;
  std::string one_way;
  std::string json_file;
  bool quiet = false;

  // The long names ("--speed") of the flags given on the command line: a given flag overrides
  // the config file, a flag left out does not.
  std::set<std::string> given;
  bool has(const std::string& flag) const { return given.count(flag) != 0; }
};

// Declares the bench subcommand's options on `cmd`, bound to `flags`.
void add_bench_options(CLI::App& cmd, BenchFlags& flags);
// After parsing: fills flags.given.
void record_given_flags(const CLI::App& cmd, BenchFlags& flags);

struct Trial {
  ctl::Config config;  // the generator is port 0's source; path Calibrate for --calibrate
  double warmup_s = 0;
  double duration_s = 0;
};

// Builds the trial: the default two-port (or one-port) l2fwd setup or the config file, with the
// generator on port 0 and every given flag applied. Throws gnf::UserError naming the flag for a
// value no option check can judge alone, and for a flag whose feature is not built yet.
Trial trial_from_flags(const BenchFlags& flags);

}  // namespace gnf::app
