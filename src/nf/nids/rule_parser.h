// Snort rule files: the subset real rule sets use, read into NidsRule (rule.h).
//
//   alert tcp $EXTERNAL_NET any -> $HOME_NET [80,8080:8090] (msg:"x"; content:"GET |20|/"; nocase;
//       content:"cmd.exe"; distance:0; within:200; classtype:web-application-attack; sid:1001; rev:2;)
//
// Header: action (alert, drop, pass), protocol (ip, any, tcp, udp, icmp), source, source ports,
// direction (-> or <>), destination, destination ports. Addresses: any, an address, a prefix, a
// list [a,b,...] (nested lists too), each optionally negated with !. Ports: any, 80, 1024:, :1023,
// 80:90, lists and ! likewise. $NAME takes a variable's value, as text (a value may use others).
// Options: msg, sid, rev, classtype, priority, content (with |hex| bytes and \" \; \\ escapes; the
// modifiers nocase, offset, depth, distance, within follow their content); reference, metadata
// and fast_pattern are read and ignored (they do not change what matches). A line ending in a
// backslash continues on the next; '#' at a line's start comments it out.
//
// Variables: a vars file holds lines `var NAME value`, `ipvar NAME value` or `portvar NAME value`
// (snort.conf's), '#' comments; the config may give more (nids.h).
//
// Problems are per rule: "file:line: field: problem", field being the option's name, or header
// (the rule's header) or rule (its shape). Every other option (pcre, flow, flowbits, byte_test,
// threshold, negated contents, ...) is such a problem: the rule is skipped and listed, or the whole
// load refused (UnsupportedRules::Refuse: a UserError with the first problem).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "nf/nids/rule.h"

namespace gnf::nf {

enum class UnsupportedRules : uint8_t { Skip, Refuse };

using NidsVars = std::map<std::string, std::string>;

struct NidsRuleFile {
  std::vector<NidsRule> rules;
  std::vector<std::string> skipped;  // "file:line: field: problem", one per rule skipped
};

// Parses rule text; `name` starts every message. Throws gnf::UserError "name:line: field: problem"
// at the first problem under Refuse; never throws for a rule's problem under Skip.
NidsRuleFile parse_nids_rules(std::string_view text, const std::string& name, const NidsVars& vars,
                              UnsupportedRules unsupported);
NidsRuleFile read_nids_rule_file(const std::string& path, const NidsVars& vars, UnsupportedRules unsupported);

// A vars file's text, added to `vars`. Throws gnf::UserError "name:line: var: problem".
void parse_nids_vars(std::string_view text, const std::string& name, NidsVars& vars);
void read_nids_vars_file(const std::string& path, NidsVars& vars);

inline constexpr size_t kMaxNidsFileBytes = size_t(64) << 20;
inline constexpr size_t kMaxNidsContentBytes = 1024;

}  // namespace gnf::nf
