#include "nf/ipsec/config_rule.h"

#include <fmt/format.h>

#include "util/error.h"
#include "util/rule_lines.h"

namespace gnf::nf {

namespace {
constexpr const char* kBlanks = " \t\r\v\f";
}  // namespace

void RuleReader::fail(const char* field, const std::string& problem) const {
  const uint32_t line = words_[next_ == 0 ? 0 : next_ - 1].line;
  throw UserError(fmt::format("{}:{}: {}: {}", name_, line, field, problem));
}

const std::string& RuleReader::next(const char* field) {
  if (at_end()) fail(field, "missing at the end of the rule");
  return words_[next_++].text;
}

RuleReader& RuleReader::expect(const char* keyword) {
  if (const std::string& word = next(keyword); word != keyword)
    fail(keyword, fmt::format("expected here, but the rule says '{}'", word));
  return *this;
}

std::vector<RuleReader> split_rules(std::string_view text, const std::string& name) {
  std::vector<RuleReader> rules;
  std::vector<RuleReader::Word> words;
  for_each_rule_line(text, name, [&](std::string_view line, uint32_t number) {
    const size_t last = line.find_last_not_of(kBlanks);
    const bool continued = last != line.npos && line[last] == '\\';
    if (continued) line = line.substr(0, last);
    for (size_t at = line.find_first_not_of(kBlanks); at != line.npos; at = line.find_first_not_of(kBlanks, at)) {
      const size_t word_end = std::min(line.find_first_of(kBlanks, at), line.size());
      words.push_back({std::string(line.substr(at, word_end - at)), number});
      at = word_end;
    }
    if (!continued && !words.empty()) rules.emplace_back(std::move(words), name), words.clear();
  });
  if (!words.empty()) rules.emplace_back(std::move(words), name);
  return rules;
}

}  // namespace gnf::nf
