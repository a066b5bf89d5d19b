// Real rule material (tests/oracle/nids_rule_material.h: Debian's sagan-rules, converted, and
// modsecurity-crs's phrase lists). Every sagan rule option is left for the parser, which skips what
// it does not support and says why: the test prints the reasons with their counts. With a rule per
// CRS phrase (nocase), the set has over 2,000 patterns; the test states the automaton's size and
// build time.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "../oracle/nids_rule_material.h"
#include "nf/nids/rule_parser.h"
#include "nf/nids/rule_set.h"

using namespace gnf;

using test::kCrsFolder;
using test::kSaganFolder;
using test::kSaganVars;

TEST(NidsSagan, DebiansSaganRulesLoadWithEveryRefusalExplained) {
  if (!std::filesystem::is_directory(kSaganFolder)) GTEST_SKIP() << "sagan-rules is not installed (scripts/install-deps.sh)";
  size_t rule_lines = 0;
  const nf::NidsRuleFile loaded = nf::parse_nids_rules(test::sagan_rules(rule_lines), "sagan", kSaganVars, nf::UnsupportedRules::Skip);
  EXPECT_EQ(loaded.rules.size() + loaded.skipped.size(), rule_lines);  // every rule loaded or explained
  std::map<std::string, size_t> reasons;  // "field: problem" without the line, and how often
  for (const std::string& skipped : loaded.skipped) {
    const size_t after_line = skipped.find(": ");
    ASSERT_NE(after_line, std::string::npos) << skipped;
    ++reasons[skipped.substr(after_line + 2)];
  }
  std::printf("sagan-rules: %zu rules: %zu loaded, %zu skipped:\n", rule_lines, loaded.rules.size(), loaded.skipped.size());
  for (const auto& [reason, count] : reasons) std::printf("  %5zu  %s\n", count, reason.c_str());
  EXPECT_GT(loaded.rules.size(), rule_lines / 2);
}

TEST(NidsSagan, SaganAndCrsPhrasesMakeASetOfOver2000Patterns) {
  if (!std::filesystem::is_directory(kSaganFolder) || !std::filesystem::is_directory(kCrsFolder))
    GTEST_SKIP() << "sagan-rules or modsecurity-crs is not installed (scripts/install-deps.sh)";
  size_t rule_lines = 0;
  const std::string text = test::sagan_rules(rule_lines) + test::crs_phrase_rules();
  const nf::NidsRuleFile loaded = nf::parse_nids_rules(text, "sagan+crs", kSaganVars, nf::UnsupportedRules::Skip);
  const auto start = std::chrono::steady_clock::now();
  nf::NidsCompiledRules compiled(loaded.rules, nf::kNidsDefaultMaxBytes, 0);
  const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("sagan + crs phrases: %zu rules, %zu patterns, %u states, %u classes, %.1f MiB, built in %.0f ms\n",
              loaded.rules.size(), compiled.patterns().size(), compiled.automaton().states(),
              compiled.host_view().dfa.classes, compiled.automaton().arena_bytes() / 1048576.0, build_ms);
  EXPECT_GE(compiled.patterns().size(), 2000u);
}
