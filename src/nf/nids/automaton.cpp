#include "nf/nids/automaton.h"

#include <algorithm>
#include <cstring>
#include <deque>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nf {

namespace {

constexpr uint32_t kAbsent = UINT32_MAX;

size_t words_for(size_t bytes) { return (bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t); }

}  // namespace

NidsAutomaton::NidsAutomaton(const std::vector<NidsPattern>& patterns, size_t max_bytes) {
  uint8_t byte_class[256] = {};
  classes_ = 1;
  for (const NidsPattern& p : patterns)
    for (const char c : p.bytes) {
      const uint8_t folded = nids_fold(uint8_t(c));
      if (!byte_class[folded]) byte_class[folded] = uint8_t(classes_++);
    }
  for (int c = 'A'; c <= 'Z'; ++c) byte_class[c] = byte_class[c - 'A' + 'a'];
  patterns_ = uint32_t(patterns.size());

  // The trie, as rows of the DFA's table with kAbsent where the trie has no edge.
  std::vector<uint32_t> next(classes_, kAbsent);
  std::vector<std::vector<uint32_t>> outputs(1);
  size_t pattern_bytes = 0;
  for (uint32_t id = 0; id < patterns_; ++id) {
    if (patterns[id].bytes.empty()) throw UserError("an empty pattern");
    uint32_t state = 0;
    for (const char c : patterns[id].bytes) {
      const size_t edge = size_t(state) * classes_ + byte_class[uint8_t(c)];
      if (next[edge] == kAbsent) {
        if ((outputs.size() + 1) * classes_ * sizeof(uint32_t) > max_bytes || outputs.size() >= NidsDfaView::kReports)
          throw UserError(fmt::format("the patterns' automaton would take more than {} MiB (max_mib)", max_bytes >> 20));
        next[edge] = uint32_t(outputs.size());
        outputs.emplace_back();
        next.resize(next.size() + classes_, kAbsent);
      }
      state = next[edge];
    }
    outputs[state].push_back(id);
    pattern_bytes += patterns[id].bytes.size();
    longest_ = std::max(longest_, uint32_t(patterns[id].bytes.size()));
  }
  states_ = uint32_t(outputs.size());

  // Breadth first, each state's missing edges are its failure state's (complete by then), and its
  // outputs take its failure state's: the DFA needs neither failure links nor output links later.
  std::vector<uint32_t> failure(states_, 0);
  std::deque<uint32_t> queue;
  for (uint32_t c = 0; c < classes_; ++c) {
    uint32_t& edge = next[c];
    if (edge == kAbsent) edge = 0;
    else queue.push_back(edge);
  }
  size_t match_count = outputs[0].size();
  while (!queue.empty()) {
    const uint32_t s = queue.front();
    queue.pop_front();
    const std::vector<uint32_t>& inherited = outputs[failure[s]];
    outputs[s].insert(outputs[s].end(), inherited.begin(), inherited.end());
    match_count += outputs[s].size();
    for (uint32_t c = 0; c < classes_; ++c) {
      uint32_t& edge = next[size_t(s) * classes_ + c];
      const uint32_t via_failure = next[size_t(failure[s]) * classes_ + c];
      if (edge == kAbsent) {
        edge = via_failure;
      } else {
        failure[edge] = via_failure;
        queue.push_back(edge);
      }
    }
  }
  for (uint32_t& edge : next)
    if (!outputs[edge].empty()) edge |= NidsDfaView::kReports;

  class_at_ = 0;
  next_at_ = class_at_ + words_for(256);
  first_at_ = next_at_ + words_for(next.size() * sizeof(uint32_t));
  matches_at_ = first_at_ + words_for((states_ + 1) * sizeof(uint32_t));
  pattern_at_at_ = matches_at_ + words_for(match_count * sizeof(uint32_t));
  nocase_at_ = pattern_at_at_ + words_for((patterns_ + 1) * sizeof(uint32_t));
  bytes_at_ = nocase_at_ + words_for(patterns_);
  const size_t words = bytes_at_ + words_for(pattern_bytes);
  if (words * sizeof(uint64_t) > max_bytes)
    throw UserError(fmt::format("the patterns' automaton would take more than {} MiB (max_mib)", max_bytes >> 20));
  arena_.assign(words, 0);

  uint8_t* base = reinterpret_cast<uint8_t*>(arena_.data());
  std::memcpy(base + class_at_ * 8, byte_class, sizeof(byte_class));
  std::memcpy(base + next_at_ * 8, next.data(), next.size() * sizeof(uint32_t));
  auto* first = reinterpret_cast<uint32_t*>(base + first_at_ * 8);
  auto* matches = reinterpret_cast<uint32_t*>(base + matches_at_ * 8);
  uint32_t m = 0;
  for (uint32_t s = 0; s < states_; ++s) {
    first[s] = m;
    for (const uint32_t id : outputs[s]) matches[m++] = id;
  }
  first[states_] = m;
  auto* pattern_at = reinterpret_cast<uint32_t*>(base + pattern_at_at_ * 8);
  uint8_t* bytes = base + bytes_at_ * 8;
  uint32_t at = 0;
  for (uint32_t id = 0; id < patterns_; ++id) {
    pattern_at[id] = at;
    base[nocase_at_ * 8 + id] = patterns[id].nocase;
    std::memcpy(bytes + at, patterns[id].bytes.data(), patterns[id].bytes.size());
    at += uint32_t(patterns[id].bytes.size());
  }
  pattern_at[patterns_] = at;
}

NidsDfaView NidsAutomaton::view_at(const uint8_t* base) const {
  return {base + class_at_ * 8,
          reinterpret_cast<const uint32_t*>(base + next_at_ * 8),
          reinterpret_cast<const uint32_t*>(base + first_at_ * 8),
          reinterpret_cast<const uint32_t*>(base + matches_at_ * 8),
          reinterpret_cast<const uint32_t*>(base + pattern_at_at_ * 8),
          base + nocase_at_ * 8,
          base + bytes_at_ * 8,
          classes_,
          patterns_,
          longest_};
}

}  // namespace gnf::nf
