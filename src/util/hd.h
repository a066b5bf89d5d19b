// Host/device annotations: code that runs on both the CPU and the GPU is written once.
#pragma once

#if defined(__CUDACC__)
#define GNF_HD __host__ __device__
#define GNF_INLINE __host__ __device__ __forceinline__
#else
#define GNF_HD
#define GNF_INLINE inline __attribute__((always_inline))
#endif

// A loop the device compiler unrolls, so that the small arrays it indexes stay in registers; the
// host's compiler decides for itself.
#if defined(__CUDA_ARCH__)
#define GNF_UNROLL _Pragma("unroll")
#else
#define GNF_UNROLL
#endif
