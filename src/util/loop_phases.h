// Where a persistent GPU loop's time goes (the bypass driver's, the GPU agent's): how often it went
// round and the nanoseconds each named phase took in the rounds timed (the phases cover the whole
// round), per block on average. A diagnostic: a loop's round time bounds the latency it adds, and
// its phases say what to make cheaper.
#pragma once
#include <cstdint>

namespace gnf {

struct LoopPhases {
  static constexpr uint32_t kMaxPhases = 8;
  uint64_t rounds = 0;
  uint64_t timed_rounds = 0;     // the rounds `ns` covers (a sample of them)
  uint64_t ns[kMaxPhases] = {};  // the loop's phases, named by its kPhaseNames

  uint64_t round_ns() const {
    uint64_t sum = 0;
    for (uint64_t v : ns) sum += v;
    return sum;
  }
  void add(const LoopPhases& other) {
    rounds += other.rounds;
    timed_rounds += other.timed_rounds;
    for (uint32_t k = 0; k < kMaxPhases; ++k) ns[k] += other.ns[k];
  }
  // A sum over `blocks` blocks as the average block.
  LoopPhases per_block(uint32_t blocks) const {
    LoopPhases out = *this;
    if (blocks == 0) return out;
    out.rounds /= blocks;
    out.timed_rounds /= blocks;
    for (uint64_t& v : out.ns) v /= blocks;
    return out;
  }
};

}  // namespace gnf
