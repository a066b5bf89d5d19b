// `gnf run`'s flags: a config file, or the single-port quick forms (one port fed by a pcap file or
// the generator, l2fwd, a pcap file out), and the run's own (JSON, stats, log).
#pragma once
#include <string>

#include <CLI/CLI.hpp>

#include "app/config_flags.h"
#include "app/log_flags.h"
#include "ctl/config.h"

namespace gnf::app {

struct RunFlags {
  std::string config_file;
  std::string json_file;
  double stats_interval = 1.0;
  bool stats = true;  // the per-second stats lines (--no-stats)
  std::string ctl_socket;      // --ctl-socket, over the config's [ctl] socket
  std::string metrics_listen;  // --metrics-listen, over the config's [metrics] listen
  LogFlags log;
  std::string nf = "l2fwd", mode = "reflect", mac = "none";
  ConfigFlags config;  // the flags that set config options (--path, --speed, --burst ...)
};

// Declares the run subcommand's options on `cmd`, bound to `flags`.
void add_run_options(CLI::App& cmd, RunFlags& flags);

// After parsing: the config file with the flags given on top of it, or the port the flags
// describe. Throws gnf::UserError naming the flag for a value its config key would not take.
ctl::Config config_from_flags(const RunFlags& flags);

}  // namespace gnf::app
