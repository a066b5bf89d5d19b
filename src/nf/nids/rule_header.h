// The parts of a Snort rule's parser shared by its header and options (rule_parser.cpp): the
// per-rule problem, variables, and the header's address and port sets.
#pragma once
#include <string>
#include <string_view>

#include "nf/nids/rule.h"
#include "nf/nids/rule_parser.h"

namespace gnf::nf::nids_parse {

// One rule's problem: the rule is skipped or the load refused (rule_parser.h).
struct RuleProblem {
  std::string field;
  std::string problem;
};
[[noreturn]] void fail(const std::string& field, const std::string& problem);

std::string_view trim(std::string_view text);

// `text` with every $NAME replaced by its value, recursively.
std::string expand_vars(std::string_view text, const NidsVars& vars);

NidsAddressSet parse_address_set(std::string_view text, const NidsVars& vars);
NidsPortSet parse_port_set(std::string_view text, const NidsVars& vars);

}  // namespace gnf::nf::nids_parse
