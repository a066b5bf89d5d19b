#include "corpus.h"

#include <filesystem>
#include <random>
#include <set>
#include <utility>

#include "nf/nids/rule_set.h"
#include "nids_rule_material.h"

namespace gnf::nids_bench {

namespace {

// The distinct contents of the real rule material, in rule order; none where it is not installed.
std::vector<nf::NidsPattern> real_patterns() {
  if (!std::filesystem::is_directory(test::kSaganFolder) || !std::filesystem::is_directory(test::kCrsFolder)) return {};
  size_t rule_lines = 0;
  const std::string text = test::sagan_rules(rule_lines) + test::crs_phrase_rules();
  const nf::NidsRuleFile file = nf::parse_nids_rules(text, "sagan+crs", test::kSaganVars, nf::UnsupportedRules::Skip);
  return nf::NidsCompiledRules(file.rules, nf::kNidsDefaultMaxBytes, 0).patterns();
}

std::string random_text(std::mt19937_64& rng, size_t size) {
  static const char kText[] = "abcdefghijklmnopqrstuvwxyz0123456789 /.-_=&?:ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string out(size, ' ');
  for (char& c : out) c = kText[rng() % (sizeof(kText) - 1)];
  return out;
}

nf::NidsPattern generated_pattern(std::mt19937_64& rng) {
  nf::NidsPattern p;
  const size_t size = 4 + rng() % 21;
  if (rng() % 4 == 0) {
    p.bytes.resize(size);
    for (char& c : p.bytes) c = char(rng());
  } else {
    p.bytes = random_text(rng, size);
  }
  p.nocase = rng() % 2;
  if (p.nocase)
    for (char& c : p.bytes) c = char(nf::nids_fold(uint8_t(c)));
  return p;
}

uint32_t imix_size(uint32_t i) {
  const uint32_t slot = i % 12;
  return slot < 7 ? 40 : slot < 11 ? 576 : 1500;
}

struct CountAll {
  uint64_t n = 0;
  void operator()(uint32_t, uint32_t) { ++n; }
};

}  // namespace

std::string size_name(uint32_t size) { return size == kImix ? "imix" : std::to_string(size); }

std::vector<PatternSet> pattern_sets(uint32_t large) {
  const std::vector<nf::NidsPattern> real = real_patterns();
  std::vector<nf::NidsPattern> all = real;
  std::set<std::pair<std::string, bool>> seen;
  for (const nf::NidsPattern& p : all) seen.insert({p.bytes, p.nocase});
  std::mt19937_64 rng(14);
  while (all.size() < large) {
    nf::NidsPattern p = generated_pattern(rng);
    if (seen.insert({p.bytes, p.nocase}).second) all.push_back(std::move(p));
  }
  std::vector<PatternSet> sets;
  for (const uint32_t count : {147u, 2000u, large}) {
    const std::string source = real.empty() ? "generated" : count <= real.size() ? "sagan-rules+crs" : "sagan-rules+crs+generated";
    sets.push_back({std::to_string(count), source, std::vector<nf::NidsPattern>(all.begin(), all.begin() + count)});
  }
  return sets;
}

Corpus make_corpus(const std::vector<nf::NidsPattern>& patterns, uint32_t size, uint32_t packets, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Corpus c;
  c.offsets.push_back(0);
  for (uint32_t i = 0; i < packets; ++i) {
    const uint32_t bytes = size == kImix ? imix_size(i) : size;
    std::string payload = random_text(rng, bytes);
    const nf::NidsPattern& planted = patterns[rng() % patterns.size()];
    if (rng() % 4 == 0 && planted.bytes.size() <= bytes)
      payload.replace(rng() % (bytes - planted.bytes.size() + 1), planted.bytes.size(), planted.bytes);
    c.bytes.insert(c.bytes.end(), payload.begin(), payload.end());
    c.offsets.push_back(uint32_t(c.bytes.size()));
  }
  return c;
}

uint64_t host_matches(const nf::NidsDfaView& dfa, const Corpus& corpus) {
  CountAll count;
  for (uint32_t i = 0; i < corpus.packets(); ++i)
    nf::nids_scan(dfa, corpus.bytes.data() + corpus.offsets[i], corpus.offsets[i + 1] - corpus.offsets[i], count);
  return count.n;
}

}  // namespace gnf::nids_bench
