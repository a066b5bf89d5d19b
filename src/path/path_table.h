// One row per path: where the NIC's FIFOs, registers and the host's tx queues live, which engine
// does the NIC's DMA, and which driver drives the rings. Everything that differs between the
// paths is in this table; the rest of path/ reads it and branches on nothing else.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "driver/driver.h"
#include "mem/block.h"
#include "nic/port.h"
#include "path/spec.h"

namespace gnf::path {

struct PathRow {
  PathKind kind;
  bool needs_gpu;
  // The NIC's DMA engine, and where the FIFOs between the wire and it live.
  nic::DmaSide dma;
  mem::Domain fifo_memory;
  // The ports' register blocks in pinned host memory, where GPU threads can write tails.
  bool pinned_regs;
  // Where the host's own tx queues (driver/host_tx.h) keep their rings and buffers: reachable by
  // whichever DMA engine serves the port.
  mem::Domain host_tx_memory;
  // The driver's exception rings are small (the GPU's) and a host thread empties them even when no
  // slow path is attached; it also takes the one-way sink's arrivals.
  bool exception_thread;
  // Makes the driver over `queues` planes, or null when the path has none (calibrate: every port
  // loops its rx buffer back to its own tx line).
  std::unique_ptr<driver::Driver> (*make_driver)(const std::vector<nic::Port*>& ports, uint16_t queues,
                                                 const driver::DriverOptions& options, nf::NfChain& chain);
  // The driver polls from host threads (driver/cpu_driver.h), which want cores of their own.
  bool driver_threads;
};

// The row of `kind`; throws UserError for a path that is not built yet (p2p).
const PathRow& path_row(PathKind kind, const std::string& where);

}  // namespace gnf::path
