// How the control plane attaches to a path without path/ knowing it (DESIGN.md: app attaches it
// through callbacks). When the chain has a router, the path gives the host its own tx queue on
// every port (driver/host_tx.h) and calls the AttachHost it was built with; what that returns gets
// the frames the NFs send to the host, runs beside the data path and adds its counters to every
// snapshot. app builds ctl's slow path and netlink sync this way.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "driver/driver.h"
#include "nf/chain.h"
#include "path/snapshot.h"

namespace gnf::path {

class HostHandler {
 public:
  virtual ~HostHandler() = default;
  // With the data path: started after the driver, stopped once it stopped and before the frames'
  // last hand-over.
  virtual void start() {}
  virtual void stop() {}
  // When the ports' sources stop (the end of a run): a handler that sends frames of its own, not
  // answers to the NFs' (the kernel's, through local delivery), stops sending them, so that what was
  // sent can drain and be counted before the path stops.
  virtual void stop_sources() {}
  // On the path's exception thread, about every 100 µs: the frames the NFs sent to the host since
  // the last call (often none: the handler keeps its timers by the calls too).
  virtual void handle(std::vector<driver::HostFrame> frames, uint64_t now_ns) = 0;
  // Its counters into a snapshot's lists (any thread).
  virtual void add_counters(Snapshot& snapshot) const = 0;
};

// What a path offers the host side it attaches.
struct HostAccess {
  nf::NfChain& chain;  // the router's tables are in it
  std::vector<nic::PortOptions> ports;
  // Sends a frame (without FCS) on a port's host tx queue, beside the data path; false when the
  // queue is full or the frame too large. Counted as the driver's host_tx. Any thread.
  std::function<bool(uint16_t port, const std::vector<uint8_t>& frame)> transmit;
};

// Called once, while the path is built, when its chain has a router; may return null.
using AttachHost = std::function<std::unique_ptr<HostHandler>(const HostAccess&)>;

}  // namespace gnf::path
