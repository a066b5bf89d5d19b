// Allocation in the GPU's memory domains. Built only with CUDA; without it the functions throw.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace gnf::mem {

// Page-locked host memory mapped into the GPU's address space (cudaHostAllocMapped). With UVA
// the host pointer is also the device pointer.
uint8_t* alloc_host_pinned(size_t bytes);
void free_host_pinned(uint8_t* p);  // never throws: errors are reported on stderr
// GPU memory (cudaMalloc).
uint8_t* alloc_device(size_t bytes);
void free_device(uint8_t* p);
// Zero-fills memory of any domain.
void zero_fill(uint8_t* p, size_t bytes);
// Copies between any domains (cudaMemcpy on unified addresses) and waits for the copy.
void cuda_copy(void* dst, const void* src, size_t bytes);
// Whether a CUDA device is usable here (false on a machine without a GPU).
bool cuda_device_available();

// What a benchmark records about CUDA: versions as CUDA writes them (1000 * major + 10 * minor;
// the driver's is 0 where no driver is installed) and the PCI bus id of device 0, the one gnf
// uses ("0000:41:00.0"; empty without a usable device), by which NVML finds the same GPU, and its
// name ("NVIDIA H100 80GB HBM3"; empty without).
struct CudaInfo {
  int driver_version = 0;
  int runtime_version = 0;
  std::string device_pci_bus_id;
  std::string device_name;
};
// nullopt in a build without CUDA.
std::optional<CudaInfo> cuda_info();

}  // namespace gnf::mem
