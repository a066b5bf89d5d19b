// A stand-in for libnvidia-ml.so.1 with one GPU, for the tests of util/nvml.cpp: the NVML
// functions gnf calls, answering what a test can predict, and two functions for the test itself.
#include <cstdio>
#include <cstring>

namespace {

constexpr int kSuccess = 0;
constexpr int kNotFound = 6;  // NVML_ERROR_NOT_FOUND
constexpr unsigned long long kMib = 1024ull * 1024;

struct Memory {
  unsigned long long total, free, used;
};
struct Utilization {
  unsigned int gpu, memory;
};

int g_initialised = 0;        // nvmlInit minus nvmlShutdown calls
unsigned g_utilization_calls = 0;
int g_device = 0;             // what a handle points at

}  // namespace

extern "C" {

int nvmlInit_v2() { return ++g_initialised, kSuccess; }
int nvmlShutdown() { return --g_initialised, kSuccess; }
const char* nvmlErrorString(int result) { return result == kSuccess ? "Success" : "Not Found"; }

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index != 0) return kNotFound;
  *device = &g_device;
  return kSuccess;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  // NVML takes the short form CUDA writes and its own long one.
  if (std::strcmp(bus_id, "0000:41:00.0") != 0 && std::strcmp(bus_id, "00000000:41:00.0") != 0) return kNotFound;
  *device = &g_device;
  return kSuccess;
}

int nvmlDeviceGetName(void*, char* name, unsigned size) {
  std::snprintf(name, size, "Fake GPU 80GB");
  return kSuccess;
}

int nvmlSystemGetDriverVersion(char* version, unsigned size) {
  std::snprintf(version, size, "999.01.02");
  return kSuccess;
}

// Used memory grows by 1 MiB with every utilisation reading: 100 MiB + readings so far.
int nvmlDeviceGetMemoryInfo(void*, Memory* m) {
  m->total = 80 * 1024 * kMib;
  m->used = (100 + g_utilization_calls) * kMib;
  m->free = m->total - m->used;
  return kSuccess;
}

// Alternates 20 % and 60 %, starting with 20 %.
int nvmlDeviceGetUtilizationRates(void*, Utilization* u) {
  ++g_utilization_calls;
  u->gpu = g_utilization_calls % 2 ? 20 : 60;
  u->memory = 0;
  return kSuccess;
}

int fake_nvml_initialised() { return g_initialised; }
unsigned fake_nvml_utilization_calls() { return g_utilization_calls; }
void fake_nvml_reset() { g_utilization_calls = 0; }

}  // extern "C"
