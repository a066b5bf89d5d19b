// What gnf's GPU-beside-CPU benchmarks (bench/esp's gnf-esp-bench, bench/nids's gnf-nids-bench)
// share: the flags of their measurement, the report's first fields, and main's error contract.
#pragma once
#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "mem/cuda_alloc.h"

namespace gnf::bench {

struct GpuVsCpuOptions {
  uint32_t gpu_packets = 0;  // per GPU launch
  uint32_t cpu_packets = 0;  // what the CPU threads work through over and over
  double cpu_seconds = 0.5;
  int launches = 9;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool gpu = true;
  std::string json;
};

// The flags; `cpu_work` says what one CPU measurement does ("OpenSSL", "Hyperscan").
inline void add_gpu_vs_cpu_flags(CLI::App& app, GpuVsCpuOptions& o, const std::string& cpu_work) {
  app.add_option("--gpu-packets", o.gpu_packets, "packets per GPU launch")->check(CLI::Range(1u, 1u << 22));
  app.add_option("--cpu-packets", o.cpu_packets, "packets the CPU threads work through over and over")
      ->check(CLI::Range(1u, 1u << 20));
  app.add_option("--cpu-seconds", o.cpu_seconds, "seconds per " + cpu_work + " measurement")->check(CLI::Range(0.01, 60.0));
  app.add_option("--launches", o.launches, "timed GPU launches per measurement (the median is reported)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--threads", o.threads, "CPU threads of the all-cores measurement")->check(CLI::Range(1u, 1024u));
  app.add_flag("!--no-gpu", o.gpu, "measure " + cpu_work + " only");
  app.add_option("--json", o.json, "where to write the results");
}

// Why the GPU half is skipped ("--no-gpu", "no usable CUDA device"), or "" when it runs.
inline std::string gpu_skipped(const GpuVsCpuOptions& o) {
  return !o.gpu ? "--no-gpu" : mem::cuda_device_available() ? "" : "no usable CUDA device";
}

// The report's first fields: the tool, the GPU (or why it was skipped) and the options.
inline nlohmann::json report_header(const std::string& tool, const GpuVsCpuOptions& o) {
  const std::string skipped = gpu_skipped(o);
  if (!skipped.empty()) std::cerr << tool << ": GPU half skipped: " << skipped << "\n";
  return {{"tool", tool},
          {"gpu", skipped.empty() ? mem::cuda_info()->device_name : ""},
          {"gpu_skipped", skipped},
          {"cpu_threads", o.threads},
          {"gpu_packets", o.gpu_packets},
          {"cpu_seconds", o.cpu_seconds},
          {"gpu_launches", o.launches},
          {"results", nlohmann::json::array()}};
}

inline void write_report(const nlohmann::json& report, const std::string& path) {
  std::ofstream(path) << report.dump(2) << "\n";
  std::cout << "written: " << path << "\n";
}

// main's end: `run`'s exit status, or 3 with the error on stderr.
inline int run_or_exit_3(const std::string& tool, const std::function<int()>& run) {
  try {
    return run();
  } catch (const std::exception& e) {
    std::cerr << tool << ": " << e.what() << "\n";
    return 3;
  }
}

}  // namespace gnf::bench
