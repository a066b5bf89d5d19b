#include "nf/nids/rule_header.h"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace gnf::nf::nids_parse {

void fail(const std::string& field, const std::string& problem) { throw RuleProblem{field, problem}; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string expand_vars(std::string_view text, const NidsVars& vars) {
  // Bounds a variable that names itself, directly or through others.
  constexpr int kMaxExpansions = 256;
  constexpr size_t kMaxExpandedBytes = 1 << 16;
  std::string out(text);
  for (int expansions = 0;; ++expansions) {
    const size_t dollar = out.find('$');
    if (dollar == out.npos) return out;
    size_t end = dollar + 1;
    while (end < out.size() && (std::isalnum(static_cast<unsigned char>(out[end])) || out[end] == '_')) ++end;
    const std::string name = out.substr(dollar + 1, end - dollar - 1);
    if (name.empty()) fail("header", "a '$' that starts no variable name");
    const auto var = vars.find(name);
    if (var == vars.end()) fail("header", fmt::format("${} is not defined (a vars file or the config defines it)", name));
    if (expansions == kMaxExpansions || out.size() + var->second.size() > kMaxExpandedBytes)
      fail("header", fmt::format("${} expands without end (a variable that uses itself?)", name));
    out.replace(dollar, end - dollar, var->second);
  }
}

namespace {

// A list's elements at its top level: "[a,[b,c],!d]" -> "a", "[b,c]", "!d".
std::vector<std::string_view> list_elements(std::string_view list, const char* field) {
  std::vector<std::string_view> elements;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '[') ++depth;
    if (list[i] == ']' && --depth < 0) fail(field, fmt::format("'{}' closes a list it did not open", list));
    if (list[i] == ',' && depth == 0) {
      elements.push_back(trim(list.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0) fail(field, fmt::format("'{}' leaves a list open", list));
  elements.push_back(trim(list.substr(start)));
  return elements;
}

// Snort's list semantics: the plain entries are a union, the negated ones exclusions. A list nested
// in another, or negated, must hold plain entries only: [a,[b,c],![d,e]] is read, ![a,!b] is not,
// since it is no union less exclusions.
template <class Set, class ParseOne>
void parse_set(std::string_view text, bool negated, bool nested, Set& out, const char* field, int depth,
               const ParseOne& parse_one) {
  constexpr int kMaxNesting = 16;
  text = trim(text);
  while (!text.empty() && text.front() == '!') {
    negated = !negated;
    text = trim(text.substr(1));
  }
  if (text.empty()) fail(field, "an empty entry");
  auto& into = negated ? out.exclude : out.include;
  if (text.front() != '[') {
    if (text == "any" && negated) fail(field, "!any matches nothing");
    parse_one(text, into);
    return;
  }
  if (text.back() != ']') fail(field, fmt::format("'{}' is not a list like [a,b]", text));
  if (depth == kMaxNesting) fail(field, "lists nested too deep");
  Set inner;
  for (std::string_view element : list_elements(text.substr(1, text.size() - 2), field))
    parse_set(element, false, true, inner, field, depth + 1, parse_one);
  if ((negated || nested) && !inner.exclude.empty())
    fail(field, fmt::format("'{}': a nested or negated list that holds negations is not supported", text));
  if (!negated && !nested) out.exclude = std::move(inner.exclude);
  into.insert(into.end(), inner.include.begin(), inner.include.end());
}

void parse_address(std::string_view text, std::vector<IpPrefix>& into) {
  if (text == "any") {
    into.push_back(*parse_ip_prefix("0.0.0.0/0"));
    into.push_back(*parse_ip_prefix("::/0"));
    return;
  }
  const std::optional<IpPrefix> prefix = parse_ip_prefix(text);
  if (!prefix) fail("header", fmt::format("'{}' is not an address, a prefix, any or a list", text));
  into.push_back(*prefix);
}

std::optional<uint16_t> port_number(std::string_view text) {
  uint32_t value = 0;
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || err != std::errc() || end != text.data() + text.size() || value > 0xFFFF) return std::nullopt;
  return uint16_t(value);
}

void parse_port(std::string_view text, std::vector<NidsPortRange>& into) {
  if (text == "any") {
    into.push_back({0, 0xFFFF});
    return;
  }
  const size_t colon = text.find(':');
  const std::string_view lo = colon == text.npos ? text : text.substr(0, colon);
  const std::string_view hi = colon == text.npos ? text : text.substr(colon + 1);
  const std::optional<uint16_t> low = lo.empty() && colon != text.npos ? 0 : port_number(lo);
  const std::optional<uint16_t> high = hi.empty() && colon != text.npos ? 0xFFFF : port_number(hi);
  if (!low || !high) fail("header", fmt::format("'{}' is not a port, a range like 1024: or 80:90, any or a list", text));
  if (*high < *low) fail("header", fmt::format("the port range '{}' ends below its start", text));
  into.push_back({*low, *high});
}

// The compiled rule counts a set's entries in 16 bits (rule_set.h); real sets hold a few dozen.
template <class Set>
void check_size(const Set& set) {
  constexpr size_t kMaxEntries = 4096;
  if (set.include.size() > kMaxEntries || set.exclude.size() > kMaxEntries)
    fail("header", fmt::format("a set of more than {} entries", kMaxEntries));
}

}  // namespace

NidsAddressSet parse_address_set(std::string_view text, const NidsVars& vars) {
  NidsAddressSet set;
  parse_set(expand_vars(text, vars), false, false, set, "header", 0, parse_address);
  if (set.include.empty()) parse_address("any", set.include);  // !a: every address but a
  check_size(set);
  return set;
}

NidsPortSet parse_port_set(std::string_view text, const NidsVars& vars) {
  NidsPortSet set;
  parse_set(expand_vars(text, vars), false, false, set, "header", 0, parse_port);
  if (set.include.empty()) parse_port("any", set.include);
  check_size(set);
  return set;
}

}  // namespace gnf::nf::nids_parse
