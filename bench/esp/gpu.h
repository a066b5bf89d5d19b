// The GPU half: DeviceEspCipher in a kernel, one thread or (GCM) a tile of lanes per packet, the
// packets already in GPU memory, each launch timed with CUDA events.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu.h"
#include "workload.h"

namespace gnf::esp_bench {

// The tile sizes measured for GCM besides a thread per packet.
const std::vector<uint32_t>& gcm_tile_sizes();

class EspOnGpu {
 public:
  // Copies the workload, its SAs and their keys into GPU memory, and seals a copy of the packets
  // there for the opening runs.
  explicit EspOnGpu(const Workload& w);
  ~EspOnGpu();
  // The median of `launches` timed launches (after a warm-up one). Opening starts each launch
  // from the sealed packets again (copied outside the timing) and throws unless every packet's
  // ICV was good. `tile`: lanes per packet, 1 (a thread) or one of gcm_tile_sizes() (GCM's SAs).
  Rate rate(bool seal, int launches, uint32_t tile = 1);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnf::esp_bench
