// The NF chain over a batch of frames on the GPU, a thread per packet, for tests that hold the GPU's
// result against the CPU's.
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

// Runs `chain` over a GPU copy of `frames`; each of `refs` points into `frames`.
ChainOnGpu run_chain_on_gpu(const nf::NfChainView& chain, const std::vector<uint8_t>& frames,
                            const std::vector<nf::PacketRef>& refs);

}  // namespace gnf::test
