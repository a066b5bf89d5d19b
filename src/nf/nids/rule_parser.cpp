#include "nf/nids/rule_parser.h"

#include <cctype>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "nf/nids/rule_header.h"
#include "util/error.h"
#include "util/files.h"

namespace gnf::nf {

using nids_parse::fail;
using nids_parse::RuleProblem;
using nids_parse::trim;

const char* nids_action_name(NidsAction action) {
  switch (action) {
    case NidsAction::Alert: return "alert";
    case NidsAction::Drop: return "drop";
    case NidsAction::Pass: return "pass";
  }
  return "?";
}

const char* nids_proto_name(NidsProto proto) {
  switch (proto) {
    case NidsProto::Ip: return "ip";
    case NidsProto::Tcp: return "tcp";
    case NidsProto::Udp: return "udp";
    case NidsProto::Icmp: return "icmp";
  }
  return "?";
}

namespace {

constexpr const char* kRuleShape = "a rule is ACTION PROTO SRC SPORT -> DST DPORT (OPTION; ...)";

// The header's words; a list's spaces do not split it.
std::vector<std::string_view> header_words(std::string_view header) {
  std::vector<std::string_view> words;
  size_t start = header.npos;
  int depth = 0;
  for (size_t i = 0; i <= header.size(); ++i) {
    const bool end = i == header.size();
    if (!end && header[i] == '[') ++depth;
    if (!end && header[i] == ']') --depth;
    const bool blank = end || (std::isspace(static_cast<unsigned char>(header[i])) && depth <= 0);
    if (!blank && start == header.npos) start = i;
    if (blank && start != header.npos) {
      words.push_back(header.substr(start, i - start));
      start = header.npos;
    }
  }
  return words;
}

void parse_header(std::string_view header, const NidsVars& vars, NidsRule& rule) {
  const std::vector<std::string_view> words = header_words(header);
  if (words.size() != 7) fail("rule", fmt::format("the header has {} words, not 7: {}", words.size(), kRuleShape));
  if (words[0] == "alert") rule.action = NidsAction::Alert;
  else if (words[0] == "drop") rule.action = NidsAction::Drop;
  else if (words[0] == "pass") rule.action = NidsAction::Pass;
  else fail("header", fmt::format("action '{}' is not supported (alert, drop, pass)", words[0]));
  if (words[1] == "ip" || words[1] == "any") rule.proto = NidsProto::Ip;
  else if (words[1] == "tcp") rule.proto = NidsProto::Tcp;
  else if (words[1] == "udp") rule.proto = NidsProto::Udp;
  else if (words[1] == "icmp") rule.proto = NidsProto::Icmp;
  else fail("header", fmt::format("protocol '{}' is not supported (ip, any, tcp, udp, icmp)", words[1]));
  if (words[4] != "->" && words[4] != "<>") fail("header", fmt::format("direction '{}' is neither -> nor <>", words[4]));
  rule.bidirectional = words[4] == "<>";
  rule.src = nids_parse::parse_address_set(words[2], vars);
  rule.sport = nids_parse::parse_port_set(words[3], vars);
  rule.dst = nids_parse::parse_address_set(words[5], vars);
  rule.dport = nids_parse::parse_port_set(words[6], vars);
}

// A quoted option value's text, its escapes (\" \; \\ \:) undone; `hex` reads |41 42| as bytes.
std::string unquote(std::string_view value, const std::string& field, bool hex) {
  if (value.size() < 2 || value.front() != '"' || value.back() != '"')
    fail(field, fmt::format("'{}' is not a quoted string", value));
  value = value.substr(1, value.size() - 2);
  std::string out;
  bool in_hex = false;
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (hex && c == '|') {
      in_hex = !in_hex;
    } else if (in_hex) {
      if (c == ' ') continue;
      uint8_t byte = 0;
      if (i + 1 >= value.size() || std::from_chars(&value[i], &value[i] + 2, byte, 16).ptr != &value[i] + 2)
        fail(field, fmt::format("'{}' is not |hex| bytes like |0d 0a|", value));
      out.push_back(char(byte));
      ++i;
    } else if (c == '\\') {
      if (i + 1 == value.size()) fail(field, "a '\\' that escapes nothing");
      out.push_back(value[++i]);
    } else if (c == '"' || c == ';') {
      fail(field, fmt::format("'{}' holds an unescaped {}", value, c));
    } else {
      out.push_back(c);
    }
  }
  if (in_hex) fail(field, fmt::format("'{}' leaves a |hex| part open", value));
  return out;
}

int32_t number(std::string_view value, const std::string& field, int32_t min, int32_t max) {
  int32_t n = 0;
  auto [end, err] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || err != std::errc() || end != value.data() + value.size() || n < min || n > max)
    fail(field, fmt::format("'{}' is not a number from {} to {}", value, min, max));
  return n;
}

