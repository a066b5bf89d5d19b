#if !defined(GNF_HAVE_CUDA)
#include "nic/gpu_agent.h"
#include "util/error.h"

namespace gnf::nic {

struct GpuAgent::Impl {};

GpuAgent::GpuAgent(const std::vector<Port*>&) {
  throw UserError("rings in GPU memory need a gnf built with CUDA (nvcc was not found at build time)");
}
GpuAgent::~GpuAgent() = default;
void GpuAgent::start() {}
void GpuAgent::stop() {}
GpuAgent::Loops GpuAgent::loops() const { return {}; }

}  // namespace gnf::nic
#endif
