// The GPU half: DeviceEspCipher in a kernel, one thread per packet, the packets already in GPU
// memory, each launch timed with CUDA events.
#pragma once
#include <memory>

#include "cpu.h"
#include "workload.h"

namespace gnf::esp_bench {

class EspOnGpu {
 public:
  // Copies the workload, its SAs and their keys into GPU memory, and seals a copy of the packets
  // there for the opening runs.
  explicit EspOnGpu(const Workload& w);
  ~EspOnGpu();
  // The median of `launches` timed launches (after a warm-up one). Opening starts each launch
  // from the sealed packets again (copied outside the timing) and throws unless every packet's
  // ICV was good.
  Rate rate(bool seal, int launches);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnf::esp_bench
