// libFuzzer target: arbitrary bytes as nids rules and a frame (nf/nids/). The input is rule text,
// then a line "---", then the frame's bytes; the rules are parsed (skipping what is unsupported),
// compiled, and the frame run through the evaluator.
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - with unsupported = skip the parser never throws; with refuse only gnf::UserError escapes, its
//    message "fuzz.rules:LINE: ..." with a line the input has;
//  - the automaton (memory bounded) refuses only with UserError; when built, its scan of the frame's
//    payload reports exactly the (pattern, end offset) pairs a plain search finds;
//  - the evaluator's matched rules are distinct, in rule order, and no more than the rules.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "fuzz_support.h"
#include "nf/nids/evaluate.h"
#include "nf/nids/rule_parser.h"
#include "util/error.h"

using namespace gnf;

namespace {

constexpr const char* kName = "fuzz.rules";

using Occurrences = std::set<std::pair<uint32_t, uint32_t>>;

struct Collect {
  Occurrences* found;
  void operator()(uint32_t pattern, uint32_t end) { found->insert({pattern, end}); }
};

Occurrences plain_search(const std::vector<nf::NidsPattern>& patterns, const uint8_t* data, uint32_t len) {
  Occurrences found;
  for (uint32_t p = 0; p < patterns.size(); ++p) {
    const std::string& bytes = patterns[p].bytes;
    for (uint32_t end = uint32_t(bytes.size()); end <= len; ++end) {
      bool equal = true;
      for (size_t k = 0; k < bytes.size() && equal; ++k) {
        const uint8_t c = data[end - bytes.size() + k];
        equal = uint8_t(bytes[k]) == (patterns[p].nocase ? nf::nids_fold(c) : c);
      }
      if (equal) found.insert({p, end});
    }
  }
  return found;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find("\n---\n");
  const std::string_view text = input.substr(0, split);
  const std::string_view frame = split == input.npos ? std::string_view() : input.substr(split + 5);
  const nf::NidsVars vars = {{"HOME_NET", "[10.0.0.0/8,2001:db8::/32]"}, {"EXTERNAL_NET", "!$HOME_NET"}};

  try {
    nf::parse_nids_rules(text, kName, vars, nf::UnsupportedRules::Refuse);
  } catch (const UserError& e) {
    fuzz::after_name_and_line(fuzz::full_message(e), text, kName);
  } catch (const std::exception& e) {
    fuzz::fail("the parser threw other than UserError", fuzz::printable(e.what()));
  }
  nf::NidsRuleFile file;
  try {
    file = nf::parse_nids_rules(text, kName, vars, nf::UnsupportedRules::Skip);
  } catch (const std::exception& e) {
    fuzz::fail("the parser threw while skipping", fuzz::printable(e.what()));
  }

  std::unique_ptr<nf::NidsCompiledRules> compiled;
  try {
    compiled = std::make_unique<nf::NidsCompiledRules>(file.rules, size_t(64) << 20, 0);
  } catch (const UserError&) {
    return 0;  // over the memory bound
  }
  const nf::NidsRuleSetView set = compiled->host_view();
  const auto* bytes = reinterpret_cast<const uint8_t*>(frame.data());
  nf::NidsPacket packet;
  if (nf::nids_packet(bytes, uint32_t(frame.size()), packet) != nf::NidsFrame::Ip) return 0;
  FUZZ_CHECK(packet.payload >= bytes && packet.payload + packet.payload_len <= bytes + frame.size(),
             "the payload lies outside the frame");

  Occurrences scanned;
  Collect collect{&scanned};
  nf::nids_scan(set.dfa, packet.payload, packet.payload_len, collect);
  FUZZ_CHECK(scanned == plain_search(compiled->patterns(), packet.payload, packet.payload_len),
             "the automaton's (pattern, end) set != a plain search's");

  nf::NidsMatches matches;
  nf::nids_evaluate(set, packet, matches);
  FUZZ_CHECK(matches.count + matches.over_limit <= set.rule_count, "more matches than rules");
  for (uint32_t i = 1; i < matches.count; ++i)
    FUZZ_CHECK(matches.rules[i - 1] < matches.rules[i], "matched rules out of order or repeated");
  return 0;
}
