// What gnf-nids-bench scans (README.md here): pattern sets of three sizes, from real rule material
// where it is installed and generated contents beyond it, and payload corpora of one size or IMIX
// with pattern occurrences planted in HTTP-like text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nf/nids/automaton.h"

namespace gnf::nids_bench {

struct PatternSet {
  std::string name;    // "147", "2000", "10240"
  std::string source;  // "sagan-rules+crs", "sagan-rules+crs+generated" or "generated"
  std::vector<nf::NidsPattern> patterns;
};

// Sets of 147, 2,000 and `large` patterns: the distinct contents of Debian's sagan-rules and
// modsecurity-crs's phrases in their order (tests/oracle/nids_rule_material.h), then generated ones
// (4-24 bytes, text or binary, half nocase) where those run out.
std::vector<PatternSet> pattern_sets(uint32_t large);

// Payload sizes: one, or IMIX's mix (0 stands for it: 7 : 4 : 1 of 40, 576 and 1500 B).
inline constexpr uint32_t kImix = 0;
inline const uint32_t kSizes[] = {64, 512, 1500, kImix};
std::string size_name(uint32_t size);

// Payloads back to back: payload i is bytes[offsets[i] .. offsets[i + 1]).
struct Corpus {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> offsets;
  uint32_t packets() const { return uint32_t(offsets.size() - 1); }
};

// `packets` payloads of `size`: HTTP-like text, a quarter of them with one of the patterns planted.
Corpus make_corpus(const std::vector<nf::NidsPattern>& patterns, uint32_t size, uint32_t packets, uint64_t seed);

// The (pattern, end) occurrences of the automaton's host scan (automaton.h) in the corpus.
uint64_t host_matches(const nf::NidsDfaView& dfa, const Corpus& corpus);

}  // namespace gnf::nids_bench
