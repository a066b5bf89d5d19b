// A build without CUDA: the GPU half reports itself unusable, and main never makes its objects.
#include <stdexcept>

#include "gpu.h"

namespace gnf::lookup_bench {

namespace {
[[noreturn]] void no_cuda() { throw std::logic_error("gnf-lookup-bench was built without CUDA"); }
}  // namespace

std::string gpu_unusable_reason() { return "gnf-lookup-bench was built without CUDA"; }
nlohmann::json gpu_description() { return nullptr; }

struct Lpm4OnGpu::Impl {};
Lpm4OnGpu::Lpm4OnGpu(const nf::Lpm4Table&) { no_cuda(); }
Lpm4OnGpu::~Lpm4OnGpu() = default;
size_t Lpm4OnGpu::device_bytes() const { no_cuda(); }
void Lpm4OnGpu::run(const std::string&, const std::vector<uint32_t>&, const std::vector<uint32_t>&, const Options&,
                    Report&) {
  no_cuda();
}

struct Lpm6OnGpu::Impl {};
Lpm6OnGpu::Lpm6OnGpu(const nf::Lpm6Table&) { no_cuda(); }
Lpm6OnGpu::~Lpm6OnGpu() = default;
size_t Lpm6OnGpu::device_bytes() const { no_cuda(); }
void Lpm6OnGpu::run(const std::string&, const std::vector<oracle::Ipv6Bytes>&, const std::vector<uint32_t>&,
                    const Options&, Report&) {
  no_cuda();
}

}  // namespace gnf::lookup_bench
