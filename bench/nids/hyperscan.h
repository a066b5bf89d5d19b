// Hyperscan's literal matcher (hs_compile_lit_multi, block mode) over the same patterns and corpus:
// the CPU baseline, on one thread and on many, each with its own scratch.
#pragma once
#include <cstdint>
#include <vector>

#include "corpus.h"

struct hs_database;

namespace gnf::nids_bench {

struct Rate {
  double gbps;  // payload bits a second
  double mpps;
};

class Hyperscan {
 public:
  // Compiles the database. Throws std::runtime_error with Hyperscan's message.
  explicit Hyperscan(const std::vector<nf::NidsPattern>& patterns);
  ~Hyperscan();
  Hyperscan(const Hyperscan&) = delete;
  Hyperscan& operator=(const Hyperscan&) = delete;

  double build_ms() const { return build_ms_; }
  // One pass over the corpus: the (pattern, end) occurrences Hyperscan reports.
  uint64_t matches(const Corpus& corpus) const;
  // Passes over the corpus on `threads` threads for about `seconds`: the sum of their rates.
  Rate rate(const Corpus& corpus, unsigned threads, double seconds) const;

 private:
  hs_database* database_ = nullptr;
  double build_ms_ = 0;
};

}  // namespace gnf::nids_bench
