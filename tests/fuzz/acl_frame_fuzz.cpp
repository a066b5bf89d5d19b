// libFuzzer target: arbitrary bytes as one frame through the acl NF (nf/acl/acl.h), whose 5-tuple
// parser (nf/acl/packet_key.h) reads Ethernet, 802.1Q, IPv4 and IPv6 with extension headers. The
// frame sits in a buffer of exactly its length, so a read past it is an ASan report. The rule set
// (below) mixes IPv4 and IPv6 rules, port ranges and protocol masks, with a default deny.
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - the NF leaves the frame's bytes and length alone;
//  - exactly one of its counters counts the frame, and it drops the frame exactly when that counter
//    is deny, default_deny or malformed;
//  - for an IP frame, the rule that decided (its hit counter moved by one) is the first rule whose
//    definition (nf::acl_matches) matches the key the parser read, and no rule decided otherwise.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_support.h"
#include "nf/acl/classifier.h"
#include "nf/chain.h"

using namespace gnf;

namespace {

constexpr char kRules[] =
    "@10.0.0.0/8 0.0.0.0/0 0 : 65535 80 : 80 6/0xff permit\n"
    "@10.1.0.0/16 192.168.0.0/16 1024 : 65535 0 : 65535 0/0 deny\n"
    "@0.0.0.0/0 0.0.0.0/0 0 : 65535 53 : 53 17/0xff count\n"
    "@0.0.0.0/0 0.0.0.0/0 0 : 0 0 : 0 0x04/0x0c count\n"
    "@2001:db8::/32 ::/0 0 : 65535 443 : 443 6/0xff permit\n"
    "@::/0 2001:db8:1::/48 0 : 65535 0 : 65535 58/0xff deny\n"
    "@::/0 ::/0 0 : 65535 0 : 0 0/0 count\n";

struct Acl {
  fuzz::ScratchFile file{".acl"};
  std::unique_ptr<nf::NfChain> chain;
  std::vector<nf::AclMatch> matches;

  Acl() {
    file.write(reinterpret_cast<const uint8_t*>(kRules), sizeof kRules - 1);
    nf::Params params("fuzz.toml", 1, "nf[0]");
    params.set("rules", nf::ParamValue{file.path(), 1});
    chain = std::make_unique<nf::NfChain>(std::vector<nf::NfSpec>{{"acl", params}}, nf::NfContext{});
    matches = nf::acl_matches_of(nf::parse_acl_rules(kRules, "fuzz.acl"));
  }

  std::vector<uint64_t> hits() const {
    std::vector<uint64_t> out;
    const nf::NfTableStats stats = *chain->tables(0)->table_stats();
    for (const nf::NfEntryStats& e : stats.entries) out.push_back(e.counters.at(0).second);
    return out;
  }
};

template <typename Key>
uint32_t first_rule(const std::vector<nf::AclMatch>& matches, const Key& key) {
  for (uint32_t r = 0; r < matches.size(); ++r)
    if (nf::acl_matches(matches[r], key)) return r;
  return nf::kAclNoMatch;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Acl acl;
  std::vector<uint8_t> frame(data, data + size);
  nf::PacketRef packet{frame.data(), uint32_t(size), 0, 0, 0, nf::Verdict::Forward, nf::HostReason::Unspecified};
  nf::PacketBatch batch{&packet, 1};
  nf::NfCounters counters[nf::kMaxChainLength] = {};
  const std::vector<uint64_t> before = acl.hits();
  nf::run_chain(acl.chain->view(), batch, counters);

  FUZZ_CHECK(size == 0 || std::memcmp(frame.data(), data, size) == 0, "the acl changed the frame's bytes");
  FUZZ_CHECK_EQ(packet.len, size, "the acl changed the frame's length");
  int counted = -1;
  for (int c = 0; c < nf::NfCounters::kMax; ++c) {
    if (counters[0].value[c] == 0) continue;
    FUZZ_CHECK(counted < 0 && counters[0].value[c] == 1, "more than one count for one frame");
    counted = c;
  }
  FUZZ_CHECK(counted >= 0, "no counter counted the frame");
  const bool dropped = counted == nf::AclNfView::kDeny || counted == nf::AclNfView::kDefaultDeny ||
                       counted == nf::AclNfView::kMalformed;
  FUZZ_CHECK_EQ(packet.verdict == nf::Verdict::Drop, dropped, "drop verdict vs the counter that counted");

  nf::AclPacketKey key;
  const nf::AclFrame kind = nf::acl_packet_key(frame.data(), uint32_t(size), key);
  uint32_t want = nf::kAclNoMatch;
  if (kind == nf::AclFrame::Ipv4) want = first_rule(acl.matches, key.v4);
  if (kind == nf::AclFrame::Ipv6) want = first_rule(acl.matches, key.v6);
  const std::vector<uint64_t> after = acl.hits();
  for (uint32_t r = 0; r < after.size(); ++r)
    FUZZ_CHECK_EQ(after[r] - before[r], r == want, "a rule's hits moved for a frame it did not decide");
  const bool by_rule = counted == nf::AclNfView::kPermit || counted == nf::AclNfView::kDeny ||
                       counted == nf::AclNfView::kCount;
  FUZZ_CHECK_EQ(by_rule, want != nf::kAclNoMatch, "a rule decided, or not, against the rules' definition");
  return 0;
}
