#include "nf/acl/rule_file.h"

#include <charconv>
#include <sstream>

#include <fmt/format.h>

#include "util/error.h"
#include "util/files.h"
#include "util/rule_lines.h"

namespace gnf::nf {

namespace {

constexpr const char* kRuleShape =
    "a rule is @<src>/<len> <dst>/<len> <sport_lo> : <sport_hi> <dport_lo> : <dport_hi> <proto>/<mask> "
    "[permit|deny|count], or R... <port> for a route rule";

// One line's words, taken in order; every problem names the field it is in.
class LineParser {
 public:
  LineParser(std::vector<std::string> words, const std::string& name, uint32_t line)
      : words_(std::move(words)), name_(name), line_(line) {}

  [[noreturn]] void fail(const char* field, const std::string& problem) const {
    throw UserError(fmt::format("{}:{}: {}: {}", name_, line_, field, problem));
  }
  const std::string& next(const char* field) {
    if (at_end()) fail(field, std::string("missing: ") + kRuleShape);
    return words_[next_++];
  }
  bool at_end() const { return next_ == words_.size(); }

 private:
  std::vector<std::string> words_;
  size_t next_ = 0;
  const std::string& name_;
  uint32_t line_;
};

// Decimal, or hexadecimal after 0x (DPDK's files write protocols as 0x06/0xff), at most `largest`.
std::optional<uint32_t> parse_number(std::string_view text, uint32_t largest) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  uint32_t value = 0;
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || err != std::errc() || end != text.data() + text.size() || value > largest) return std::nullopt;
  return value;
}

IpPrefix parse_prefix(std::string_view text, const char* field, const LineParser& in) {
  std::string problem;
  const std::optional<IpPrefix> prefix = parse_network(text, text, true, problem);
  if (!prefix) in.fail(field, problem);
  return *prefix;
}

void parse_port_range(LineParser& in, const char* field, uint16_t& lo, uint16_t& hi) {
  const std::string& first = in.next(field);
  std::string lo_text = first, hi_text;
  if (const size_t colon = first.find(':'); colon != first.npos) {
    lo_text = first.substr(0, colon);
    hi_text = first.substr(colon + 1);
  } else {
    if (in.next(field) != ":") in.fail(field, fmt::format("'{}' is not followed by ' : ' and the range's end", first));
    hi_text = in.next(field);
  }
  auto low = parse_number(lo_text, 0xFFFF), high = parse_number(hi_text, 0xFFFF);
  if (!low || !high)
    in.fail(field, fmt::format("'{}' : '{}' is not a port range like 0 : 65535 or 1024:65535", lo_text, hi_text));
  if (*high < *low) in.fail(field, fmt::format("the range {} : {} ends below its start", *low, *high));
  lo = uint16_t(*low);
  hi = uint16_t(*high);
}

void parse_protocol(const std::string& text, AclMatch& match, const LineParser& in) {
  const size_t slash = text.find('/');
  auto value = parse_number(std::string_view(text).substr(0, slash), 0xFF);
  auto mask = slash == text.npos ? std::nullopt : parse_number(std::string_view(text).substr(slash + 1), 0xFF);
  if (!value || !mask) in.fail("protocol", fmt::format("'{}' is not a protocol and mask like 6/0xff or 0/0", text));
  if (*value & ~*mask)
    in.fail("protocol", fmt::format("'{}' has bits set outside its mask (0/0 matches any protocol)", text));
  match.proto = uint8_t(*value);
  match.proto_mask = uint8_t(*mask);
}

AclAction parse_action(const std::string& word, const LineParser& in) {
  for (AclAction a : {AclAction::Permit, AclAction::Deny, AclAction::Count})
    if (word == acl_action_name(a)) return a;
  in.fail("action", fmt::format("'{}' is not permit, deny or count", word));
}

AclRule parse_rule(LineParser& in, uint32_t line) {
  AclRule rule;
  rule.line = line;
  const std::string& first = in.next("rule");
  const bool route = first[0] == 'R';
  if (first[0] != '@' && !route)
    in.fail("rule", fmt::format("'{}' starts with neither @ (an ACL rule) nor R (a route rule)", first));
  rule.match.src = parse_prefix(std::string_view(first).substr(1), "source", in);
  rule.match.dst = parse_prefix(in.next("destination"), "destination", in);
  if (rule.match.dst.address.family != rule.match.src.address.family)
    in.fail("destination", fmt::format("an IPv{} prefix in a rule whose source is IPv{}", rule.match.dst.address.family,
                                       rule.match.src.address.family));
  parse_port_range(in, "source ports", rule.match.sport_lo, rule.match.sport_hi);
  parse_port_range(in, "destination ports", rule.match.dport_lo, rule.match.dport_hi);
  parse_protocol(in.next("protocol"), rule.match, in);
  if (route) {
    const std::string& port = in.next("port");
    auto number = parse_number(port, 0xFFFF);
    if (!number) in.fail("port", fmt::format("'{}' is not a port number (0..65535)", port));
    rule.route_port = uint16_t(*number);
    rule.action = AclAction::Permit;
  } else if (!in.at_end()) {
    rule.action = parse_action(in.next("action"), in);
  }
  if (!in.at_end()) in.fail("rule", fmt::format("'{}' after the rule's last field", in.next("rule")));
  return rule;
}

}  // namespace

const char* acl_action_name(AclAction action) {
  switch (action) {
    case AclAction::Permit: return "permit";
    case AclAction::Deny: return "deny";
    case AclAction::Count: return "count";
  }
  return "?";
}

std::vector<AclRule> parse_acl_rules(std::string_view text, const std::string& name) {
  std::vector<AclRule> rules;
  for_each_rule_line(text, name, [&](std::string_view line, uint32_t number) {
    std::istringstream words_in{std::string(line)};
    std::vector<std::string> words;
    for (std::string w; words_in >> w;) words.push_back(w);
    if (words.empty()) return;
    LineParser in(std::move(words), name, number);
    rules.push_back(parse_rule(in, number));
  });
  return rules;
}

std::vector<AclRule> read_acl_rule_file(const std::string& path) {
  return parse_acl_rules(read_input_file(path, kMaxAclFileBytes), path);
}

std::vector<AclMatch> acl_matches_of(const std::vector<AclRule>& rules) {
  std::vector<AclMatch> matches;
  matches.reserve(rules.size());
  for (const AclRule& r : rules) matches.push_back(r.match);
  return matches;
}

}  // namespace gnf::nf
