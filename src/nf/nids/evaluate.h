// The nids rules against one packet (host and device code): the automaton's scan names the
// candidate rules, each is verified (header, then contents in order) once.
//
// Verification of contents searches for positions that satisfy every content's window (rule.h),
// backtracking to a previous content's next match when a relative one finds none after it, as
// Snort does. That search is bounded: after kNidsVerifySteps candidate positions for one rule the
// rule counts as not matched and the packet's verify_limit flag is set (Suricata's inspection
// recursion limit is the same guard); the evaluator's reference test checks that its corpus never
// reaches the bound.
//
// Distinct patterns a packet holds are collected, at most kNidsPatternsPerPacket; a packet with
// more is verified against every rule (the pattern_overflow flag says so): slower, never wrong.
#pragma once
#include <cstdint>

#include "nf/nids/automaton.h"
#include "nf/nids/packet_fields.h"
#include "nf/nids/rule_set.h"
#include "sync/ordering.h"
#include "util/hd.h"

namespace gnf::nf {

inline constexpr uint32_t kNidsPatternsPerPacket = 64;
inline constexpr uint32_t kNidsMatchesPerPacket = 16;  // as Suricata's packet_alert_max, 15
inline constexpr uint32_t kNidsVerifySteps = 1u << 18;

struct NidsMatches {
  uint32_t rules[kNidsMatchesPerPacket];  // the first that matched, in rule order
  uint32_t count;
  uint32_t over_limit;  // matched rules beyond kNidsMatchesPerPacket
  bool any_pass, any_drop;
  bool pattern_overflow, verify_limit;
};

namespace nids_detail {

GNF_INLINE bool prefix_holds(const NidsPrefixEntry& e, uint8_t family, const uint8_t* address) {
  if (e.family != family) return false;
  const uint32_t whole = e.length / 8, bits = e.length % 8;
  for (uint32_t i = 0; i < whole; ++i)
    if (address[i] != e.bytes[i]) return false;
  return bits == 0 || ((address[whole] ^ e.bytes[whole]) & uint8_t(0xFF00 >> bits)) == 0;
}

GNF_INLINE bool address_in(const NidsRuleSetView& set, NidsSetRef ref, uint8_t family, const uint8_t* address) {
  bool in = false;
  for (uint32_t i = 0; i < ref.include && !in; ++i) in = prefix_holds(set.prefixes[ref.first + i], family, address);
  for (uint32_t i = ref.include; i < ref.include + ref.exclude && in; ++i)
    in = !prefix_holds(set.prefixes[ref.first + i], family, address);
  return in;
}

GNF_INLINE bool port_in(const NidsRuleSetView& set, NidsSetRef ref, uint16_t port) {
  bool in = false;
  for (uint32_t i = 0; i < ref.include && !in; ++i) in = set.ports[ref.first + i].lo <= port && port <= set.ports[ref.first + i].hi;
  for (uint32_t i = ref.include; i < ref.include + ref.exclude && in; ++i)
    in = !(set.ports[ref.first + i].lo <= port && port <= set.ports[ref.first + i].hi);
  return in;
}

GNF_INLINE bool header_matches(const NidsRuleSetView& set, const NidsRuleView& rule, const NidsPacket& p) {
  switch (rule.proto) {
    case NidsProto::Ip: break;
    case NidsProto::Tcp: if (!p.l4 || p.proto != net::kIpProtoTcp) return false; break;
    case NidsProto::Udp: if (!p.l4 || p.proto != net::kIpProtoUdp) return false; break;
    case NidsProto::Icmp: if (!p.l4 || (p.proto != kNidsIcmp && p.proto != kNidsIcmpv6)) return false; break;
  }
  const bool forward = address_in(set, rule.src, p.family, p.src) && address_in(set, rule.dst, p.family, p.dst) &&
                       port_in(set, rule.sport, p.sport) && port_in(set, rule.dport, p.dport);
  return forward || (rule.bidirectional && address_in(set, rule.src, p.family, p.dst) &&
                     address_in(set, rule.dst, p.family, p.src) && port_in(set, rule.sport, p.dport) &&
                     port_in(set, rule.dport, p.sport));
}

GNF_INLINE bool bytes_at(const NidsDfaView& dfa, const NidsContentView& c, const uint8_t* data) {
  const uint8_t* pattern = dfa.pattern_bytes + dfa.pattern_at[c.pattern];
  for (uint32_t k = 0; k < c.size; ++k)
    if ((c.nocase ? nids_fold(data[k]) : data[k]) != pattern[k]) return false;
  return true;
}

// The starts a content may match at, given the previous content's end: [lo, hi] (empty: lo > hi).
GNF_INLINE void content_window(const NidsContentView& c, int64_t previous_end, uint32_t len, int64_t& lo, int64_t& hi) {
  const int64_t start = c.relative ? previous_end + c.distance : c.offset;
  const int64_t limit = c.relative ? (c.within ? start + c.within : len) : (c.depth ? start + c.depth : len);
  lo = start < 0 ? 0 : start;
  hi = (limit < int64_t(len) ? limit : int64_t(len)) - c.size;
}

// Whether the rule's contents all match in order (rule.h).
GNF_HD inline bool contents_match(const NidsRuleSetView& set, const NidsRuleView& rule, const NidsPacket& p,
                                  bool& verify_limit) {
  int64_t next_start[kNidsMaxContents], hi[kNidsMaxContents], end[kNidsMaxContents + 1];
  const NidsContentView* contents = set.contents + rule.first_content;
  uint32_t steps = 0;
  int level = 0;
  end[0] = 0;
  content_window(contents[0], 0, p.payload_len, next_start[0], hi[0]);
  while (level >= 0) {
    const NidsContentView& c = contents[level];
    int64_t s = next_start[level];
    for (; s <= hi[level]; ++s) {
      if (++steps > kNidsVerifySteps) {
        verify_limit = true;
        return false;
      }
      if (bytes_at(set.dfa, c, p.payload + s)) break;
    }
    if (s > hi[level]) {
      // An absolute content's window does not depend on earlier matches: no other choice helps.
      if (!c.relative) return false;
      --level;
      continue;
    }
    next_start[level] = s + 1;
    if (level + 1 == rule.contents) return true;
    end[level + 1] = s + c.size;
    ++level;
    content_window(contents[level], end[level], p.payload_len, next_start[level], hi[level]);
  }
  return false;
}

GNF_INLINE void record(const NidsRuleSetView& set, uint32_t r, NidsMatches& out) {
  add_relaxed(&set.hits[r], 1);
  out.any_pass |= set.rules[r].action == NidsAction::Pass;
  out.any_drop |= set.rules[r].action == NidsAction::Drop;
  // The first kNidsMatchesPerPacket in rule order are kept, whichever order they were found in.
  if (out.count == kNidsMatchesPerPacket) {
    ++out.over_limit;
    if (out.rules[out.count - 1] < r) return;
    --out.count;
  }
  uint32_t at = out.count++;
  for (; at > 0 && out.rules[at - 1] > r; --at) out.rules[at] = out.rules[at - 1];
  out.rules[at] = r;
}

GNF_INLINE void verify(const NidsRuleSetView& set, uint32_t r, const NidsPacket& p, NidsMatches& out) {
  const NidsRuleView& rule = set.rules[r];
  if (!header_matches(set, rule, p)) return;
  if (rule.contents && !contents_match(set, rule, p, out.verify_limit)) return;
  record(set, r, out);
}

struct DistinctPatterns {
  uint32_t ids[kNidsPatternsPerPacket];
  uint32_t count = 0;
  bool overflow = false;
  GNF_HD void operator()(uint32_t pattern, uint32_t) {
    for (uint32_t i = 0; i < count; ++i)
      if (ids[i] == pattern) return;
    if (count == kNidsPatternsPerPacket) overflow = true;
    else ids[count++] = pattern;
  }
};

}  // namespace nids_detail

// The rules that match packet `p`, given the distinct patterns its payload holds (`found`, from
// nids_scan or its pieces), hit counters added. `out` is filled whole.
GNF_HD inline void nids_evaluate_found(const NidsRuleSetView& set, const NidsPacket& p,
                                       const nids_detail::DistinctPatterns& found, NidsMatches& out) {
  out.count = out.over_limit = 0;
  out.any_pass = out.any_drop = out.pattern_overflow = out.verify_limit = false;
  for (uint32_t i = 0; i < set.contentless_count; ++i) nids_detail::verify(set, set.contentless_rules[i], p, out);
  if (found.overflow) {
    out.pattern_overflow = true;
    for (uint32_t r = 0; r < set.rule_count; ++r)
      if (set.rules[r].contents) nids_detail::verify(set, r, p, out);
    return;
  }
  for (uint32_t i = 0; i < found.count; ++i)
    for (uint32_t k = set.fast_first[found.ids[i]]; k < set.fast_first[found.ids[i] + 1]; ++k)
      nids_detail::verify(set, set.fast_rules[k], p, out);
}

// The rules that match packet `p`, hit counters added. `out` is filled whole.
GNF_HD inline void nids_evaluate(const NidsRuleSetView& set, const NidsPacket& p, NidsMatches& out) {
  nids_detail::DistinctPatterns found;
  nids_scan(set.dfa, p.payload, p.payload_len, found);
  nids_evaluate_found(set, p, found, out);
}

}  // namespace gnf::nf
