// The host's own transmit queue on a port: how the slow path (ARP and ND replies, ICMP, packets
// held while a next hop was resolved) sends, beside the data path, on every path.
//
// As a Linux driver shares an 82599 with a DPDK application through a queue of its own, the host
// owns the port's last tx queue (the pipeline gives ports one more tx queue than the driver's planes
// use) and drives it as ixy drives any tx queue: fill a descriptor, write TDT, take slots back when
// the NIC has written DD. Its ring and buffers are in pinned host memory when the data path is on
// the GPU, so that whichever DMA engine serves the port can reach them.
#pragma once
#include <cstdint>
#include <mutex>

#include "driver/queue_rings.h"
#include "nic/port.h"

namespace gnf::driver {

class HostTxQueue {
 public:
  static constexpr uint32_t kEntries = 256;
  static constexpr uint32_t kSlotSize = 2048;

  // Takes tx queue `queue` of `port`; `domain` is where its ring and buffers live.
  HostTxQueue(nic::Port& port, uint16_t queue, mem::Domain domain);

  // Copies the frame (without FCS) into a buffer and hands it to the NIC. False when the ring is
  // full or the frame is larger than a buffer (the caller counts it). Any thread.
  bool send(const uint8_t* frame, uint32_t len, uint64_t now_ns);
  // Every frame sent has left (the NIC has written back every descriptor).
  bool drained();

 private:
  std::mutex mutex_;
  QueueRings rings_;  // the tx ring and its pool; no rx ring
};

}  // namespace gnf::driver
