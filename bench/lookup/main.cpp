// gnf-lookup-bench: lookups per second of gnf's LPM tables and DPDK's on one pinned CPU core, and of
// gnf's on the GPU, over one table per family and each address set, with the tables' memory.
// bench/lookup/README.md says what it measures and writes; `gnf-lookup-bench --help` the flags.
//
// Exit: 0 measured; 1 a bad flag or input; 3 implementations disagreed (nothing was timed after
// that) or a library failed; 77 DPDK's EAL could not start here (printed with DPDK's reason).
#include <fmt/format.h>
#include <rte_eal.h>
#include <sched.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "app/environment.h"
#include "eal.h"
#include "families.h"
#include "gpu.h"
#include "mem/cuda_alloc.h"
#include "util/error.h"
#include "util/nvml.h"

namespace {

using namespace gnf::lookup_bench;

// The last CPU this process may run on: on a small machine, the one the shell and the build use least.
int last_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  int last = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) last = c;
  }
  return last;
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0 || sched_getcpu() != cpu) {
    throw gnf::UserError(fmt::format("--core {}: cannot run on that CPU (sched_setaffinity)", cpu));
  }
}

void check(const Options& o) {
  auto fail = [](const std::string& what) { throw gnf::UserError(what); };
  if (o.count == 0 || o.count >= (1ull << 31)) fail("--count: 1 .. 2^31 - 1 addresses");
  if (o.working_set == 0) fail("--working-set: at least 1");
  if (o.repetitions < 1) fail("--repetitions: at least 1");
  for (uint32_t b : o.batches) {
    if (b == 0) fail("--batch: sizes of at least 1");
  }
  for (uint32_t b : o.block_sizes) {
    if (b == 0 || b % 32 || b > 1024) fail("--block-sizes: multiples of 32 up to 1024");
  }
  if (o.ipv4 == "none" && o.ipv6 == "none") fail("--ipv4 none and --ipv6 none: nothing to measure");
  for (const std::string& set : o.address_sets) distinct_addresses(set, o);  // throws for an unknown name
}

nlohmann::json options_json(const Options& o) {
  return {{"ipv4", o.ipv4},
          {"ipv6", o.ipv6},
          {"address_sets", o.address_sets},
          {"count", o.count},
          {"working_set", o.working_set},
          {"batches", o.batches},
          {"core", o.core},
          {"repetitions", o.repetitions},
          {"min_repetition_s", o.min_repetition_s},
          {"seed", o.seed},
          {"rte_lpm_limit_s", o.rte_lpm_limit_s},
          {"gpu", o.gpu},
          {"gpu_lookups", o.gpu_lookups},
          {"block_sizes", o.block_sizes}};
}

nlohmann::json environment() {
  const std::optional<gnf::mem::CudaInfo> cuda = gnf::mem::cuda_info();
  const std::unique_ptr<gnf::Nvml> nvml = gnf::Nvml::open(cuda ? cuda->device_pci_bus_id : std::string());
  return gnf::app::environment_json(nvml.get());
}

// /proc/loadavg's 1, 5 and 15 minute load averages: on a shared machine, how much else ran.
std::vector<double> load_averages() {
  std::ifstream in("/proc/loadavg");
  std::vector<double> load(3);
  in >> load[0] >> load[1] >> load[2];
  return load;
}

// What the CPU loops are, for whoever reads the numbers.
nlohmann::json cpu_json(int core) {
  return {{"core", core},
          {"pinned", "sched_setaffinity to this CPU alone; DPDK's EAL runs its main lcore there too"},
          {"variants",
           {{"scalar",
             "one call per address: the library's inline lookup inside a function the loop calls (not "
             "inlined), as packet-at-a-time code calls it"},
            {"batch",
             "one call per N addresses: the library's bulk function, or for gnf a loop of its inline lookup "
             "over the N addresses into an array. Addresses are independent, so the out-of-order core "
             "overlaps the cache misses of neighbouring lookups in both variants; a batch saves the call per "
             "address and gives the compiler a loop to schedule"},
            {"x4", "rte_lpm_lookupx4: four addresses per call in SSE registers, as DPDK's l3fwd example uses it"}}},
          {"timing",
           "one warm-up pass over the set, then each repetition: as many passes as the warm-up says "
           "take >= min_repetition_s; steady_clock"},
          {"load_average_start", load_averages()}};
}

