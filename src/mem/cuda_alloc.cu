#include "mem/cuda_alloc.h"

#include <cstdio>
#include <cstdlib>

#include "util/cuda_check.h"

namespace gnf::mem {

namespace {
// gnf's kernels are persistent: they spin until told to stop, and others start while they run.
// With CUDA's lazy module loading (the default since 12.2) the first launch of a kernel from a
// module not yet loaded may wait for the device to go idle, which a spinning kernel never lets it
// do: a deadlock (seen on the H100: a DMA engine block running, a second kernel's launch never
// returned). Loading every module when the context is created avoids it. Set before main(), so
// before the first CUDA call; a value the user set is kept.
const int kEagerModuleLoading = setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}  // namespace

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
  // Not cudaDeviceSynchronize: that would wait for persistent kernels, which never end by themselves.
  GNF_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, cudaStreamPerThread));
  GNF_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

void cuda_copy(void* dst, const void* src, size_t bytes) {
  if (bytes) GNF_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
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
    cudaDeviceProp properties;
    GNF_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
    info.device_name = properties.name;
  }
  return info;
}

}  // namespace gnf::mem
