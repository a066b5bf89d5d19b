// A nids rule set compiled for packets: flat arrays that host and device code read alike
// (NidsRuleSetView), and the host object that owns them (NidsCompiledRules).
//
// Every distinct content (its bytes, and nocase) is one pattern of the automaton (automaton.h);
// each rule with contents is filed under one of them, its longest (the fast pattern, as Snort's):
// a rule can match only a packet in which that pattern occurs, so the automaton's scan names the
// rules worth verifying (evaluate.h), each once. Rules without contents are verified for every
// packet.
//
// On a GPU the set is one buffer (device_image(), view_at()): the automaton's arena (automaton.h),
// then rules (40 B each), contents (24 B each), address entries (20 B each), port ranges (4 B
// each), the fast-pattern lists (4 B a pattern and 4 B a rule), the contentless rules (4 B each)
// and the hit counters (8 B a rule), each section 8-byte aligned. The automaton is nearly all of
// it: Debian's sagan-rules (2,300 rules, 5,091 patterns with modsecurity-crs's phrases) take
// ~14.2 MiB of automaton and ~0.2 MiB of the rest; 2,000 random patterns ~11 MiB; 10,000
// bench/nids's generated ones about 5x that. During a reload two sets are in GPU memory.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "nf/nids/automaton.h"
#include "nf/nids/rule.h"
#include "util/hd.h"

namespace gnf::nf {

struct NidsPrefixEntry {
  uint8_t bytes[16];
  uint8_t family;
  uint8_t length;
  uint8_t pad[2];
};

struct NidsPortEntry {
  uint16_t lo, hi;
};

// A set's entries: [first, first + include) hold, [first + include, first + include + exclude) not.
struct NidsSetRef {
  uint32_t first;
  uint16_t include, exclude;
};

struct NidsContentView {
  uint32_t pattern;  // its bytes are the automaton's pattern (folded when nocase)
  int32_t offset, depth, distance, within;  // as NidsContent's
  uint16_t size;
  uint8_t relative, nocase;
};

struct NidsRuleView {
  NidsSetRef src, dst, sport, dport;  // src, dst into prefixes; sport, dport into ports
  uint32_t first_content;
  uint8_t contents;
  NidsAction action;
  NidsProto proto;
  uint8_t bidirectional;
};

static_assert(sizeof(NidsRuleView) == 40 && sizeof(NidsContentView) == 24 && sizeof(NidsPrefixEntry) == 20,
              "the sizes the memory note above gives");

struct NidsRuleSetView {
  NidsDfaView dfa;
  const NidsRuleView* rules;
  const NidsContentView* contents;
  const NidsPrefixEntry* prefixes;
  const NidsPortEntry* ports;
  const uint32_t* fast_first;  // patterns + 1: pattern p is the fast pattern of fast_rules[fast_first[p] ..)
  const uint32_t* fast_rules;
  const uint32_t* contentless_rules;
  unsigned long long* hits;  // per rule
  uint32_t rule_count;
  uint32_t contentless_count;
  uint32_t generation;  // which rule set an alert record's rule index is into (alerts.h)
  uint32_t pad;
};

class NidsCompiledRules {
 public:
  // Compiles `rules` (parsed, valid). Throws gnf::UserError when the automaton would take more
  // than max_bytes.
  NidsCompiledRules(const std::vector<NidsRule>& rules, size_t max_bytes, uint32_t generation);
  NidsRuleSetView host_view();
  // The set's GPU image (above): its words, hit counters zero; and the view over a copy at `base`.
  std::vector<uint64_t> device_image() const;
  NidsRuleSetView view_at(uint8_t* base) const;
  const std::vector<NidsPattern>& patterns() const { return patterns_; }
  const NidsAutomaton& automaton() const { return *automaton_; }

 private:
  std::vector<NidsPattern> patterns_;
  std::unique_ptr<NidsAutomaton> automaton_;
  std::vector<NidsRuleView> rules_;
  std::vector<NidsContentView> contents_;
  std::vector<NidsPrefixEntry> prefixes_;
  std::vector<NidsPortEntry> ports_;
  std::vector<uint32_t> fast_first_, fast_rules_, contentless_;
  std::vector<unsigned long long> hits_;
  uint32_t generation_;
  enum Section { kArena, kRules, kContents, kPrefixes, kPorts, kFastFirst, kFastRules, kContentless, kHits, kSections };
  // Where each section is on the host; the view over sections at `at`.
  void host_sections(const uint8_t* at[kSections]) const;
  NidsRuleSetView view_over(const uint8_t* const at[kSections], unsigned long long* hits) const;
  size_t section_bytes_[kSections] = {};
  size_t section_at_[kSections + 1] = {};  // bytes into the image (8-byte aligned); the last: its size
};

}  // namespace gnf::nf
