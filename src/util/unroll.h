// A loop the device compiler unrolls, so that the small arrays it indexes stay in registers
// (the crypto kernels' state); the host's compiler decides for itself.
#pragma once

#define GNF_PRAGMA(x) _Pragma(#x)
#if defined(__CUDA_ARCH__)
#define GNF_UNROLL _Pragma("unroll")
// Unrolled n at a time: where a full unroll would keep too many loads in flight for the registers.
#define GNF_UNROLL_BY(n) GNF_PRAGMA(unroll n)
#else
#define GNF_UNROLL
#define GNF_UNROLL_BY(n)
#endif
