#include "app/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

#include "mem/cuda_alloc.h"

namespace gnf::app {

namespace {

constexpr double kBytesPerMib = 1024.0 * 1024.0;

std::string hostname() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "unknown";
}

// The first "model name" of /proc/cpuinfo (x86; ARM kernels have none: "unknown").
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "unknown" : line.substr(start);
  }
  return "unknown";
}

std::string kernel() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release;
}

}  // namespace

nlohmann::json environment_json(const Nvml* nvml) {
  nlohmann::json gpu = nullptr;
  if (nvml) {
    std::optional<mem::CudaInfo> cuda = mem::cuda_info();
    gpu = {{"name", nvml->info().name},
           {"driver", nvml->info().driver_version},
           {"cuda_driver", cuda ? nlohmann::json(cuda->driver_version) : nlohmann::json(nullptr)},
           {"cuda_runtime", cuda ? nlohmann::json(cuda->runtime_version) : nlohmann::json(nullptr)},
           {"memory_total_mib", uint64_t(double(nvml->info().memory_total_bytes) / kBytesPerMib)}};
  }
#if defined(GNF_HAVE_CUDA)
  constexpr bool built_with_cuda = true;
#else
  constexpr bool built_with_cuda = false;
#endif
  return {{"hostname", hostname()},
          {"cpu_model", cpu_model()},
          {"cpu_cores", std::thread::hardware_concurrency()},
          {"kernel", kernel()},
          {"gpu", gpu},
          {"build", {{"type", GNF_BUILD_TYPE}, {"cuda", built_with_cuda}}}};
}

}  // namespace gnf::app
