// What gnf writes: checked before the run starts and again as it is written. A run never overwrites
// one of its inputs, never writes two outputs into one file, and never ends with exit 0 when an
// output was lost (a full disk, /dev/full): it says which, and what was measured still reaches
// stderr.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctl/config.h"

namespace gnf::app {

// Before anything runs: every output the config and `json_file` name (the ports' pcap sinks, the
// JSON; "-" is stdout) can be created, is not a file the config reads (the config itself, pcap
// sources, files an NF parameter names) and is not another output. Throws UserError naming the
// key or the flag.
void check_outputs(const ctl::Config& config, const std::string& json_file);

// The JSON summary's file (--json), created before the run starts so that a bad name stops it
// before anything runs, and removed again if the run never got to write it; "" writes nothing,
// "-" goes to stdout.
class JsonOutput {
 public:
  // Throws UserError "--json: FILE: problem".
  explicit JsonOutput(std::string file);
  ~JsonOutput();
  JsonOutput(const JsonOutput&) = delete;
  JsonOutput& operator=(const JsonOutput&) = delete;

  // Writes `j` and closes the file. If not all of it reached the file, `j` goes to stderr instead
  // and what went wrong is added to `errors`.
  void write(const nlohmann::json& j, std::vector<std::string>& errors);

 private:
  std::string file_;
  FILE* out_ = nullptr;
};

// The exit code of a run whose consistency check said `consistency`: that, unless it passed and an
// output failed (kExitError). Says each output error on stderr.
int exit_code(int consistency, const std::vector<std::string>& output_errors);

}  // namespace gnf::app