// The options between the parentheses, split at the semicolons outside quotes.
std::vector<std::string_view> split_options(std::string_view body) {
  std::vector<std::string_view> options;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\') ++i;
    else if (body[i] == '"') quoted = !quoted;
    else if (body[i] == ';' && !quoted) {
      options.push_back(trim(body.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (quoted) fail("rule", "a quoted string is not closed");
  if (!trim(body.substr(std::min(start, body.size()))).empty()) fail("rule", "the last option has no ';'");
  return options;
}

NidsContent& last_content(NidsRule& rule, const std::string& modifier) {
  if (rule.contents.empty()) fail(modifier, "a content modifier before any content");
  return rule.contents.back();
}

void check_content(const NidsContent& c, const std::string& field) {
  const int32_t size = int32_t(c.bytes.size());
  if (c.relative && (c.offset || c.depth)) fail(field, "offset/depth and distance/within on one content");
  if (c.depth && c.depth < size) fail(field, fmt::format("depth {} is shorter than the content ({} bytes)", c.depth, size));
  if (c.within && c.within < size) fail(field, fmt::format("within {} is shorter than the content ({} bytes)", c.within, size));
}

void parse_option(std::string_view option, NidsRule& rule) {
  const size_t colon = option.find(':');
  const std::string name(trim(option.substr(0, colon)));
  const std::string_view value = colon == option.npos ? std::string_view() : trim(option.substr(colon + 1));
  constexpr int32_t kMaxPosition = 65535;
  if (name == "content") {
    if (!value.empty() && value.front() == '!') fail(name, "negated contents (!\"...\") are not supported");
    if (rule.contents.size() == kNidsMaxContents) fail(name, fmt::format("more than {} contents", kNidsMaxContents));
    NidsContent content;
    content.bytes = unquote(value, name, true);
    if (content.bytes.empty()) fail(name, "an empty content");
    if (content.bytes.size() > kMaxNidsContentBytes) fail(name, fmt::format("longer than {} bytes", kMaxNidsContentBytes));
    rule.contents.push_back(std::move(content));
  } else if (name == "nocase") {
    last_content(rule, name).nocase = true;
  } else if (name == "offset") {
    last_content(rule, name).offset = number(value, name, 0, kMaxPosition);
  } else if (name == "depth") {
    last_content(rule, name).depth = number(value, name, 1, kMaxPosition);
  } else if (name == "distance") {
    NidsContent& c = last_content(rule, name);
    c.distance = number(value, name, -kMaxPosition, kMaxPosition);
    c.relative = true;
  } else if (name == "within") {
    NidsContent& c = last_content(rule, name);
    c.within = number(value, name, 1, kMaxPosition);
    c.relative = true;
  } else if (name == "msg") {
    rule.msg = unquote(value, name, false);
  } else if (name == "sid" || name == "rev" || name == "priority") {
    (name == "sid" ? rule.sid : name == "rev" ? rule.rev : rule.priority) = uint32_t(number(value, name, 1, INT32_MAX));
  } else if (name == "classtype") {
    rule.classtype = std::string(value);
    if (value.empty() || value.find_first_of(" \t\"") != value.npos) fail(name, fmt::format("'{}' is not a class name", value));
  } else if (name == "reference" || name == "metadata" || name == "fast_pattern") {
    if (name == "fast_pattern" && !value.empty()) fail(name, "only the plain fast_pattern hint is supported");
  } else {
    fail(name.empty() ? "rule" : name, name.empty() ? "an empty option" : "not supported");
  }
  if (!rule.contents.empty()) check_content(rule.contents.back(), name);
}

NidsRule parse_rule(std::string_view text, const NidsVars& vars, std::set<uint32_t>& sids) {
  NidsRule rule;
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == text.npos || close == text.npos || close < open) fail("rule", std::string("no (options): ") + kRuleShape);
  if (!trim(text.substr(close + 1)).empty()) fail("rule", "text after the options' ')'");
  parse_header(text.substr(0, open), vars, rule);
  for (std::string_view option : split_options(text.substr(open + 1, close - open - 1))) parse_option(option, rule);
  if (rule.sid == 0) fail("sid", "missing: every rule needs a sid");
  if (!sids.insert(rule.sid).second) fail("sid", fmt::format("{} is used by an earlier rule", rule.sid));
  return rule;
}

// Calls fn(text, line) for each rule: lines joined where one ends in '\', comments and blanks left out.
template <class Fn>
void for_each_rule_text(std::string_view text, Fn&& fn) {
  std::string joined;
  uint32_t first = 0;
  for (uint32_t number = 1; !text.empty(); ++number) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == text.npos ? text.size() : end + 1);
    const std::string_view body = trim(line);
    if (joined.empty() && (body.empty() || body.front() == '#')) continue;
    if (joined.empty()) first = number;
    const bool continues = !body.empty() && body.back() == '\\';
    joined.append(continues ? body.substr(0, body.size() - 1) : body).push_back(' ');
    if (continues && !text.empty()) continue;
    fn(std::string_view(joined), first);
    joined.clear();
  }
}

}  // namespace

