// A loop the device compiler unrolls, so that the small arrays it indexes stay in registers
// (the crypto kernels' state); the host's compiler decides for itself.
#pragma once

#if defined(__CUDA_ARCH__)
#define GNF_UNROLL _Pragma("unroll")
#else
#define GNF_UNROLL
#endif
