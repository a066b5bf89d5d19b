// gnf-esp-bench: ESP seal and open Gbit/s of gnf's GPU cipher (packets already in GPU memory,
// one thread per packet, and for GCM a tile of 4-32 lanes per packet) beside OpenSSL's EVP on one core and on all of them, per algorithm and
// packet size, in one run. bench/esp/README.md says what it counts; `--help` the flags.
//
// Exit: 0 measured; 1 a bad flag; 3 a cipher failed or refused a packet it should have opened.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cpu.h"
#include "gpu.h"
#include "gpu_vs_cpu.h"
#include "nf/ipsec/ipsec_mb_cipher.h"

namespace {

using namespace gnf::esp_bench;

nlohmann::json rate_json(const Rate& r) { return {{"gbps", r.gbps}, {"mpps", r.mpps}}; }

// Which algorithms and sizes to measure: every one unless named (--algorithm, --size).
struct Selection {
  std::vector<std::string> algorithms, sizes;
  bool wants(const std::vector<std::string>& named, const std::string& name) const {
    return named.empty() || std::find(named.begin(), named.end(), name) != named.end();
  }
};

int run(const gnf::bench::GpuVsCpuOptions& o, const Selection& only) {
  const std::string no_gpu = gnf::bench::gpu_skipped(o);
  nlohmann::json report = gnf::bench::report_header("gnf-esp-bench", o);
  report["cpu_packets_per_thread"] = o.cpu_packets;
  report["ipsec_mb_burst"] = kIpsecMbBurst;
  report["ipsec_mb_arch"] = gnf::nf::IpsecMbEspCipher({}).arch();
  std::cout << fmt::format("Gbit/s of inner packets; CPU: OpenSSL EVP a packet a call, intel-ipsec-mb ({}) bursts of {}\n",
                           report["ipsec_mb_arch"].get<std::string>(), kIpsecMbBurst);
  const std::string all_cores = fmt::format("{} cores", o.threads);
  std::cout << fmt::format("{:<26} {:>5} {:>5} {:>10} {:>13} {:>9} {:>11} {:>9} {:>11} {:>9}\n", "algorithm", "size", "op",
                           "GPU thread", "GPU tile (n)", "ssl 1", "ssl " + all_cores, "mb 1", "mb " + all_cores,
                           "GPU/CPU");
  for (const Algorithm& a : kAlgorithms) {
    if (!only.wants(only.algorithms, a.name)) continue;
    for (const uint32_t size : kSizes) {
      if (!only.wants(only.sizes, size_name(size))) continue;
      const Workload cpu_work = make_workload(a, size, o.cpu_packets, 1);
      std::unique_ptr<EspOnGpu> gpu;
      if (no_gpu.empty()) gpu = std::make_unique<EspOnGpu>(make_workload(a, size, o.gpu_packets, 2));
      for (const bool seal : {true, false}) {
        const Rate one = cpu_rate(gnf::nf::CpuCryptoLibrary::Openssl, cpu_work, seal, 1, o.cpu_seconds);
        const Rate all = cpu_rate(gnf::nf::CpuCryptoLibrary::Openssl, cpu_work, seal, o.threads, o.cpu_seconds);
        const Rate mb_one = cpu_rate(gnf::nf::CpuCryptoLibrary::IpsecMb, cpu_work, seal, 1, o.cpu_seconds);
        const Rate mb_all = cpu_rate(gnf::nf::CpuCryptoLibrary::IpsecMb, cpu_work, seal, o.threads, o.cpu_seconds);
        nlohmann::json row = {{"algorithm", a.name},
                              {"size", size_name(size)},
                              {"op", seal ? "seal" : "open"},
                              {"openssl_1_core", rate_json(one)},
                              {"openssl_all_cores", rate_json(all)},
                              {"ipsec_mb_1_core", rate_json(mb_one)},
                              {"ipsec_mb_all_cores", rate_json(mb_all)}};
        std::string gpu_text = "-", tile_text = "-", ratio = "-";
        if (gpu) {
          const Rate g = gpu->rate(seal, o.launches);
          row["gpu_thread_per_packet"] = rate_json(g);
          gpu_text = fmt::format("{:.1f}", g.gbps);
          double best = g.gbps;
          // GCM on tiles of lanes (DeviceEspCipher::seal_tile); the other algorithms are serial.
          if (a.auth == gnf::nf::EspAuth::Gcm) {
            Rate best_tile{0, 0};
            uint32_t best_size = 0;
            for (const uint32_t tile : gcm_tile_sizes()) {
              const Rate t = gpu->rate(seal, o.launches, tile);
              row[fmt::format("gpu_tile_{}_per_packet", tile)] = rate_json(t);
              if (t.gbps > best_tile.gbps) best_tile = t, best_size = tile;
            }
            tile_text = fmt::format("{:.1f} ({})", best_tile.gbps, best_size);
            best = std::max(best, best_tile.gbps);
          }
          // Against the faster library on all cores.
          ratio = fmt::format("{:.2f}x", best / std::max(all.gbps, mb_all.gbps));
        }
        report["results"].push_back(row);
        std::cout << fmt::format("{:<26} {:>5} {:>5} {:>10} {:>13} {:>9.1f} {:>11.1f} {:>9.1f} {:>11.1f} {:>9}\n", a.name,
                                 size_name(size), seal ? "seal" : "open", gpu_text, tile_text, one.gbps, all.gbps,
                                 mb_one.gbps, mb_all.gbps, ratio)
                  << std::flush;
      }
    }
  }
  gnf::bench::write_report(report, o.json);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gnf::bench::GpuVsCpuOptions o;
  o.gpu_packets = 1u << 18;  // two waves of resident threads on an H100
  o.cpu_packets = 2048;      // per thread
  o.json = "esp_bench.json";
  CLI::App app{"gnf-esp-bench: ESP seal/open Gbit/s, GPU (a thread, and for GCM a tile, per packet) beside OpenSSL EVP and intel-ipsec-mb on 1 and all cores"};
  gnf::bench::add_gpu_vs_cpu_flags(app, o, "CPU library");
  Selection only;
  std::vector<std::string> algorithm_names, size_names;
  for (const Algorithm& a : kAlgorithms) algorithm_names.push_back(a.name);
  for (const uint32_t size : kSizes) size_names.push_back(size_name(size));
  app.add_option("--algorithm", only.algorithms, "only these algorithms (repeatable; default: all)")
      ->check(CLI::IsMember(algorithm_names));
  app.add_option("--size", only.sizes, "only these inner packet sizes (repeatable; default: all)")
      ->check(CLI::IsMember(size_names));
  CLI11_PARSE(app, argc, argv);
  return gnf::bench::run_or_exit_3("gnf-esp-bench", [&] { return run(o, only); });
}
