// ACL rule files, in the format of DPDK's l3fwd-acl (l3fwd --lookup acl) and the rte_acl users that
// read ClassBench filter sets, with an optional action word at the end:
//
//   @<src>/<len> <dst>/<len> <sport_lo> : <sport_hi> <dport_lo> : <dport_hi> <proto>/<mask> [action]
//   R<src>/<len> <dst>/<len> <sport_lo> : <sport_hi> <dport_lo> : <dport_hi> <proto>/<mask> <port>
//
//   @10.0.0.0/8 192.168.0.0/16 0 : 65535 80 : 80 6/0xff permit
//   @2001:db8::/32 ::/0 1024:65535 53:53 0x11/0xff count
//   @0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0
//
// '@' lines are ACL rules; as in l3fwd-acl, a packet that matches one is dropped unless its action
// word says otherwise: permit, deny or count (count: passed, and there to be counted). 'R' lines
// are l3fwd-acl's route rules: the packet is permitted, and the port is kept for whoever routes.
// Addresses are IPv4 or IPv6 (both prefixes of one family; a file may mix rules of both), with no
// bits set beyond the length. A port range is "lo : hi" (DPDK's three words) or "lo:hi". Numbers are
// decimal or 0x-hexadecimal; the protocol matches the packets whose protocol p has
// (p & mask) == proto, so 6/0xff is TCP and 0/0 any protocol. '#' starts a comment; blank lines are
// skipped. Priority is file order: the first rule that matches decides.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nf/acl/classifier.h"

namespace gnf::nf {

enum class AclAction : uint8_t { Permit, Deny, Count };

struct AclRule {
  AclMatch match;
  AclAction action = AclAction::Deny;
  std::optional<uint16_t> route_port;  // an 'R' line's port
  uint32_t line = 0;                   // in the file, for messages
};

// Parses a rule file's text; `name` starts every error: "name:line: field: problem", where field is
// rule, source, destination, source ports, destination ports, protocol, action or port.
// Throws gnf::UserError on the first bad line.
std::vector<AclRule> parse_acl_rules(std::string_view text, const std::string& name);
// Reads and parses the file at `path` (at most kMaxAclFileBytes); errors as parse_acl_rules', or
// "path: problem" when it cannot be read.
std::vector<AclRule> read_acl_rule_file(const std::string& path);
inline constexpr size_t kMaxAclFileBytes = size_t(256) << 20;

// The rules' matches, in order: what AclClassifier is built from.
std::vector<AclMatch> acl_matches_of(const std::vector<AclRule>& rules);

const char* acl_action_name(AclAction action);

}  // namespace gnf::nf
