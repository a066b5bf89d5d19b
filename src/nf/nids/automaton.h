// The multi-pattern automaton of the nids NF: an Aho-Corasick DFA over every content of the rule
// set, built on the host, scanned by the same code on the host and the GPU (GNF_HD).
//
// Matching is case-folded: the DFA reads each byte through a class map that folds ASCII letters,
// so a nocase pattern is matched by the DFA alone, and a case-sensitive one is confirmed by
// comparing its bytes where the DFA reported it. What nids_scan reports is exactly the set of
// (pattern, end offset) pairs where a pattern occurs in the data (nocase ones case-folded); the
// oracle (tests/oracle/nids_vs_hyperscan) holds it to Hyperscan's on a 100 k-payload corpus.
//
// Layout (one arena, every section 8-byte aligned, so that one copy puts it on a GPU):
//   byte_class  256 x uint8: a byte's class; bytes no pattern holds share class 0; A-Z fold to a-z
//   next        states x classes x uint32: the DFA's transitions, complete (no failure links at
//               scan time); bit 31 says the target state reports patterns
//   match_first (states + 1) x uint32: state s reports matches[match_first[s] .. match_first[s+1])
//   matches     uint32 pattern ids, every state's output set closed over its failure chain
//   pattern_at  (patterns + 1) x uint32: pattern p's bytes are pattern_bytes[pattern_at[p] ..)
//   nocase      patterns x uint8
//   pattern_bytes
// Memory: states <= 1 + the patterns' bytes, so next takes at most 4 B x classes x (1 + bytes); the
// output sets add 4 B per (state, pattern it reports). Build: O(states x classes) time, the memory
// above plus the trie's output lists. Measured (tests/unit/test_nids_sagan.cpp, one core of this
// project's CI machine): Debian's sagan-rules with modsecurity-crs's phrases, 5,091 patterns,
// 54 k states, 67 classes: 14.2 MiB, built in ~35 ms; 2,000 random patterns of up to 32 bytes
// (tests/oracle/nids_vs_hyperscan): 12 k states, 235 classes, 11 MiB. That is what a GPU's L2
// would hold. A rule set whose automaton would exceed max_bytes is refused.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/hd.h"

namespace gnf::nf {

struct NidsPattern {
  std::string bytes;
  bool nocase = false;
};

struct NidsDfaView {
  static constexpr uint32_t kReports = 0x8000'0000u;

  const uint8_t* byte_class;
  const uint32_t* next;
  const uint32_t* match_first;
  const uint32_t* matches;
  const uint32_t* pattern_at;
  const uint8_t* nocase;
  const uint8_t* pattern_bytes;
  uint32_t classes;
  uint32_t patterns;
  uint32_t longest;  // the longest pattern's bytes (0 without patterns)
};

GNF_INLINE uint8_t nids_fold(uint8_t c) { return c >= 'A' && c <= 'Z' ? uint8_t(c + ('a' - 'A')) : c; }

// Calls on_match(pattern, end) for every occurrence of a pattern in data[0, len), end being the
// offset just past its last byte, in order of end (patterns ending at one offset in the order of
// the state's output set).
template <class OnMatch>
GNF_HD void nids_scan(const NidsDfaView& dfa, const uint8_t* data, uint32_t len, OnMatch& on_match) {
  uint32_t state = 0;
  for (uint32_t i = 0; i < len; ++i) {
    const uint32_t entry = dfa.next[state * dfa.classes + dfa.byte_class[data[i]]];
    state = entry & ~NidsDfaView::kReports;
    if (!(entry & NidsDfaView::kReports)) continue;
    for (uint32_t m = dfa.match_first[state]; m < dfa.match_first[state + 1]; ++m) {
      const uint32_t p = dfa.matches[m];
      const uint32_t size = dfa.pattern_at[p + 1] - dfa.pattern_at[p];
      bool exact = true;
      if (!dfa.nocase[p])
        for (uint32_t k = 0; k < size && exact; ++k) exact = data[i + 1 - size + k] == dfa.pattern_bytes[dfa.pattern_at[p] + k];
      if (exact) on_match(p, i + 1);
    }
  }
}

// What nids_scan calls on_match for, restricted to the occurrences that end in piece `piece` of
// `pieces` (equal pieces of data[0, len), the last shorter): so pieces scanned apart (a tile's
// lanes, nf/tile.cuh) find every occurrence exactly once between them. The DFA starts in state 0
// the longest pattern less one before the piece, where the earliest occurrence ending in it starts.
template <class OnMatch>
GNF_HD void nids_scan_piece(const NidsDfaView& dfa, const uint8_t* data, uint32_t len, uint32_t piece, uint32_t pieces,
                            OnMatch& on_match) {
  const uint32_t size = (len + pieces - 1) / pieces;
  const uint32_t begin = piece * size < len ? piece * size : len, end = len - begin > size ? begin + size : len;
  if (begin == end) return;
  const uint32_t overlap = dfa.longest > 1 ? dfa.longest - 1 : 0, start = begin > overlap ? begin - overlap : 0;
  auto in_piece = [&](uint32_t pattern, uint32_t end_at) {
    if (start + end_at > begin) on_match(pattern, start + end_at);
  };
  nids_scan(dfa, data + start, end - start, in_piece);
}

class NidsAutomaton {
 public:
  // Builds the DFA over `patterns` (ids are their indexes; none empty). Throws gnf::UserError when
  // it would take more than max_bytes.
  NidsAutomaton(const std::vector<NidsPattern>& patterns, size_t max_bytes);

  NidsDfaView view() const { return view_at(reinterpret_cast<const uint8_t*>(arena_.data())); }
  // The view over a copy of the arena at `base` (on a GPU).
  NidsDfaView view_at(const uint8_t* base) const;
  const void* arena() const { return arena_.data(); }
  size_t arena_bytes() const { return arena_.size() * sizeof(uint64_t); }
  uint32_t states() const { return states_; }

 private:
  std::vector<uint64_t> arena_;
  size_t class_at_ = 0, next_at_ = 0, first_at_ = 0, matches_at_ = 0, pattern_at_at_ = 0, nocase_at_ = 0, bytes_at_ = 0;
  uint32_t classes_ = 0, patterns_ = 0, states_ = 0, longest_ = 0;
};

inline constexpr size_t kNidsDefaultMaxBytes = size_t(512) << 20;

}  // namespace gnf::nf
