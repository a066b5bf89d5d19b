// The security policy database of one direction (RFC 4301 §4.4.1): ipsec-secgw's `sp` rules of
// that direction, looked up by a packet's 5-tuple with the ACL classifier (nf/acl/classifier.h),
// host and device from one source.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "nf/acl/classifier.h"
#include "nf/ipsec/esp.h"
#include "util/hd.h"

namespace gnf::nf {

enum class SpAction : uint8_t { Protect, Bypass, Discard };

// What a policy does; `sa` indexes the SA table (IpsecTables) when it protects.
struct SpdEntry {
  SpAction action;
  uint32_t sa;
};

// What a lookup reads; trivially copyable. entries[i] belongs to the classifier's rule i.
struct SpdView {
  AclView acl;
  const SpdEntry* entries;
};

// The ports of TCP, UDP and SCTP packets (the first fragment's, for IPv4); 0 for other protocols.
GNF_INLINE bool spd_has_ports(uint8_t proto) { return proto == 6 || proto == 17 || proto == 132; }

// The policy for the IP packet at `ip`; a packet no rule matches is discarded, as ipsec-secgw does.
// IPv6 extension headers are not walked: the protocol is the fixed header's next header.
GNF_INLINE SpdEntry spd_lookup(const SpdView& spd, const uint8_t* ip, const EspIp& info) {
  uint16_t sport = 0, dport = 0;
  const bool first_fragment = info.family == 6 || (wire::load_be16(ip + 6) & net::kIpv4FragOffsetMask) == 0;
  if (spd_has_ports(info.proto) && first_fragment && info.length >= info.header_bytes + 4u) {
    sport = wire::load_be16(ip + info.header_bytes);
    dport = wire::load_be16(ip + info.header_bytes + 2);
  }
  uint32_t rule;
  if (info.family == 4) {
    rule = acl_classify(spd.acl, AclKey4{wire::load_be32(ip + 12), wire::load_be32(ip + 16), sport, dport, info.proto});
  } else {
    const AclU128 src{esp_load_be64(ip + 8), esp_load_be64(ip + 16)}, dst{esp_load_be64(ip + 24), esp_load_be64(ip + 32)};
    rule = acl_classify(spd.acl, AclKey6{src, dst, sport, dport, info.proto});
  }
  return rule == kAclNoMatch ? SpdEntry{SpAction::Discard, 0} : spd.entries[rule];
}

// A policy as written: ipsec-secgw's `sp` line.
struct IpsecPolicy {
  IpsecDirection direction;
  SpAction action;
  uint32_t spi;       // with Protect
  uint32_t priority;  // the higher wins, as in ipsec-secgw (rte_acl's priorities); equal ones by file order
  AclMatch match;
  uint32_t line;
};

// The host's SPD of one direction: the classifier over that direction's policies in priority order.
class Spd {
 public:
  // `sa_of_spi(spi)` is the SA index a Protect policy's SPI names (the parser has checked it exists).
  template <typename SaOfSpi>
  Spd(const std::vector<IpsecPolicy>& policies, IpsecDirection direction, SaOfSpi sa_of_spi) {
    const std::vector<const IpsecPolicy*> order = in_priority_order(policies, direction);
    std::vector<AclMatch> matches;
    for (const IpsecPolicy* p : order) {
      matches.push_back(p->match);
      entries_.push_back(SpdEntry{p->action, p->action == SpAction::Protect ? sa_of_spi(p->spi) : 0});
    }
    classifier_ = std::make_unique<AclClassifier>(matches);
  }

  SpdView view() const { return SpdView{classifier_->view(), entries_.data()}; }
  const AclClassifier& classifier() const { return *classifier_; }
  const std::vector<SpdEntry>& entries() const { return entries_; }

 private:
  static std::vector<const IpsecPolicy*> in_priority_order(const std::vector<IpsecPolicy>& policies,
                                                           IpsecDirection direction);
  std::unique_ptr<AclClassifier> classifier_;
  std::vector<SpdEntry> entries_;
};

}  // namespace gnf::nf
