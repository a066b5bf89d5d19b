// gnf-nids-bench: multi-pattern matching Gbit/s of the nids automaton on the GPU (payloads already
// in GPU memory; a thread per packet and a warp per packet) beside Hyperscan on one core and on all
// of them, per pattern set and payload size, in one run. Every GPU launch's match count is held to
// the host scan's of the same corpus, and Hyperscan's to the host scan's of its corpus: a benchmark
// that computed nothing, or something else, stops (exit 3). bench/nids/README.md says what it counts.
//
// Exit: 0 measured; 1 a bad flag; 3 a count differed or something failed.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "corpus.h"
#include "gpu.h"
#include "hyperscan.h"
#include "gpu_vs_cpu.h"

namespace {

using namespace gnf::nids_bench;

struct Options : gnf::bench::GpuVsCpuOptions {
  uint32_t large = 10240;
};

nlohmann::json rate_json(double gbps, double mpps) { return {{"gbps", gbps}, {"mpps", mpps}}; }

void expect_equal(uint64_t got, uint64_t host, const std::string& what) {
  if (got != host) throw std::runtime_error(fmt::format("{}: {} matches, the host scan {}", what, got, host));
}

int run(const Options& o) {
  const std::string no_gpu = gnf::bench::gpu_skipped(o);
  nlohmann::json report = gnf::bench::report_header("gnf-nids-bench", o);
  report["cpu_packets"] = o.cpu_packets;
  std::cout << fmt::format("{:>8} {:>5} {:>9} {:>10} {:>9} {:>9} {:>11} {:>8}\n", "patterns", "size", "thread/pkt",
                           "warp/pkt", "hs 1 core", fmt::format("hs {} cores", o.threads), "DFA MiB", "GPU/all");
  for (const PatternSet& set : pattern_sets(o.large)) {
    const auto start = std::chrono::steady_clock::now();
    const gnf::nf::NidsAutomaton automaton(set.patterns, size_t(4) << 30);
    const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const Hyperscan hyperscan(set.patterns);
    for (const uint32_t size : kSizes) {
      const Corpus cpu_corpus = make_corpus(set.patterns, size, o.cpu_packets, 1);
      const uint64_t cpu_host = host_matches(automaton.view(), cpu_corpus);
      expect_equal(hyperscan.matches(cpu_corpus), cpu_host, "Hyperscan");
      const Rate one = hyperscan.rate(cpu_corpus, 1, o.cpu_seconds);
      const Rate all = hyperscan.rate(cpu_corpus, o.threads, o.cpu_seconds);
      nlohmann::json row = {{"patterns", set.patterns.size()},
                            {"pattern_source", set.source},
                            {"automaton_bytes", automaton.arena_bytes()},
                            {"automaton_states", automaton.states()},
                            {"build_ms", build_ms},
                            {"hyperscan_build_ms", hyperscan.build_ms()},
                            {"size", size_name(size)},
                            {"hyperscan_1_core", rate_json(one.gbps, one.mpps)},
                            {"hyperscan_all_cores", rate_json(all.gbps, all.mpps)},
                            {"cpu_corpus_matches", cpu_host}};
      std::string thread_text = "-", warp_text = "-", ratio = "-";
      if (no_gpu.empty()) {
        const Corpus gpu_corpus = make_corpus(set.patterns, size, o.gpu_packets, 2);
        const uint64_t gpu_host = host_matches(automaton.view(), gpu_corpus);
        ScanOnGpu gpu(automaton, gpu_corpus);
        double best = 0;
        for (const Shape shape : {Shape::ThreadPerPacket, Shape::WarpPerPacket}) {
          const bool per_thread = shape == Shape::ThreadPerPacket;
          const GpuScan scan = gpu.scan(shape, o.launches);
          expect_equal(scan.matches, gpu_host, per_thread ? "GPU, thread per packet" : "GPU, warp per packet");
          const double gbps = double(gpu_corpus.bytes.size()) * 8 / scan.seconds / 1e9;
          row[per_thread ? "gpu_thread_per_packet" : "gpu_warp_per_packet"] =
              rate_json(gbps, gpu_corpus.packets() / scan.seconds / 1e6);
          (per_thread ? thread_text : warp_text) = fmt::format("{:.1f}", gbps);
          best = std::max(best, gbps);
        }
        row["gpu_corpus_matches"] = gpu_host;
        ratio = fmt::format("{:.2f}x", best / all.gbps);
      }
      report["results"].push_back(row);
      std::cout << fmt::format("{:>8} {:>5} {:>9} {:>10} {:>9.1f} {:>9.1f} {:>11.1f} {:>8}\n", set.patterns.size(),
                               size_name(size), thread_text, warp_text, one.gbps, all.gbps,
                               automaton.arena_bytes() / 1048576.0, ratio)
                << std::flush;
    }
  }
  gnf::bench::write_report(report, o.json);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.gpu_packets = 1u << 17;
  o.cpu_packets = 4096;  // L2/L3-resident, as a core's burst is
  o.json = "nids_bench.json";
  CLI::App app{"gnf-nids-bench: multi-pattern matching Gbit/s, GPU (thread or warp per packet) beside Hyperscan"};
  gnf::bench::add_gpu_vs_cpu_flags(app, o, "Hyperscan");
  app.add_option("--large", o.large, "patterns of the largest set")->check(CLI::Range(2001u, 1u << 20));
  CLI11_PARSE(app, argc, argv);
  return gnf::bench::run_or_exit_3("gnf-nids-bench", [&] { return run(o); });
}
