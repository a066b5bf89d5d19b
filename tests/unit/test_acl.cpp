// The ACL rule file (nf/acl/rule_file.h) and classifier (nf/acl/classifier.h): lines as DPDK's
// l3fwd-acl writes them, every error naming file:line: field, and first-match decisions at the
// edges of ranges, masks and prefixes, checked against the rules' definition (acl_matches) on
// generated sets. tests/oracle/acl_vs_rte_acl checks the same against DPDK's rte_acl.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <string>

#include "../oracle/acl_rules.h"
#include "nf/acl/classifier.h"
#include "nf/acl/rule_file.h"
#include "util/error.h"

using namespace gnf;
using nf::AclAction;
using nf::AclKey4;
using nf::AclKey6;
using nf::kAclNoMatch;

namespace {

std::string parse_error(const std::string& text) {
  try {
    nf::parse_acl_rules(text, "rules.acl");
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

AclKey4 key4(const char* src, const char* dst, uint16_t sport, uint16_t dport, uint8_t proto) {
  return AclKey4{nf::parse_ip_address(src)->ipv4(), nf::parse_ip_address(dst)->ipv4(), sport, dport, proto};
}

nf::AclU128 u128(const char* text) {
  const nf::IpAddress a = *nf::parse_ip_address(text);
  nf::AclU128 n{0, 0};
  for (int i = 0; i < 8; ++i) {
    n.hi = n.hi << 8 | a.bytes[i];
    n.lo = n.lo << 8 | a.bytes[8 + i];
  }
  return n;
}

struct Classified {
  std::vector<nf::AclRule> rules;
  std::unique_ptr<nf::AclClassifier> classifier;
  explicit Classified(const std::string& text)
      : rules(nf::parse_acl_rules(text, "test.acl")),
        classifier(std::make_unique<nf::AclClassifier>(nf::acl_matches_of(rules))) {}
  template <typename Key>
  uint32_t operator()(const Key& key) const {
    return nf::acl_classify(classifier->view(), key);
  }
};

}  // namespace

TEST(AclRuleFile, ReadsDpdkLinesAndActionWords) {
  const auto rules = nf::parse_acl_rules(
      "# l3fwd-acl's own lines\n"
      "@192.168.0.0/16 10.1.0.0/24 0 : 65535 80 : 80 0x06/0xff\n"
      "\n"
      "R0.0.0.0/0 10.2.0.0/16 0 : 65535 0 : 65535 0/0 3   # a route rule\n"
      "@2001:db8::/32 ::/0 1024:65535 53:53 17/0xFF count\r\n"
      "@10.0.0.0/8 0.0.0.0/0 0:65535 0:65535 0/0 permit\n",
      "rules.acl");
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[0].line, 2u);
  EXPECT_EQ(rules[0].action, AclAction::Deny);  // l3fwd-acl drops what an @ rule matches
  EXPECT_EQ(rules[0].match.src.str(), "192.168.0.0/16");
  EXPECT_EQ(rules[0].match.dst.str(), "10.1.0.0/24");
  EXPECT_EQ(rules[0].match.dport_lo, 80);
  EXPECT_EQ(rules[0].match.dport_hi, 80);
  EXPECT_EQ(rules[0].match.proto, 6);
  EXPECT_EQ(rules[0].match.proto_mask, 0xff);
  EXPECT_FALSE(rules[0].route_port);
  EXPECT_EQ(rules[1].action, AclAction::Permit);
  EXPECT_EQ(rules[1].route_port, 3);
  EXPECT_EQ(rules[2].line, 5u);
  EXPECT_EQ(rules[2].match.src.address.family, 6);
  EXPECT_EQ(rules[2].match.sport_lo, 1024);
  EXPECT_EQ(rules[2].match.sport_hi, 65535);
  EXPECT_EQ(rules[2].action, AclAction::Count);
  EXPECT_EQ(rules[3].action, AclAction::Permit);
  EXPECT_EQ(rules[3].match.proto_mask, 0);
}

TEST(AclRuleFile, EveryErrorNamesFileLineAndField) {
  const std::string good = "@10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80 6/0xff\n";
  const std::pair<std::string, const char*> cases[] = {
      {"10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80 6/0xff", "rules.acl:2: rule: '10.0.0.0/8' starts with neither @"},
      {"@10.0.0.0 10.1.0.0/16 0 : 65535 80 : 80 6/0xff", "rules.acl:2: source: '10.0.0.0' is not a prefix"},
      {"@10.0.0.1/8 10.1.0.0/16 0 : 65535 80 : 80 6/0xff", "rules.acl:2: source: '10.0.0.1/8' has bits set beyond"},
      {"@10.0.0.0/33 10.1.0.0/16 0 : 65535 80 : 80 6/0xff", "rules.acl:2: source: '10.0.0.0/33' is not a prefix"},
      {"@10.0.0.0/8 10.1.0.0/16", "rules.acl:2: source ports: missing: a rule is @"},
      {"@10.0.0.0/8", "rules.acl:2: destination: missing"},
      {"@10.0.0.0/8 bogus 0 : 65535 80 : 80 6/0xff", "rules.acl:2: destination: 'bogus' is not a prefix"},
      {"@10.0.0.0/8 2001:db8::/32 0 : 65535 80 : 80 6/0xff", "rules.acl:2: destination: an IPv6 prefix in a rule whose source is IPv4"},
      {"@10.0.0.0/8 10.1.0.0/16 0 - 65535 80 : 80 6/0xff", "rules.acl:2: source ports: '0' is not followed by ' : '"},
      {"@10.0.0.0/8 10.1.0.0/16 0 : 65536 80 : 80 6/0xff", "rules.acl:2: source ports: '0' : '65536' is not a port range"},
      {"@10.0.0.0/8 10.1.0.0/16 0 : 65535 81 : 80 6/0xff", "rules.acl:2: destination ports: the range 81 : 80 ends below"},
      {"@10.0.0.0/8 10.1.0.0/16 0 : 65535 80: 6/0xff", "rules.acl:2: destination ports: '80' : '' is not a port range"},
      {"@10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80", "rules.acl:2: protocol: missing"},
      {"@10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80 tcp", "rules.acl:2: protocol: 'tcp' is not a protocol and mask"},
      {"@10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80 6/0x100", "rules.acl:2: protocol: '6/0x100' is not a protocol"},
      {"@10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80 6/0", "rules.acl:2: protocol: '6/0' has bits set outside its mask"},
      {"@10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80 6/0xff drop", "rules.acl:2: action: 'drop' is not permit, deny or count"},
      {"@10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80 6/0xff deny now", "rules.acl:2: rule: 'now' after the rule's last field"},
      {"R10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80 6/0xff", "rules.acl:2: port: missing"},
      {"R10.0.0.0/8 10.1.0.0/16 0 : 65535 80 : 80 6/0xff permit", "rules.acl:2: port: 'permit' is not a port number"},
      {std::string("@10.0.0.0/8\0x", 13), "rules.acl:2: rule: the line holds a NUL byte"},
  };
  for (const auto& [line, want] : cases) {
    const std::string got = parse_error(good + line);
    EXPECT_EQ(got.rfind(want, 0), 0u) << "line: " << line.c_str() << "\n got: " << got << "\nwant: " << want << "...";
  }
}

TEST(AclRuleFile, ReadsAFileAndNamesItInErrors) {
  const std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-rules.acl";
  std::ofstream(path) << "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0 permit\n@1.2.3.4/32\n";
  try {
    nf::read_acl_rule_file(path);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":2: destination: missing", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(nf::read_acl_rule_file(path), UserError);
}

TEST(AclClassifier, FirstMatchWinsAndRangeEdgesAreInclusive) {
  const Classified acl(
      "@10.1.0.0/16 0.0.0.0/0 0 : 65535 1000 : 2000 6/0xff deny\n"  // 0
      "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff permit\n"   // 1: shadowed by 0 inside it
      "@0.0.0.0/0 192.168.1.0/24 53 : 53 0 : 65535 17/0xff\n");     // 2
  EXPECT_EQ(acl(key4("10.1.2.3", "1.1.1.1", 5, 1000, 6)), 0u);
  EXPECT_EQ(acl(key4("10.1.2.3", "1.1.1.1", 5, 2000, 6)), 0u);
  EXPECT_EQ(acl(key4("10.1.2.3", "1.1.1.1", 5, 999, 6)), 1u);
  EXPECT_EQ(acl(key4("10.1.2.3", "1.1.1.1", 5, 2001, 6)), 1u);
  EXPECT_EQ(acl(key4("10.0.255.255", "1.1.1.1", 5, 1500, 6)), 1u);  // just below 10.1/16
  EXPECT_EQ(acl(key4("10.2.0.0", "1.1.1.1", 5, 1500, 6)), 1u);      // just above it
  EXPECT_EQ(acl(key4("11.0.0.0", "1.1.1.1", 5, 1500, 6)), kAclNoMatch);
  EXPECT_EQ(acl(key4("9.255.255.255", "1.1.1.1", 5, 1500, 6)), kAclNoMatch);
  EXPECT_EQ(acl(key4("1.1.1.1", "192.168.1.255", 53, 7, 17)), 2u);
  EXPECT_EQ(acl(key4("1.1.1.1", "192.168.2.0", 53, 7, 17)), kAclNoMatch);
  EXPECT_EQ(acl(key4("1.1.1.1", "192.168.1.0", 54, 7, 17)), kAclNoMatch);
  EXPECT_EQ(acl(key4("1.1.1.1", "192.168.1.0", 53, 7, 6)), kAclNoMatch);
  EXPECT_EQ(acl(key4("10.1.2.3", "192.168.1.1", 53, 1000, 17)), 2u);  // rules 0 and 1 want TCP
}

TEST(AclClassifier, ProtocolMasksMatchTheirBitsOnly) {
  const Classified acl(
      "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0x04/0x0c\n"  // protocols with bit 2 set, bit 3 clear
      "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0 permit\n");
  for (uint32_t p = 0; p < 256; ++p)
    EXPECT_EQ(acl(key4("1.2.3.4", "5.6.7.8", 1, 2, uint8_t(p))), (p & 0x0c) == 0x04 ? 0u : 1u) << "protocol " << p;
}

TEST(AclClassifier, Ipv6RulesAndFamiliesApart) {
  const Classified acl(
      "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0 deny\n"              // 0: IPv4 only
      "@2001:db8::/32 ::/0 0 : 65535 443 : 443 6/0xff permit\n"          // 1
      "@2001:db8:0:1::/64 2001:db8::1/128 0 : 65535 0 : 65535 0/0\n"     // 2
      "@::/0 ::/0 0 : 65535 0 : 65535 58/0xff count\n");                  // 3
  auto key6 = [](const char* s, const char* d, uint16_t dport, uint8_t proto) {
    return AclKey6{u128(s), u128(d), 1234, dport, proto};
  };
  EXPECT_EQ(acl(key6("2001:db8::5", "2001:db8::1", 443, 6)), 1u);
  EXPECT_EQ(acl(key6("2001:db8:0:1::5", "2001:db8::1", 443, 6)), 1u);
  EXPECT_EQ(acl(key6("2001:db8:0:1::5", "2001:db8::1", 80, 6)), 2u);
  EXPECT_EQ(acl(key6("2001:db8:0:1:ffff:ffff:ffff:ffff", "2001:db8::1", 80, 6)), 2u);
  EXPECT_EQ(acl(key6("2001:db8:0:2::", "2001:db8::1", 80, 6)), kAclNoMatch);
  EXPECT_EQ(acl(key6("2001:db8:0:1::5", "2001:db8::2", 80, 6)), kAclNoMatch);
  EXPECT_EQ(acl(key6("2001:db9::", "::", 443, 6)), kAclNoMatch);
  EXPECT_EQ(acl(key6("::", "::", 0, 58)), 3u);
  EXPECT_EQ(acl(key6("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::", 0, 58)), 3u);
  EXPECT_EQ(acl(key4("1.2.3.4", "5.6.7.8", 1, 443, 6)), 0u);
}

TEST(AclClassifier, NoRulesOfAFamilyMatchNothing) {
  const Classified acl("@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 0/0\n");
  EXPECT_EQ(acl(AclKey6{u128("::1"), u128("::1"), 1, 2, 6}), kAclNoMatch);
  const nf::AclClassifier empty({});
  EXPECT_EQ(nf::acl_classify(empty.view(), key4("10.0.0.1", "10.0.0.1", 1, 2, 6)), kAclNoMatch);
}

TEST(AclClassifier, RefusesMalformedRulesAndSetsOverItsMemoryLimit) {
  nf::AclMatch mixed;
  mixed.src = *nf::parse_ip_prefix("10.0.0.0/8");
  mixed.dst = *nf::parse_ip_prefix("2001:db8::/32");
  EXPECT_THROW(nf::AclClassifier({mixed}), UserError);
  nf::AclMatch masked;
  masked.src = masked.dst = *nf::parse_ip_prefix("10.0.0.0/8");
  masked.proto = 6;
  EXPECT_THROW(nf::AclClassifier({masked}), UserError);

  oracle::AclRuleGenerator gen(7);
  std::vector<nf::AclMatch> rules;
  for (int i = 0; i < 2000; ++i) rules.push_back(gen.rule(4));
  EXPECT_THROW(nf::AclClassifier(rules, size_t(1) << 20), UserError);
}

// Generated ClassBench-shaped sets, every rule's edges and random tuples: the classifier's answer is
// the first rule whose definition matches, checked rule by rule.
TEST(AclClassifier, AgreesWithTheRulesDefinitionOnGeneratedSets) {
  for (const uint8_t family : {4, 6}) {
    oracle::AclRuleGenerator gen(family);
    std::vector<nf::AclMatch> rules;
    for (int i = 0; i < 300; ++i) rules.push_back(gen.rule(family));
    const nf::AclClassifier classifier(rules);
    auto check = [&](const auto& keys) {
      uint32_t matched = 0;
      for (const auto& key : keys) {
        uint32_t want = kAclNoMatch;
        for (uint32_t r = 0; r < rules.size() && want == kAclNoMatch; ++r)
          if (nf::acl_matches(rules[r], key)) want = r;
        matched += want != kAclNoMatch;
        ASSERT_EQ(nf::acl_classify(classifier.view(), key), want) << "IPv" << int(family);
      }
      EXPECT_GT(matched, keys.size() / 4);
    };
    if (family == 4) {
      std::vector<AclKey4> keys;
      for (const auto& m : rules) gen.edges(m, keys);
      for (int i = 0; i < 20000; ++i) keys.push_back(gen.tuple_near<AclKey4>(rules[gen.pick(300)], 31 & ~(1u << gen.pick(8))));
      check(keys);
    } else {
      std::vector<AclKey6> keys;
      for (const auto& m : rules) gen.edges(m, keys);
      for (int i = 0; i < 20000; ++i) keys.push_back(gen.tuple_near<AclKey6>(rules[gen.pick(300)], 31 & ~(1u << gen.pick(8))));
      check(keys);
    }
  }
}
