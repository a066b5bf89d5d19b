#if !defined(GNF_HAVE_CUDA)
#include "driver/gpu_bypass.h"
#include "util/error.h"

namespace gnf::driver {

struct GpuBypass::Impl {};

GpuBypass::GpuBypass(const std::vector<nic::Port*>&, uint16_t, const DriverOptions&, const nf::NfChainView&) {
  throw UserError("path 'bypass' needs a gnf built with CUDA (nvcc was not found at build time)");
}
GpuBypass::~GpuBypass() = default;
void GpuBypass::start(uint32_t) {}
void GpuBypass::stop() {}
void GpuBypass::start_clock() {}
void GpuBypass::stop_gpu() {}
bool GpuBypass::running() const { return false; }
std::vector<HostFrame> GpuBypass::take_host_frames() { return {}; }
std::vector<GpuArrival> GpuBypass::take_arrivals() { return {}; }
std::optional<GpuClockStats> GpuBypass::clock_stats() const { return std::nullopt; }
DriverTotals GpuBypass::counters() const { return {}; }
std::vector<SlotAudit> GpuBypass::audit() const { return {}; }
nic::PortRegs* alloc_pinned_port_regs() { return nullptr; }
void free_pinned_port_regs(nic::PortRegs*) {}

}  // namespace gnf::driver
#endif
