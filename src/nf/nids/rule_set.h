// A nids rule set compiled for packets: flat arrays that host and device code read alike
// (NidsRuleSetView), and the host object that owns them (NidsCompiledRules).
//
// Every distinct content (its bytes, and nocase) is one pattern of the automaton (automaton.h);
// each rule with contents is filed under one of them, its longest (the fast pattern, as Snort's):
// a rule can match only a packet in which that pattern occurs, so the automaton's scan names the
// rules worth verifying (evaluate.h), each once. Rules without contents are verified for every
// packet.
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
};

}  // namespace gnf::nf
