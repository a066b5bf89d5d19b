// Allocation in the GPU's memory domains. Built only with CUDA; without it the functions throw.
#pragma once
#include <cstddef>
#include <cstdint>

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
// Whether a CUDA device is usable here (false on a machine without a GPU).
bool cuda_device_available();

}  // namespace gnf::mem