NidsRuleFile parse_nids_rules(std::string_view text, const std::string& name, const NidsVars& vars,
                              UnsupportedRules unsupported) {
  NidsRuleFile file;
  std::set<uint32_t> sids;
  for_each_rule_text(text, [&](std::string_view rule_text, uint32_t line) {
    try {
      if (rule_text.find('\0') != rule_text.npos) fail("rule", "the line holds a NUL byte: this is not a text file");
      file.rules.push_back(parse_rule(rule_text, vars, sids));
      file.rules.back().line = line;
    } catch (const RuleProblem& p) {
      std::string message = fmt::format("{}:{}: {}: {}", name, line, p.field, p.problem);
      if (unsupported == UnsupportedRules::Refuse) throw UserError(message);
      file.skipped.push_back(std::move(message));
    }
  });
  return file;
}

NidsRuleFile read_nids_rule_file(const std::string& path, const NidsVars& vars, UnsupportedRules unsupported) {
  return parse_nids_rules(read_input_file(path, kMaxNidsFileBytes), path, vars, unsupported);
}

void parse_nids_vars(std::string_view text, const std::string& name, NidsVars& vars) {
  for_each_rule_text(text, [&](std::string_view line, uint32_t number) {
    const std::vector<std::string_view> words = header_words(line);
    const bool known = !words.empty() && (words[0] == "var" || words[0] == "ipvar" || words[0] == "portvar");
    if (!known || words.size() != 3)
      throw UserError(fmt::format("{}:{}: var: a line is 'var NAME value' (or ipvar, portvar)", name, number));
    vars[std::string(words[1])] = std::string(words[2]);
  });
}

void read_nids_vars_file(const std::string& path, NidsVars& vars) {
  parse_nids_vars(read_input_file(path, kMaxNidsFileBytes), path, vars);
}

}  // namespace gnf::nf
