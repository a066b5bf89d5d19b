// A Snort rule as the parser reads it (rule_parser.h), before it is compiled for packets
// (rule_set.h). Host code.
//
// What the fields mean, for a packet's payload (the bytes after its TCP/UDP/ICMP header, or after the
// IP header for an ip rule; no stream reassembly: one packet's payload at a time):
//   - an address or port set holds a value when some `include` entry holds it (or `include` is empty:
//     any) and no `exclude` entry does: Snort's [10.0.0.0/8,!10.1.0.0/16];
//   - the contents must all match, in the order given. An absolute content (no distance or within)
//     matches at a start s with offset <= s and, when depth is given, s + size <= offset + depth.
//     A relative one matches after the previous content's match, which ended at e (0 for the first
//     content): e + distance <= s and, when within is given, s + size <= e + distance + within (the
//     window Snort 2 searches). nocase folds ASCII letters on both sides.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nf/l3fwd/ip_address.h"

namespace gnf::nf {

inline constexpr uint32_t kNidsMaxContents = 16;  // per rule

enum class NidsAction : uint8_t { Alert, Drop, Pass };
enum class NidsProto : uint8_t { Ip, Tcp, Udp, Icmp };  // ip (and Sagan's any): every IP packet

struct NidsAddressSet {
  std::vector<IpPrefix> include, exclude;
};

struct NidsPortRange {
  uint16_t lo = 0, hi = 0;
};

struct NidsPortSet {
  std::vector<NidsPortRange> include, exclude;
};

struct NidsContent {
  std::string bytes;
  bool nocase = false;
  bool relative = false;  // distance or within given
  int32_t offset = 0;
  int32_t depth = 0;  // 0: not given
  int32_t distance = 0;
  int32_t within = 0;  // 0: not given
};

struct NidsRule {
  NidsAction action = NidsAction::Alert;
  NidsProto proto = NidsProto::Ip;
  NidsAddressSet src, dst;
  NidsPortSet sport, dport;
  bool bidirectional = false;  // <>: either direction matches
  std::vector<NidsContent> contents;
  std::string msg, classtype;
  uint32_t sid = 0, rev = 0;
  uint32_t priority = 0;  // 0: not given
  uint32_t line = 0;      // where the rule starts in its file
};

const char* nids_action_name(NidsAction action);
const char* nids_proto_name(NidsProto proto);

}  // namespace gnf::nf
