#include "path/path_table.h"

#include <fmt/format.h>

#include "driver/cpu_driver.h"
#include "driver/gpu_bypass.h"
#include "util/error.h"

namespace gnf::path {

namespace {

using driver::DriverOptions;
using Ports = std::vector<nic::Port*>;

std::unique_ptr<driver::Driver> cpu_driver(const Ports& ports, uint16_t queues, const DriverOptions& options,
                                           nf::NfChain& chain) {
  return std::make_unique<driver::CpuDriver>(ports, queues, options, chain.view(), false);
}

std::unique_ptr<driver::Driver> staged_driver(const Ports& ports, uint16_t queues, const DriverOptions& options,
                                              nf::NfChain& chain) {
  return std::make_unique<driver::CpuDriver>(ports, queues, options, chain.device_view(), true);
}

std::unique_ptr<driver::Driver> bypass_driver(const Ports& ports, uint16_t queues, const DriverOptions& options,
                                              nf::NfChain& chain) {
  return std::make_unique<driver::GpuBypass>(ports, queues, options, chain.device_view());
}

using mem::Domain;
using nic::DmaSide;

const PathRow kRows[] = {
    // kind               gpu    dma                fifo                pinned regs host tx             exc. thread driver         threads
    {PathKind::Cpu,       false, DmaSide::Host,     Domain::Host,       false, Domain::Host,       false, cpu_driver,    true},
    {PathKind::Staged,    true,  DmaSide::Host,     Domain::Host,       false, Domain::HostPinned, false, staged_driver, true},
    {PathKind::Bypass,    true,  DmaSide::GpuAgent, Domain::HostPinned, true,  Domain::HostPinned, true,  bypass_driver, false},
    {PathKind::Calibrate, false, DmaSide::Host,     Domain::Host,       false, Domain::Host,       false, nullptr,       false},
};

}  // namespace

const PathRow& path_row(PathKind kind, const std::string& where) {
  for (const PathRow& row : kRows)
    if (row.kind == kind) return row;
  throw UserError(fmt::format("{}: path '{}' is not built yet; use cpu, staged or bypass", where, path_name(kind)));
}

}  // namespace gnf::path
