// The NF chain over a batch of frames on the GPU, for tests that hold the GPU's result against the
// CPU's.
#pragma once
#include <cstdint>
#include <vector>

#include "nf/chain.h"

namespace gnf::test {

struct ChainOnGpu {
  std::vector<uint8_t> frames;                // as the chain left them
  std::vector<nf::PacketRef> refs;            // verdicts and output ports; data as given
  std::vector<unsigned long long> counters;   // [element * NfCounters::kMax + counter], all packets
};

inline constexpr uint32_t kBlockThreads = 256;

// Runs `chain` over a GPU copy of `frames`; each of `refs` points into `frames`. With
// packets_per_block 0, a thread per packet runs nf::run_chain; otherwise blocks of kBlockThreads
// threads run nf::run_chain_on_block (nf/chain_device.cuh) on that many packets each, as the data
// paths' kernels do.
ChainOnGpu run_chain_on_gpu(const nf::NfChainView& chain, const std::vector<uint8_t>& frames,
                            const std::vector<nf::PacketRef>& refs, uint32_t packets_per_block = 0);

}  // namespace gnf::test
