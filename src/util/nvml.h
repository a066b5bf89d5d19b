// The GPU as NVML sees it: name, driver, memory and utilisation, for the benchmark's record.
//
// NVML is loaded at run time (dlopen "libnvidia-ml.so.1", which the NVIDIA driver installs), so
// gnf neither links against it nor needs it: without the library or a GPU, open() returns null
// and the benchmark writes `"gpu": null`.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace gnf {

class Nvml {
 public:
  static constexpr const char* kLibrary = "libnvidia-ml.so.1";
  // The GPU with this PCI bus id ("0000:41:00.0"), or NVML's device 0 when it is empty. Null
  // when NVML or the GPU is not there; a warning on stderr says why when NVML is there but fails.
  // `library`: what dlopen() loads (tests load a fake).
  static std::unique_ptr<Nvml> open(const std::string& pci_bus_id, const char* library = kLibrary);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  struct DeviceInfo {
    std::string name;
    std::string driver_version;
    uint64_t memory_total_bytes = 0;
  };
  const DeviceInfo& info() const { return info_; }

  struct Sample {
    unsigned utilization_pct;  // time a kernel ran over NVML's last sample period (1/6 s .. 1 s)
    uint64_t memory_used_bytes;
  };
  // Thread-safe (NVML is). nullopt if NVML could not answer.
  std::optional<Sample> sample() const;

 private:
  struct Api;
  Nvml() = default;
  void* library_ = nullptr;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;  // nvmlDevice_t
  DeviceInfo info_;
};

// Samples a GPU's utilisation and memory on a thread of its own: at start() and every `period`
// until stop().
class GpuSampler {
 public:
  explicit GpuSampler(const Nvml& nvml, std::chrono::milliseconds period = std::chrono::milliseconds(100));
  ~GpuSampler();
  void start();
  void stop();  // idempotent
  bool running() const { return thread_.joinable(); }

  struct Summary {
    double utilization_pct_mean = 0;
    uint64_t memory_used_bytes_max = 0;
    uint64_t samples = 0;
  };
  // After stop().
  Summary summary() const { return summary_; }

 private:
  void loop();

  const Nvml& nvml_;
  std::chrono::milliseconds period_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  Summary summary_;
  double utilization_sum_ = 0;
};

}  // namespace gnf
