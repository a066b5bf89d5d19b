#include "driver/gpu_bypass_kernel_body.cuh"

namespace gnf::driver::bypass {

// The build with every NF kind's code (IPsec's among them), in a file of its own: it takes longer
// to compile than all the others together (gpu_bypass_kernel.cu).
BypassKernel bypass_kernel_with_every_kind() { return bypass_kernel<nf::kAllNfKinds>; }

}  // namespace gnf::driver::bypass