int run(Options& o) {
  check(o);
  if (o.core < 0) o.core = last_allowed_cpu();
  Report report;
  report.options = options_json(o);
  std::optional<Table4> ipv4;
  std::optional<Table6> ipv6;
  if (o.ipv4 != "none") ipv4 = load_ipv4_table(o.ipv4, o.seed);
  if (o.ipv6 != "none") ipv6 = load_ipv6_table(o.ipv6, o.seed);

  // Pinned here first, so that a CPU this process may not use is a flag error, not EAL's; EAL pins
  // its main thread (this one) there again. AVX-512 lookups are allowed where the CPU has them.
  pin_to(o.core);
  const uint64_t heap = (ipv4 ? ipv4_dpdk_bytes(*ipv4) : 0) + (ipv6 ? ipv6_dpdk_bytes(*ipv6) : 0);
  const std::string heap_mib = std::to_string(heap * 5 / 4 / (1 << 20) + 256);
  if (!gnf::oracle::start_eal("gnf-lookup-bench", heap_mib.c_str(), o.core, {"--force-max-simd-bitwidth=512"})) {
    return 77;
  }
  if (sched_getcpu() != o.core) throw std::runtime_error("EAL moved this thread off --core");
  report.environment = environment();
  report.cpu = cpu_json(o.core);

  bool gpu = o.gpu;
  if (gpu) {
    const std::string why_not = gpu_unusable_reason();
    gpu = why_not.empty();
    if (gpu) {
      report.gpu = gpu_description();
      report.gpu["kernels"] =
          "one thread per address, grid = ceil(addresses / block); addresses and results in GPU "
          "memory; a launch set of ceil(gpu_lookups / addresses) launches timed with CUDA events";
      report.gpu["tables"] =
          "sync::DeviceMirror, a region per table (tbl24, the whole tbl8 capacity), as "
          "Router::device_tables() makes the l3fwd NF's";
    } else {
      report.note("GPU part not run: " + why_not);
    }
  }

  int status = 0;
  try {
    if (ipv4) bench_ipv4(*ipv4, o, gpu, report);
    if (ipv6) bench_ipv6(*ipv6, o, gpu, report);
  } catch (const Disagreement& e) {
    fprintf(stderr, "gnf-lookup-bench: %s\n", e.what());
    report.notes.push_back(std::string("stopped: ") + e.what());
    status = 3;
  }
  rte_eal_cleanup();
  report.cpu["load_average_end"] = load_averages();
  if (!o.json.empty()) {
    std::ofstream out(o.json);
    out << report.to_json().dump(1) << "\n";
    if (!out) throw gnf::UserError("--json " + o.json + ": cannot write");
  }
  report.print(stdout);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "gnf-lookup-bench: LPM lookups/s of gnf (CPU core and GPU) beside DPDK's rte_lpm, rte_fib and "
      "rte_fib6 on the same tables and addresses (bench/lookup/README.md)"};
  app.add_option("--ipv4", o.ipv4, "IPv4 table: a pyasn file, synthetic:N (e.g. synthetic:1M) or none")
      ->capture_default_str();
  app.add_option("--ipv6", o.ipv6, "IPv6 table: a pyasn file, synthetic:N (e.g. synthetic:220k) or none")
      ->capture_default_str();
  app.add_option("--sets", o.address_sets, "address sets: uniform, routed, working-set")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--count", o.count, "addresses per set")->capture_default_str();
  app.add_option("--working-set", o.working_set, "distinct addresses of the working-set set")->capture_default_str();
  app.add_option("--batch", o.batches, "addresses per call of the batch variants")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--core", o.core, "CPU to pin to (default: the last one this process may use)");
  app.add_option("--repetitions", o.repetitions, "timed repetitions per measurement")->capture_default_str();
  app.add_option("--min-repetition-s", o.min_repetition_s, "CPU: seconds of work per repetition, at least")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of synthetic tables and address sets")->capture_default_str();
  app.add_option("--rte-lpm-limit-s", o.rte_lpm_limit_s, "give rte_lpm up when its build would take longer")
      ->capture_default_str();
  app.add_flag("!--no-gpu", o.gpu, "CPU only, even where a GPU is");
  app.add_option("--gpu-lookups", o.gpu_lookups, "GPU: lookups per timed launch set")->capture_default_str();
  app.add_option("--block-sizes", o.block_sizes, "GPU: threads per block to try")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--json", o.json, "write every measurement here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    return run(o);
  } catch (const gnf::UserError& e) {
    fprintf(stderr, "gnf-lookup-bench: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fprintf(stderr, "gnf-lookup-bench: %s\n", e.what());
    return 3;
  }
}
