// Host/device annotations: code that runs on both the CPU and the GPU is written once.
#pragma once

#if defined(__CUDACC__)
#define GNF_HD __host__ __device__
#define GNF_INLINE __host__ __device__ __forceinline__
#else
#define GNF_HD
#define GNF_INLINE inline __attribute__((always_inline))
#endif
