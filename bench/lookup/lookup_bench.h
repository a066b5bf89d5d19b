// gnf-lookup-bench: what one longest-prefix-match lookup costs, gnf's tables (nf/l3fwd/lpm4.h,
// lpm6.h) beside DPDK's rte_lpm, rte_fib and rte_fib6 on one CPU core, over the same table and the
// same addresses, and gnf's on the GPU. What the binary measures and writes: bench/lookup/README.md.
//
// This header: the options, one measurement, the report they go into, and the timing loop every
// CPU measurement shares.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace gnf::lookup_bench {

inline constexpr uint32_t kNoRoute = 0;  // every route's next hop is >= 1; 0 is every library's "no route" here

struct Options {
  std::string ipv4 = "/usr/lib/python3/dist-packages/data/ipasn_20140513.dat.gz";  // or synthetic:N, or none
  std::string ipv6 = "/usr/lib/python3/dist-packages/data/ipasn6_20151101.dat.gz";
  std::vector<std::string> address_sets = {"uniform", "routed", "working-set"};
  uint64_t count = 1u << 24;        // addresses per set (the working set repeats its distinct ones)
  uint64_t working_set = 1u << 16;  // distinct addresses of the working-set set
  std::vector<uint32_t> batches = {32, 64};
  int core = -1;  // -1: the last CPU this process may run on
  int repetitions = 5;
  double min_repetition_s = 0.2;
  uint64_t seed = 2026;
  double rte_lpm_limit_s = 120;  // rte_lpm's build is given up when it would take longer (see ipv4.cpp)
  bool gpu = true;
  uint64_t gpu_lookups = 1ull << 28;  // per timed launch set
  std::vector<uint32_t> block_sizes = {128, 256, 512, 1024};
  std::string json;
};

// One implementation timed over one address set: `lookups` per repetition, `seconds` each.
struct Measurement {
  std::string family;          // ipv4 | ipv6
  std::string device;          // cpu | gpu
  std::string implementation;  // the function measured: "lpm4_lookup", "rte_fib_lookup_bulk", ...
  std::string library;         // gnf | dpdk
  std::string variant;         // scalar | batch | x4 | write | sum
  uint32_t batch = 0;          // addresses per call (batch), threads per block (GPU); 0: one per call
  std::string address_set;
  uint64_t lookups = 0;
  std::vector<double> seconds;
  nlohmann::json detail = nlohmann::json::object();  // CPU: passes per repetition; GPU: grid, block, launches

  double best_s() const;
  double median_s() const;
  std::string label() const;  // what the tables print: "gnf lpm4_lookup, 32 per call"
  nlohmann::json to_json() const;
};

// A CPU measurement to be: what is timed, not yet how fast.
inline Measurement cpu_measurement(const char* family, const char* implementation, const char* library,
                                   const char* variant, uint32_t batch) {
  Measurement m;
  m.family = family;
  m.device = "cpu";
  m.implementation = implementation;
  m.library = library;
  m.variant = variant;
  m.batch = batch;
  return m;
}

// What one run found: written as JSON (--json) and printed as tables.
struct Report {
  nlohmann::json environment;
  nlohmann::json options;
  nlohmann::json cpu = nlohmann::json::object();     // the core, and what the loops are
  nlohmann::json gpu = nullptr;                      // the device and the kernels' shape; null: none ran
  nlohmann::json tables = nlohmann::json::object();  // per family: routes, build times, memory
  nlohmann::json address_sets = nlohmann::json::array();
  nlohmann::json verification = nlohmann::json::array();
  std::vector<Measurement> measurements;
  std::vector<std::string> notes;

  void note(const std::string& text);  // printed now on stderr, and kept
  nlohmann::json to_json() const;
  void print(FILE* out) const;
};

// Answers that differ between implementations: the run stops there (exit 3), nothing more is timed.
struct Disagreement : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Resident memory of this process, bytes (/proc/self/statm).
uint64_t resident_bytes();

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Times `pass` (one pass over an address set of `lookups` addresses): one pass to warm up (caches,
// TLB, first touches), then o.repetitions repetitions of as many passes as take at least
// o.min_repetition_s by the warm-up's time.
template <typename Pass>
Measurement time_passes(Measurement m, uint64_t lookups, const Options& o, Pass&& pass) {
  const auto warm = std::chrono::steady_clock::now();
  pass();
  const double one = std::max(seconds_since(warm), 1e-9);
  const uint64_t passes = std::max<uint64_t>(1, uint64_t(o.min_repetition_s / one) + 1);
  m.lookups = lookups * passes;
  for (int r = 0; r < o.repetitions; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t p = 0; p < passes; ++p) pass();
    m.seconds.push_back(seconds_since(start));
  }
  m.detail["passes"] = passes;
  return m;
}

// One CPU implementation, set up for the current address set.
struct CpuLookup {
  Measurement what;                          // family, implementation, library, variant, batch
  std::function<void()> pass;                // one pass over the address set into its own output
  std::function<uint32_t(uint64_t)> answer;  // after a pass: address i's next hop, kNoRoute for none
};

// Runs every lookup once over the set (`count` addresses) and compares each one's answers with the
// first one's; the comparison goes into the report, and any difference throws Disagreement, naming
// the first addresses (`address_text`). Then times each (time_passes) into the report. Returns the
// first one's answers, for checking the GPU's.
std::vector<uint32_t> verify_and_time(Report& report, const std::string& set, uint64_t count,
                                      std::vector<CpuLookup>& lookups, const Options& o,
                                      const std::function<std::string(uint64_t)>& address_text);

}  // namespace gnf::lookup_bench
