#if !defined(GNF_HAVE_CUDA)
#include "driver/gpu_nf_runner.h"
#include "util/error.h"

namespace gnf::driver {

struct GpuNfRunner::Impl {};

GpuNfRunner::GpuNfRunner(StagedMode, uint32_t, uint32_t, uint32_t, const nf::NfChainView&) {
  throw UserError("path 'staged' needs a gnf built with CUDA (nvcc was not found at build time)");
}
GpuNfRunner::~GpuNfRunner() = default;
nf::PacketRef* GpuNfRunner::next_batch() { return nullptr; }
void GpuNfRunner::submit(uint32_t) {}
GpuNfRunner::Done GpuNfRunner::take_done(bool, nf::NfCounters*) { return Done{nullptr, 0}; }
uint32_t GpuNfRunner::in_flight() const { return 0; }
void GpuNfRunner::stop() {}
void GpuNfRunner::for_each_in_flight(void (*)(const nf::PacketRef&, void*), void*) const {}

}  // namespace gnf::driver
#endif
