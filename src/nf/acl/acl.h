// acl: a 5-tuple firewall, as one NF element for CPU and GPU alike.
//
// Per packet: its 5-tuple (packet_key.h) through the rule set's classifier (classifier.h); the
// first rule that matches, in file order, decides: permit and count pass the packet on, deny drops
// it; every match adds one to the rule's hit counter. A packet that matches no rule gets the
// default action (deny unless configured otherwise: l3fwd-acl drops what no rule matched, and VPP's
// ACLs end with an implicit deny). Frames that are not IP pass untouched, counted as not_ip (an
// ether_filter before the acl drops those a firewall must not pass); malformed IP frames are dropped.
//
// Per-rule hit counters live with the rule set and are shared by every ring: relaxed atomic adds
// (GPU atomicAdd), read while traffic flows. The rule set is replaced whole (SIGHUP reads the rule
// file again: acl_rules.h): a burst takes the current set once and uses only it, so no packet sees
// half of one set and half of another.
//
// Parameters (config table [[nf]] with type = "acl"):
//   rules   = "file"    rule file in DPDK's l3fwd-acl format (rule_file.h), relative to the config
//                       file's folder; its 'R' lines permit (their port is for l3fwd-acl's routing)
//   default = "deny"    what a packet no rule matches gets: "deny" or "permit"
#pragma once
#include <cstdint>

#include "nf/acl/classifier.h"
#include "nf/acl/packet_key.h"
#include "nf/acl/rule_file.h"
#include "nf/packet.h"
#include "sync/ordering.h"
#include "sync/swapped.h"
#include "util/hd.h"

namespace gnf::nf {

// One rule set as packets see it, in host or GPU memory.
struct AclRuleSetView {
  AclView classifier;
  const AclAction* actions;  // per rule, in file order
  unsigned long long* hits;  // per rule
  uint32_t rules;
};

struct AclNfView {
  enum Counter { kPermit, kDeny, kCount, kDefaultPermit, kDefaultDeny, kNotIp, kMalformed, kCounterCount };
  static constexpr const char* kCounterNames[kCounterCount] = {"permit",       "deny",   "count",    "default_permit",
                                                               "default_deny", "not_ip", "malformed"};

  sync::SwappedView<AclRuleSetView> rule_set;
  AclAction default_action;

  GNF_HD void process(PacketBatch& batch, NfCounters& counters) const {
    const AclRuleSetView& rules = rule_set.load();
    for (uint32_t i = 0; i < batch.count; ++i) {
      PacketRef& p = batch.packets[i];
      if (p.verdict != Verdict::Forward) continue;
      const Counter c = decide(rules, p);
      ++counters.value[c];
      if (c == kDeny || c == kDefaultDeny || c == kMalformed) p.verdict = Verdict::Drop;
    }
  }

 private:
  GNF_HD Counter decide(const AclRuleSetView& rules, const PacketRef& p) const {
    AclPacketKey key;
    uint32_t rule = kAclNoMatch;
    switch (acl_packet_key(p.data, p.len, key)) {
      case AclFrame::NotIp: return kNotIp;
      case AclFrame::Malformed: return kMalformed;
      case AclFrame::Ipv4: rule = acl_classify(rules.classifier, key.v4); break;
      case AclFrame::Ipv6: rule = acl_classify(rules.classifier, key.v6); break;
    }
    if (rule == kAclNoMatch) return default_action == AclAction::Permit ? kDefaultPermit : kDefaultDeny;
    add_relaxed(&rules.hits[rule], 1);
    switch (rules.actions[rule]) {
      case AclAction::Permit: return kPermit;
      case AclAction::Count: return kCount;
      case AclAction::Deny: break;
    }
    return kDeny;
  }
};

}  // namespace gnf::nf
