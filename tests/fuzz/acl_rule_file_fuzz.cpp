// libFuzzer target: arbitrary bytes as an ACL rule file (nf/acl/rule_file.h), parsed by
// nf::parse_acl_rules and, when it parses, classified by an nf::AclClassifier built from it.
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - only gnf::UserError escapes the parser, and its message is "fuzz.acl:LINE: FIELD: ..." with a
//    line the input has and a field of the documented list;
//  - a file that parses has one rule per line that holds anything but blanks and a comment;
//  - the classifier (memory bounded) refuses only with UserError; when built, every rule's lowest
//    tuple (its networks' first addresses, its ports' low ends, its protocol) and highest tuple get
//    the first rule whose definition (nf::acl_matches) matches them, and that is at most the rule.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "nf/acl/classifier.h"
#include "nf/acl/rule_file.h"
#include "util/error.h"

using namespace gnf;

namespace {

constexpr const char* kName = "fuzz.acl";
constexpr const char* kFields[] = {"rule",  "source",   "destination", "source ports", "destination ports",
                                   "protocol", "action", "port"};

void check_error(std::string_view message, std::string_view input) {
  const std::string_view rest = fuzz::after_name_and_line(message, input, kName);
  for (const char* field : kFields)
    if (rest.rfind(std::string(field) + ": ", 0) == 0) return;
  fuzz::fail("an error that names no field", fuzz::printable(message));
}

size_t rule_lines(std::string_view input) {
  size_t count = 0;
  while (!input.empty()) {
    const size_t end = input.find('\n');
    std::string_view line = input.substr(0, end);
    input.remove_prefix(end == input.npos ? input.size() : end + 1);
    line = line.substr(0, line.find('#'));
    count += line.find_first_not_of(" \t\r\v\f") != line.npos;
  }
  return count;
}

template <typename Key>
void check_decision(const std::vector<nf::AclMatch>& rules, const nf::AclView& view, const Key& key, uint32_t rule) {
  uint32_t want = nf::kAclNoMatch;
  for (uint32_t r = 0; r < rules.size() && want == nf::kAclNoMatch; ++r)
    if (nf::acl_matches(rules[r], key)) want = r;
  FUZZ_CHECK_EQ(nf::acl_classify(view, key), want, "the classifier's rule != the first rule that matches");
  FUZZ_CHECK(want <= rule, "a rule's own tuple is matched by no rule up to it");
}

nf::AclU128 u128(const nf::IpAddress& a) {
  nf::AclU128 n{0, 0};
  for (int i = 0; i < 8; ++i) {
    n.hi = n.hi << 8 | a.bytes[i];
    n.lo = n.lo << 8 | a.bytes[8 + i];
  }
  return n;
}

// The last address of a prefix.
nf::IpAddress last_of(const nf::IpPrefix& p) {
  nf::IpAddress a = p.address;
  for (uint32_t bit = p.length; bit < a.bits(); ++bit) a.bytes[bit / 8] |= uint8_t(0x80 >> (bit % 8));
  return a;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<nf::AclRule> parsed;
  try {
    parsed = nf::parse_acl_rules(input, kName);
  } catch (const UserError& e) {
    check_error(fuzz::full_message(e), input);
    return 0;
  } catch (const std::exception& e) {
    fuzz::fail("an exception other than UserError", fuzz::printable(e.what()));
  }
  FUZZ_CHECK_EQ(parsed.size(), rule_lines(input), "rules read != lines holding a rule");

  const std::vector<nf::AclMatch> rules = nf::acl_matches_of(parsed);
  std::unique_ptr<nf::AclClassifier> classifier;
  try {
    classifier = std::make_unique<nf::AclClassifier>(rules, size_t(64) << 20);
  } catch (const UserError&) {
    return 0;  // over the memory bound
  } catch (const std::exception& e) {
    fuzz::fail("the classifier threw other than UserError", fuzz::printable(e.what()));
  }
  const nf::AclView view = classifier->view();
  for (uint32_t r = 0; r < rules.size(); ++r) {
    const nf::AclMatch& m = rules[r];
    const uint8_t high_proto = uint8_t(m.proto | ~m.proto_mask);
    if (m.src.address.family == 4) {
      check_decision(rules, view, nf::AclKey4{m.src.address.ipv4(), m.dst.address.ipv4(), m.sport_lo, m.dport_lo, m.proto}, r);
      check_decision(rules, view,
                     nf::AclKey4{last_of(m.src).ipv4(), last_of(m.dst).ipv4(), m.sport_hi, m.dport_hi, high_proto}, r);
    } else {
      check_decision(rules, view, nf::AclKey6{u128(m.src.address), u128(m.dst.address), m.sport_lo, m.dport_lo, m.proto}, r);
      check_decision(rules, view,
                     nf::AclKey6{u128(last_of(m.src)), u128(last_of(m.dst)), m.sport_hi, m.dport_hi, high_proto}, r);
    }
  }
  return 0;
}
