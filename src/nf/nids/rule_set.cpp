#include "nf/nids/rule_set.h"

#include <cstring>
#include <map>
#include <utility>

namespace gnf::nf {

namespace {

template <class Entry, class Value, class Convert>
NidsSetRef add_set(const std::vector<Value>& include, const std::vector<Value>& exclude, std::vector<Entry>& into,
                   const Convert& convert) {
  const NidsSetRef ref{uint32_t(into.size()), uint16_t(include.size()), uint16_t(exclude.size())};
  for (const Value& v : include) into.push_back(convert(v));
  for (const Value& v : exclude) into.push_back(convert(v));
  return ref;
}

NidsPrefixEntry prefix_entry(const IpPrefix& p) {
  NidsPrefixEntry e{};
  std::memcpy(e.bytes, p.address.bytes, sizeof(e.bytes));
  e.family = p.address.family;
  e.length = p.length;
  return e;
}

NidsPortEntry port_entry(const NidsPortRange& r) { return {r.lo, r.hi}; }

}  // namespace

NidsCompiledRules::NidsCompiledRules(const std::vector<NidsRule>& rules, size_t max_bytes, uint32_t generation)
    : generation_(generation) {
  std::map<std::pair<std::string, bool>, uint32_t> pattern_ids;
  std::vector<std::vector<uint32_t>> fast_rules;
  for (uint32_t r = 0; r < rules.size(); ++r) {
    const NidsRule& rule = rules[r];
    NidsRuleView view{};
    view.src = add_set(rule.src.include, rule.src.exclude, prefixes_, prefix_entry);
    view.dst = add_set(rule.dst.include, rule.dst.exclude, prefixes_, prefix_entry);
    view.sport = add_set(rule.sport.include, rule.sport.exclude, ports_, port_entry);
    view.dport = add_set(rule.dport.include, rule.dport.exclude, ports_, port_entry);
    view.first_content = uint32_t(contents_.size());
    view.contents = uint8_t(rule.contents.size());
    view.action = rule.action;
    view.proto = rule.proto;
    view.bidirectional = rule.bidirectional;
    uint32_t fast = 0;
    for (const NidsContent& c : rule.contents) {
      std::string bytes = c.bytes;
      if (c.nocase)
        for (char& b : bytes) b = char(nids_fold(uint8_t(b)));
      const auto [it, added] = pattern_ids.try_emplace({bytes, c.nocase}, uint32_t(patterns_.size()));
      if (added) {
        patterns_.push_back({bytes, c.nocase});
        fast_rules.emplace_back();
      }
      if (c.bytes.size() > rule.contents[fast].bytes.size()) fast = uint32_t(&c - rule.contents.data());
      contents_.push_back({it->second, c.offset, c.depth, c.distance, c.within, uint16_t(c.bytes.size()),
                           uint8_t(c.relative), uint8_t(c.nocase)});
    }
    if (rule.contents.empty()) contentless_.push_back(r);
    else fast_rules[contents_[view.first_content + fast].pattern].push_back(r);
    rules_.push_back(view);
  }
  automaton_ = std::make_unique<NidsAutomaton>(patterns_, max_bytes);
  for (const std::vector<uint32_t>& list : fast_rules) {
    fast_first_.push_back(uint32_t(fast_rules_.size()));
    fast_rules_.insert(fast_rules_.end(), list.begin(), list.end());
  }
  fast_first_.push_back(uint32_t(fast_rules_.size()));
  hits_.assign(rules_.size(), 0);
  const size_t bytes[kSections] = {automaton_->arena_bytes(),
                                   rules_.size() * sizeof(NidsRuleView),
                                   contents_.size() * sizeof(NidsContentView),
                                   prefixes_.size() * sizeof(NidsPrefixEntry),
                                   ports_.size() * sizeof(NidsPortEntry),
                                   fast_first_.size() * sizeof(uint32_t),
                                   fast_rules_.size() * sizeof(uint32_t),
                                   contentless_.size() * sizeof(uint32_t),
                                   hits_.size() * sizeof(unsigned long long)};
  for (int s = 0; s < kSections; ++s) {
    section_bytes_[s] = bytes[s];
    section_at_[s + 1] = section_at_[s] + (bytes[s] + 7) / 8 * 8;
  }
}

NidsRuleSetView NidsCompiledRules::host_view() {
  const uint8_t* at[kSections];
  host_sections(at);
  return view_over(at, hits_.data());
}

std::vector<uint64_t> NidsCompiledRules::device_image() const {
  std::vector<uint64_t> words(section_at_[kSections] / 8, 0);  // the hits: zero
  auto* base = reinterpret_cast<uint8_t*>(words.data());
  const uint8_t* from[kSections];
  host_sections(from);
  for (int s = 0; s < kHits; ++s)
    if (section_bytes_[s]) std::memcpy(base + section_at_[s], from[s], section_bytes_[s]);
  return words;
}

NidsRuleSetView NidsCompiledRules::view_at(uint8_t* base) const {
  const uint8_t* at[kSections];
  for (int s = 0; s < kSections; ++s) at[s] = base + section_at_[s];
  return view_over(at, reinterpret_cast<unsigned long long*>(base + section_at_[kHits]));
}

void NidsCompiledRules::host_sections(const uint8_t* at[kSections]) const {
  const void* sections[kSections] = {automaton_->arena(), rules_.data(),      contents_.data(),
                                     prefixes_.data(),    ports_.data(),      fast_first_.data(),
                                     fast_rules_.data(),  contentless_.data(), hits_.data()};
  for (int s = 0; s < kSections; ++s) at[s] = static_cast<const uint8_t*>(sections[s]);
}

NidsRuleSetView NidsCompiledRules::view_over(const uint8_t* const at[kSections], unsigned long long* hits) const {
  NidsRuleSetView v{};
  v.dfa = automaton_->view_at(at[kArena]);
  v.rules = reinterpret_cast<const NidsRuleView*>(at[kRules]);
  v.contents = reinterpret_cast<const NidsContentView*>(at[kContents]);
  v.prefixes = reinterpret_cast<const NidsPrefixEntry*>(at[kPrefixes]);
  v.ports = reinterpret_cast<const NidsPortEntry*>(at[kPorts]);
  v.fast_first = reinterpret_cast<const uint32_t*>(at[kFastFirst]);
  v.fast_rules = reinterpret_cast<const uint32_t*>(at[kFastRules]);
  v.contentless_rules = reinterpret_cast<const uint32_t*>(at[kContentless]);
  v.hits = hits;
  v.rule_count = uint32_t(rules_.size());
  v.contentless_count = uint32_t(contentless_.size());
  v.generation = generation_;
  return v;
}

}  // namespace gnf::nf
