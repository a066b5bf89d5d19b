// The NIC's DMA engine for rings in GPU memory: the per-queue rx and tx DMA of the 82599, run on
// the GPU by a persistent kernel (the GPU agent), while the NIC-model threads keep the wire, the
// MAC, RSS, the on-NIC buffer's accounting and the line (queue_group.h).
//
// Two blocks per queue of each port, one per direction (one block for both where there are more
// queues than half the GPU's SMs), do what the 82599's DMA does for that queue (the first warp of
// each decides, the whole block copies), reading and writing the rings where they are and the
// queue's FIFOs in pinned host memory across PCIe:
//  - rx: reads the tail (RDT), takes the frames the wire side stored in the queue's rx FIFO,
//    writes each into the buffer of the descriptor at the head, writes its write-back (DD last),
//    moves RDH, and hands the FIFO's room back (a queue without descriptors drops its frames with
//    DROP_EN, or stalls the port without);
//  - tx: reads TDT, fetches the descriptors and packets the driver queued into the queue's tx FIFO
//    (the NIC's tx packet buffer, as deep as it), writes back DD / the head, moves TDH.
// What crosses PCIe is what crosses it on real hardware, packets both ways plus the tail
// registers, in pinned host memory, that the agent reads across the bus (one read per queue and
// direction per round: the round trip stands in for the 82599's descriptor fetch after a tail
// write). Descriptors and packet buffers in GPU memory are read and written locally, where an
// 82599 would cross PCIe: the tail read above is where that time is charged.
//
// Memory ordering, for every word the agent shares (all through acquire loads and release stores
// at system scope, or a system fence before a release, in gpu_agent.cu):
//  - rx FIFO: the wire side stores `produced` with release after the records and bytes (and
//    after `produced_bytes`, so that a round reads the frames' bytes beside their records); a lane
//    loads it with acquire, the warp and block barriers order the other threads' loads after it;
//    bytes in pinned memory are read with volatile (uncached) loads, never from a stale line.
//  - rx ring: RDT is loaded with acquire (the driver fenced its refills before storing it); each
//    frame's bytes are stored, the warp fences (device scope: the driver is on this GPU), then
//    each write-back is written and its status word (DD) stored with release.
//  - tx ring and FIFO: TDT is loaded with acquire; packets are copied into the FIFO, the warp
//    fences at system scope, then `produced` is stored with release for the wire side, and only
//    then DD, the head write-back and TDH tell the driver the buffers are free.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "nic/port.h"
#include "util/loop_phases.h"

namespace gnf::nic {

class GpuAgent {
 public:
  // Serves every queue of `ports` (whose wiring is DmaSide::GpuAgent). The ports' registers must
  // be in pinned host memory and programmed by their drivers before start(). Registers each
  // port's counters of the agent's (Port::add_agent_counters). Throws UserError without a GPU.
  explicit GpuAgent(const std::vector<Port*>& ports);
  ~GpuAgent();
  GpuAgent(const GpuAgent&) = delete;
  GpuAgent& operator=(const GpuAgent&) = delete;

  // Launches the persistent kernel; after a stop() it carries on where it stopped.
  void start();
  // Asks the kernel to stop and waits for it (its counters are then final). Idempotent.
  void stop();
  // How the rx blocks and the tx blocks went round their loops, on average over the blocks of each
  // direction, phase by phase (a diagnostic: the round time bounds the latency the agent adds;
  // where one block serves both directions, each direction's phases are part of its round):
  // poll (the FIFO, the tail and the stop word across PCIe), decide (records or descriptors),
  // copy (frames into GPU memory or into the tx FIFO), commit (write-backs, heads, FIFO room).
  // Any thread.
  static constexpr uint32_t kPhaseCount = 4;
  static constexpr const char* kPhaseNames[kPhaseCount] = {"poll", "decide", "copy", "commit"};
  struct Loops {
    LoopPhases rx, tx;
  };
  Loops loops() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnf::nic
