// The GPU half: the nids automaton (automaton.h's arena, one copy in GPU memory) scanning a corpus
// already in GPU memory, in two shapes, each launch timed with CUDA events.
#pragma once
#include <memory>

#include "corpus.h"

namespace gnf::nids_bench {

enum class Shape {
  ThreadPerPacket,  // the seed paper's: a thread runs the DFA over its packet
  WarpPerPacket,    // each lane one 32nd of the packet, from (longest pattern - 1) bytes before it
};

struct GpuScan {
  double seconds;    // the median launch
  uint64_t matches;  // the (pattern, end) occurrences that launch counted
};

class ScanOnGpu {
 public:
  // Copies the automaton and the corpus into GPU memory.
  ScanOnGpu(const nf::NidsAutomaton& automaton, const Corpus& corpus);
  ~ScanOnGpu();
  // The median of `launches` timed launches, after a warm-up one. Throws std::runtime_error if two
  // launches counted different matches.
  GpuScan scan(Shape shape, int launches);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gnf::nids_bench
