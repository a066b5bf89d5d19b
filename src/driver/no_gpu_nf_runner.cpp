#if !defined(GNF_HAVE_CUDA)
#include "driver/gpu_nf_runner.h"
#include "util/error.h"

namespace gnf::driver {

struct GpuNfRunner::Impl {};

GpuNfRunner::GpuNfRunner(uint32_t) {
  throw UserError("path 'staged' needs a gnf built with CUDA (nvcc was not found at build time)");
}
GpuNfRunner::~GpuNfRunner() = default;
nf::PacketRef* GpuNfRunner::refs() { return nullptr; }
void GpuNfRunner::run(const nf::NfChainView&, uint32_t, nf::NfCounters*) {}

}  // namespace gnf::driver
#endif
