#include "mem/cuda_alloc.h"

#include <cstdio>

#include "util/cuda_check.h"

namespace gnf::mem {

uint8_t* alloc_host_pinned(size_t bytes) {
  void* p = nullptr;
  GNF_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  return static_cast<uint8_t*>(p);
}

namespace {
// Frees run in destructors, which must not throw: report instead.
void report(cudaError_t err, const char* what) {
  if (err != cudaSuccess) std::fprintf(stderr, "gnf: %s: %s\n", what, cudaGetErrorName(err));
}
}  // namespace

void free_host_pinned(uint8_t* p) { report(cudaFreeHost(p), "cudaFreeHost"); }

uint8_t* alloc_device(size_t bytes) {
  void* p = nullptr;
  GNF_CUDA_CHECK(cudaMalloc(&p, bytes));
  return static_cast<uint8_t*>(p);
}

void free_device(uint8_t* p) { report(cudaFree(p), "cudaFree"); }

void zero_fill(uint8_t* p, size_t bytes) {
  GNF_CUDA_CHECK(cudaMemset(p, 0, bytes));
  GNF_CUDA_CHECK(cudaDeviceSynchronize());
}

bool cuda_device_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

std::optional<CudaInfo> cuda_info() {
  CudaInfo info;
  GNF_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  GNF_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  if (cuda_device_available()) {
    char bus_id[32] = {};
    GNF_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), 0));
    info.device_pci_bus_id = bus_id;
  }
  return info;
}

}  // namespace gnf::mem
