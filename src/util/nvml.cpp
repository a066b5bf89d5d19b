#include "util/nvml.h"
#include "util/log.h"

#include <dlfcn.h>

#include <algorithm>
#include <type_traits>

namespace gnf {

namespace {

// The few NVML declarations used here (nvml.h, NVML API version 2; stable across drivers).
using nvmlReturn_t = int;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
using nvmlDevice_t = void*;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
constexpr unsigned kNameBufferSize = 96;    // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kDriverBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

}  // namespace

struct Nvml::Api {
  nvmlReturn_t (*init)();
  nvmlReturn_t (*shutdown)();
  const char* (*error_string)(nvmlReturn_t);
  nvmlReturn_t (*handle_by_index)(unsigned, nvmlDevice_t*);
  nvmlReturn_t (*handle_by_pci_bus_id)(const char*, nvmlDevice_t*);
  nvmlReturn_t (*device_name)(nvmlDevice_t, char*, unsigned);
  nvmlReturn_t (*driver_version)(char*, unsigned);
  nvmlReturn_t (*memory_info)(nvmlDevice_t, nvmlMemory_t*);
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*);
};

std::unique_ptr<Nvml> Nvml::open(const std::string& pci_bus_id, const char* library_name) {
  void* library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
  if (!library) return nullptr;  // no NVIDIA driver here: not an error
  std::unique_ptr<Nvml> nvml(new Nvml);
  nvml->library_ = library;
  auto api = std::make_unique<Api>();
  bool resolved = true;
  auto resolve = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
    resolved &= fn != nullptr;
  };
  resolve(api->init, "nvmlInit_v2");
  resolve(api->shutdown, "nvmlShutdown");
  resolve(api->error_string, "nvmlErrorString");
  resolve(api->handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  resolve(api->handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  resolve(api->device_name, "nvmlDeviceGetName");
  resolve(api->driver_version, "nvmlSystemGetDriverVersion");
  resolve(api->memory_info, "nvmlDeviceGetMemoryInfo");
  resolve(api->utilization, "nvmlDeviceGetUtilizationRates");
  if (!resolved) {
    spdlog::warn("{} lacks NVML functions gnf uses: no GPU information", library_name);
    return nullptr;  // the destructor closes the library
  }
  nvmlReturn_t err = api->init();
  if (err != NVML_SUCCESS) {
    spdlog::warn("nvmlInit: {}: no GPU information", api->error_string(err));
    return nullptr;
  }
  nvml->api_ = std::move(api);
  const Api& a = *nvml->api_;
  nvmlDevice_t device = nullptr;
  err = pci_bus_id.empty() ? a.handle_by_index(0, &device) : a.handle_by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (err != NVML_SUCCESS) {
    // No GPU at all is the usual case on a machine with the driver but no device.
    spdlog::warn("NVML finds no GPU {}: {}", pci_bus_id.empty() ? "0" : pci_bus_id, a.error_string(err));
    return nullptr;
  }
  nvml->device_ = device;
  char name[kNameBufferSize] = {};
  char driver[kDriverBufferSize] = {};
  nvmlMemory_t memory{};
  if ((err = a.device_name(device, name, sizeof(name))) != NVML_SUCCESS ||
      (err = a.driver_version(driver, sizeof(driver))) != NVML_SUCCESS ||
      (err = a.memory_info(device, &memory)) != NVML_SUCCESS) {
    spdlog::warn("NVML: {}: no GPU information", a.error_string(err));
    return nullptr;
  }
  nvml->info_ = DeviceInfo{name, driver, memory.total};
  return nvml;
}

Nvml::~Nvml() {
  if (api_) api_->shutdown();
  if (library_) dlclose(library_);
}

std::optional<Nvml::Sample> Nvml::sample() const {
  nvmlUtilization_t utilization{};
  nvmlMemory_t memory{};
  if (api_->utilization(device_, &utilization) != NVML_SUCCESS || api_->memory_info(device_, &memory) != NVML_SUCCESS)
    return std::nullopt;
  return Sample{utilization.gpu, memory.used};
}

GpuSampler::GpuSampler(const Nvml& nvml, std::chrono::milliseconds period) : nvml_(nvml), period_(period) {}

GpuSampler::~GpuSampler() { stop(); }

void GpuSampler::start() {
  if (running()) return;
  stop_ = false;
  thread_ = std::thread(&GpuSampler::loop, this);
}

void GpuSampler::stop() {
  if (!running()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
  if (summary_.samples) summary_.utilization_pct_mean = utilization_sum_ / double(summary_.samples);
}

void GpuSampler::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  do {
    if (std::optional<Nvml::Sample> s = nvml_.sample()) {
      summary_.samples++;
      utilization_sum_ += s->utilization_pct;
      summary_.memory_used_bytes_max = std::max(summary_.memory_used_bytes_max, s->memory_used_bytes);
    }
  } while (!wake_.wait_for(lock, period_, [this] { return stop_; }));
}

}  // namespace gnf
