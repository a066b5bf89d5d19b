// The nids rule parser (nf/nids/rule_parser.h): Snort's header and option syntax, variables, and
// every problem reported as file:line: field: problem, the rule skipped or the load refused.
#include <gtest/gtest.h>

#include <string>

#include "nf/nids/rule_parser.h"
#include "util/error.h"

using namespace gnf;
using nf::NidsRule;
using nf::UnsupportedRules;

namespace {

const nf::NidsVars kVars = {{"HOME_NET", "[10.0.0.0/8,192.168.0.0/16]"},
                            {"EXTERNAL_NET", "!$HOME_NET"},
                            {"HTTP_PORTS", "[80,8080:8090]"}};

NidsRule one_rule(const std::string& text) {
  const nf::NidsRuleFile file = nf::parse_nids_rules(text, "t.rules", kVars, UnsupportedRules::Refuse);
  EXPECT_EQ(file.rules.size(), 1u);
  return file.rules.at(0);
}

std::string refusal(const std::string& text) {
  try {
    nf::parse_nids_rules(text, "t.rules", kVars, UnsupportedRules::Refuse);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(NidsRules, HeaderWithVariablesListsRangesAndNegation) {
  const NidsRule r = one_rule(
      "alert tcp $EXTERNAL_NET any -> [$HOME_NET,!10.1.0.0/16] $HTTP_PORTS (msg:\"m\"; sid:7; rev:3;)");
  EXPECT_EQ(r.action, nf::NidsAction::Alert);
  EXPECT_EQ(r.proto, nf::NidsProto::Tcp);
  ASSERT_EQ(r.src.exclude.size(), 2u);  // !$HOME_NET: every address but the home networks
  EXPECT_EQ(r.src.exclude[1].str(), "192.168.0.0/16");
  EXPECT_EQ(r.src.include.size(), 2u);  // any, both families
  ASSERT_EQ(r.dst.include.size(), 2u);
  ASSERT_EQ(r.dst.exclude.size(), 1u);
  EXPECT_EQ(r.dst.exclude[0].str(), "10.1.0.0/16");
  ASSERT_EQ(r.dport.include.size(), 2u);
  EXPECT_EQ(r.dport.include[1].lo, 8080);
  EXPECT_EQ(r.dport.include[1].hi, 8090);
  EXPECT_EQ(r.sid, 7u);
  EXPECT_EQ(r.rev, 3u);
  EXPECT_EQ(r.msg, "m");
}

TEST(NidsRules, OpenPortRangesAndBidirectional) {
  const NidsRule r = one_rule("drop udp any 1024: <> any :1023 (sid:1;)");
  EXPECT_TRUE(r.bidirectional);
  EXPECT_EQ(r.sport.include[0].lo, 1024);
  EXPECT_EQ(r.sport.include[0].hi, 65535);
  EXPECT_EQ(r.dport.include[0].lo, 0);
  EXPECT_EQ(r.dport.include[0].hi, 1023);
}

TEST(NidsRules, ContentsWithHexEscapesAndModifiers) {
  const NidsRule r = one_rule(
      "alert tcp any any -> any 80 (msg:\"a \\\"q\\\" \\; b\"; content:\"GET|20 2f|\"; nocase; offset:0; depth:16; "
      "content:\"a\\;b|00|\"; distance:-2; within:40; classtype:web-application-attack; priority:2; sid:9;)");
  EXPECT_EQ(r.msg, "a \"q\" ; b");
  ASSERT_EQ(r.contents.size(), 2u);
  EXPECT_EQ(r.contents[0].bytes, "GET /");
  EXPECT_TRUE(r.contents[0].nocase);
  EXPECT_FALSE(r.contents[0].relative);
  EXPECT_EQ(r.contents[0].depth, 16);
  EXPECT_EQ(r.contents[1].bytes, std::string("a;b\0", 4));
  EXPECT_TRUE(r.contents[1].relative);
  EXPECT_EQ(r.contents[1].distance, -2);
  EXPECT_EQ(r.contents[1].within, 40);
  EXPECT_EQ(r.classtype, "web-application-attack");
  EXPECT_EQ(r.priority, 2u);
}

TEST(NidsRules, ContinuedLinesCommentsAndVarsFile) {
  nf::NidsVars vars;
  nf::parse_nids_vars("# home\nipvar HOME_NET [10.0.0.0/8]\nportvar WEB 80\nvar EXTERNAL_NET any\n", "v.conf", vars);
  EXPECT_EQ(vars.at("WEB"), "80");
  const nf::NidsRuleFile file = nf::parse_nids_rules(
      "# a comment\n\nalert tcp $HOME_NET any -> any $WEB \\\n  (content:\"#x\"; sid:1;)\nalert ip any any -> any any (sid:2;)\n",
      "t.rules", vars, UnsupportedRules::Refuse);
  ASSERT_EQ(file.rules.size(), 2u);
  EXPECT_EQ(file.rules[0].line, 3u);
  EXPECT_EQ(file.rules[0].contents[0].bytes, "#x");
  EXPECT_EQ(file.rules[1].line, 5u);
  EXPECT_THROW(nf::parse_nids_vars("HOME_NET 1.2.3.4\n", "v.conf", vars), UserError);
}

TEST(NidsRules, UnsupportedOptionsAreSkippedAndListedOrRefused) {
  const std::string text =
      "alert tcp any any -> any any (content:\"a\"; pcre:\"/a+/\"; sid:1;)\n"
      "alert tcp any any -> any any (content:\"b\"; sid:2;)\n"
      "alert tcp any any -> any any (content:!\"c\"; sid:3;)\n"
      "log tcp any any -> any any (sid:4;)\n";
  const nf::NidsRuleFile file = nf::parse_nids_rules(text, "t.rules", kVars, UnsupportedRules::Skip);
  ASSERT_EQ(file.rules.size(), 1u);
  EXPECT_EQ(file.rules[0].sid, 2u);
  ASSERT_EQ(file.skipped.size(), 3u);
  EXPECT_EQ(file.skipped[0], "t.rules:1: pcre: not supported");
  EXPECT_EQ(file.skipped[1], "t.rules:3: content: negated contents (!\"...\") are not supported");
  EXPECT_EQ(file.skipped[2], "t.rules:4: header: action 'log' is not supported (alert, drop, pass)");
  EXPECT_EQ(refusal(text), "t.rules:1: pcre: not supported");
}

TEST(NidsRules, ProblemsNameLineAndField) {
  EXPECT_EQ(refusal("alert tcp any any -> any any (content:\"abc\"; depth:2; sid:1;)"),
            "t.rules:1: depth: depth 2 is shorter than the content (3 bytes)");
  EXPECT_EQ(refusal("alert tcp any any -> any any (content:\"a\"; offset:1; distance:0; sid:1;)"),
            "t.rules:1: distance: offset/depth and distance/within on one content");
  EXPECT_EQ(refusal("alert tcp any any -> any any (nocase; sid:1;)"), "t.rules:1: nocase: a content modifier before any content");
  EXPECT_EQ(refusal("alert tcp any any -> any any (content:\"a\";)"), "t.rules:1: sid: missing: every rule needs a sid");
  EXPECT_EQ(refusal("alert tcp any any -> any any (sid:1;)\nalert tcp any any -> any any (sid:1;)"),
            "t.rules:2: sid: 1 is used by an earlier rule");
  EXPECT_EQ(refusal("alert tcp $NOPE any -> any any (sid:1;)"),
            "t.rules:1: header: $NOPE is not defined (a vars file or the config defines it)");
  EXPECT_EQ(refusal("alert tcp ![1.2.3.4,!5.6.7.8] any -> any any (sid:1;)"),
            "t.rules:1: header: '[1.2.3.4,!5.6.7.8]': a nested or negated list that holds negations is not supported");
  EXPECT_EQ(refusal("alert tcp any 90:80 -> any any (sid:1;)"), "t.rules:1: header: the port range '90:80' ends below its start");
  EXPECT_EQ(refusal("alert tcp any any -> any any (content:\"|4|\"; sid:1;)"),
            "t.rules:1: content: '|4|' is not |hex| bytes like |0d 0a|");
  EXPECT_EQ(refusal("alert tcp any any -> any any (sid:1)"), "t.rules:1: rule: the last option has no ';'");
  EXPECT_EQ(refusal("alert tcp any any any (sid:1;)"),
            "t.rules:1: rule: the header has 5 words, not 7: a rule is ACTION PROTO SRC SPORT -> DST DPORT (OPTION; ...)");
  nf::NidsVars loop = {{"A", "$B"}, {"B", "[$A]"}};
  EXPECT_THROW(nf::parse_nids_rules("alert ip $A any -> any any (sid:1;)", "t.rules", loop, UnsupportedRules::Refuse),
               UserError);
}
