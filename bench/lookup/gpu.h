// The GPU half: gnf's lpm4_lookup / lpm6_lookup in kernels, one thread per address, over a copy of
// the tables in GPU memory made as the l3fwd NF makes it: a sync::DeviceMirror region per table
// (tbl24 and the whole tbl8 capacity), as Router::device_tables() adds them. Addresses and results
// are in GPU memory; each launch set is timed with CUDA events. Built with CUDA only (gpu.cu);
// without it (no_gpu.cpp) gpu_unusable_reason() says so and nothing else is called.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lookup_bench.h"
#include "nf/l3fwd/lpm4.h"
#include "nf/l3fwd/lpm6.h"
#include "tables.h"

namespace gnf::lookup_bench {

// Empty when a CUDA device is usable here; else why not.
std::string gpu_unusable_reason();
// The device's name and shape, for the report.
nlohmann::json gpu_description();

class Lpm4OnGpu {
 public:
  explicit Lpm4OnGpu(const nf::Lpm4Table& table);
  ~Lpm4OnGpu();
  size_t device_bytes() const;
  // Copies the set to the GPU, checks the kernel's answers (write and sum) against `expected`
  // (throws Disagreement), then times each kernel at each of o.block_sizes into the report.
  void run(const std::string& set, const std::vector<uint32_t>& addrs, const std::vector<uint32_t>& expected,
           const Options& o, Report& report);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class Lpm6OnGpu {
 public:
  explicit Lpm6OnGpu(const nf::Lpm6Table& table);
  ~Lpm6OnGpu();
  size_t device_bytes() const;
  void run(const std::string& set, const std::vector<oracle::Ipv6Bytes>& addrs, const std::vector<uint32_t>& expected,
           const Options& o, Report& report);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnf::lookup_bench
