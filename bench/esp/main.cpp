// gnf-esp-bench: ESP seal and open Gbit/s of gnf's GPU cipher (packets already in GPU memory,
// one thread per packet) beside OpenSSL's EVP on one core and on all of them, per algorithm and
// packet size, in one run. bench/esp/README.md says what it counts; `--help` the flags.
//
// Exit: 0 measured; 1 a bad flag; 3 a cipher failed or refused a packet it should have opened.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "cpu.h"
#include "gpu.h"
#include "mem/cuda_alloc.h"

namespace {

using namespace gnf::esp_bench;

struct Options {
  uint32_t gpu_packets = 1u << 18;  // two waves of resident threads on an H100
  uint32_t cpu_packets = 2048;      // per thread
  double cpu_seconds = 0.5;
  int launches = 9;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool gpu = true;
  std::string json = "esp_bench.json";
};

nlohmann::json rate_json(const Rate& r) { return {{"gbps", r.gbps}, {"mpps", r.mpps}}; }

int run(const Options& o) {
  const std::string no_gpu = !o.gpu ? "--no-gpu" : gnf::mem::cuda_device_available() ? "" : "no usable CUDA device";
  nlohmann::json report = {{"tool", "gnf-esp-bench"},
                           {"gpu", no_gpu.empty() ? gnf::mem::cuda_info()->device_name : ""},
                           {"gpu_skipped", no_gpu},
                           {"cpu_threads", o.threads},
                           {"gpu_packets", o.gpu_packets},
                           {"cpu_packets_per_thread", o.cpu_packets},
                           {"cpu_seconds", o.cpu_seconds},
                           {"gpu_launches", o.launches},
                           {"results", nlohmann::json::array()}};
  if (!no_gpu.empty()) std::cerr << "gnf-esp-bench: GPU half skipped: " << no_gpu << "\n";
  std::cout << fmt::format("{:<26} {:>5} {:>5} {:>12} {:>12} {:>14} {:>9}\n", "algorithm", "size", "op", "GPU Gbit/s",
                           "1 core", fmt::format("{} cores", o.threads), "GPU/all");
  for (const Algorithm& a : kAlgorithms) {
    for (const uint32_t size : kSizes) {
      const Workload cpu_work = make_workload(a, size, o.cpu_packets, 1);
      std::unique_ptr<EspOnGpu> gpu;
      if (no_gpu.empty()) gpu = std::make_unique<EspOnGpu>(make_workload(a, size, o.gpu_packets, 2));
      for (const bool seal : {true, false}) {
        const Rate one = openssl_rate(cpu_work, seal, 1, o.cpu_seconds);
        const Rate all = openssl_rate(cpu_work, seal, o.threads, o.cpu_seconds);
        nlohmann::json row = {{"algorithm", a.name},  {"size", size_name(size)},
                              {"op", seal ? "seal" : "open"}, {"openssl_1_core", rate_json(one)},
                              {"openssl_all_cores", rate_json(all)}};
        std::string gpu_text = "-", ratio = "-";
        if (gpu) {
          const Rate g = gpu->rate(seal, o.launches);
          row["gpu_thread_per_packet"] = rate_json(g);
          gpu_text = fmt::format("{:.1f}", g.gbps);
          ratio = fmt::format("{:.2f}x", g.gbps / all.gbps);
        }
        report["results"].push_back(row);
        std::cout << fmt::format("{:<26} {:>5} {:>5} {:>12} {:>12.1f} {:>14.1f} {:>9}\n", a.name, size_name(size),
                                 seal ? "seal" : "open", gpu_text, one.gbps, all.gbps, ratio)
                  << std::flush;
      }
    }
  }
  std::ofstream(o.json) << report.dump(2) << "\n";
  std::cout << "written: " << o.json << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"gnf-esp-bench: ESP seal/open Gbit/s, GPU (thread per packet) beside OpenSSL EVP on 1 and all cores"};
  app.add_option("--gpu-packets", o.gpu_packets, "packets per GPU launch")->check(CLI::Range(1u, 1u << 22));
  app.add_option("--cpu-packets", o.cpu_packets, "packets per CPU thread, sealed or opened over and over")
      ->check(CLI::Range(1u, 1u << 20));
  app.add_option("--cpu-seconds", o.cpu_seconds, "seconds per CPU measurement")->check(CLI::Range(0.01, 60.0));
  app.add_option("--launches", o.launches, "timed GPU launches per measurement (the median is reported)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--threads", o.threads, "CPU threads of the all-cores measurement")->check(CLI::Range(1u, 1024u));
  app.add_flag("!--no-gpu", o.gpu, "measure OpenSSL only");
  app.add_option("--json", o.json, "where to write the results");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "gnf-esp-bench: " << e.what() << "\n";
    return 3;
  }
}
