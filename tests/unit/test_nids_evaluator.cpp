// The nids evaluator (nf/nids/evaluate.h) against a reference written from rule.h's definition
// with plain loops over every rule: on a 100 k-payload corpus (tests/oracle/nids_corpus.h) and on
// payloads with more distinct patterns than the evaluator collects, with generated rules (offset,
// depth, distance including negative, within, nocase, up to 3 contents, headers), every packet
// gets the same matched rules, pass and drop flags, and the search bound is never reached.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../oracle/nids_corpus.h"
#include "nf/nids/evaluate.h"
#include "nf/nids/rule_set.h"

using namespace gnf;
using nf::NidsContent;
using nf::NidsRule;

namespace {

std::string folded(const std::string& bytes) {
  std::string out = bytes;
  for (char& c : out) c = char(nf::nids_fold(uint8_t(c)));
  return out;
}

// Whether the contents can all be placed, by rule.h's definition: the ends each content can have
// (given the ends the previous one can have), content by content.
bool reference_contents(const std::vector<NidsContent>& contents, const std::string& payload, const std::string& lower) {
  std::set<int64_t> ends = {0};
  for (const NidsContent& c : contents) {
    const std::string& haystack = c.nocase ? lower : payload;
    if (haystack.find(c.bytes) == std::string::npos) return false;
    const int64_t size = int64_t(c.bytes.size());
    std::set<int64_t> next;
    for (int64_t s = 0; s + size <= int64_t(payload.size()); ++s) {
      if (haystack.compare(size_t(s), size_t(size), c.bytes) != 0) continue;
      bool placed = false;
      if (!c.relative) placed = s >= c.offset && (!c.depth || s + size <= c.offset + c.depth);
      for (auto e = ends.begin(); c.relative && e != ends.end() && !placed; ++e)
        placed = s >= *e + c.distance && (!c.within || s + size <= *e + c.distance + c.within);
      if (placed) next.insert(s + size);
    }
    if (next.empty()) return false;
    ends = std::move(next);
  }
  return true;
}

bool in_set(const nf::NidsPortSet& set, uint16_t port) {
  auto holds = [&](const nf::NidsPortRange& r) { return r.lo <= port && port <= r.hi; };
  return std::any_of(set.include.begin(), set.include.end(), holds) &&
         std::none_of(set.exclude.begin(), set.exclude.end(), holds);
}

bool in_set(const nf::NidsAddressSet& set, const nf::IpAddress& a) {
  auto holds = [&](const nf::IpPrefix& p) { return p.address.family == a.family && p.contains(a); };
  return std::any_of(set.include.begin(), set.include.end(), holds) &&
         std::none_of(set.exclude.begin(), set.exclude.end(), holds);
}

struct Packet {
  nf::IpAddress src, dst;
  uint8_t proto;
  uint16_t sport, dport;
};

bool reference_header(const NidsRule& r, const Packet& p) {
  if ((r.proto == nf::NidsProto::Tcp && p.proto != 6) || (r.proto == nf::NidsProto::Udp && p.proto != 17)) return false;
  const bool forward = in_set(r.src, p.src) && in_set(r.dst, p.dst) && in_set(r.sport, p.sport) && in_set(r.dport, p.dport);
  return forward ||
         (r.bidirectional && in_set(r.src, p.dst) && in_set(r.dst, p.src) && in_set(r.sport, p.dport) && in_set(r.dport, p.sport));
}

std::vector<NidsRule> generated_rules(const std::vector<nf::NidsPattern>& patterns, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const char* const addresses[] = {"10.0.0.0/8", "10.1.0.0/16", "2001:db8::/32", "192.0.2.7"};
  std::vector<NidsRule> rules;
  for (uint32_t r = 0; r < count; ++r) {
    NidsRule rule;
    rule.sid = r + 1;
    rule.action = r % 17 == 3 ? nf::NidsAction::Pass : r % 11 == 5 ? nf::NidsAction::Drop : nf::NidsAction::Alert;
    rule.proto = nf::NidsProto(rng() % 3);
    rule.bidirectional = rng() % 8 == 0;
    for (nf::NidsAddressSet* set : {&rule.src, &rule.dst}) {
      set->include = {*nf::parse_ip_prefix(rng() % 2 ? "0.0.0.0/0" : addresses[rng() % 4]), *nf::parse_ip_prefix("::/0")};
      if (rng() % 4 == 0) set->exclude = {*nf::parse_ip_prefix(addresses[rng() % 4])};
    }
    rule.sport.include = {{0, 65535}};
    rule.dport.include = {rng() % 3 ? nf::NidsPortRange{0, 65535} : nf::NidsPortRange{80, 443}};
    if (rng() % 5 == 0) rule.dport.exclude = {{100, 200}};
    // A few rules without contents, for the packets to port 150 only: the rest must match by content.
    if (r % 25 == 0) rule.dport.include = {{150, 150}};
    for (int k = r % 25 == 0 ? 0 : int(1 + rng() % 3); k > 0; --k) {
      const nf::NidsPattern& p = patterns[rng() % patterns.size()];
      NidsContent c;
      c.bytes = p.bytes;
      c.nocase = p.nocase;
      const int32_t size = int32_t(c.bytes.size());
      if (!rule.contents.empty() && rng() % 2) {
        c.relative = true;
        c.distance = int32_t(rng() % 14) - 3;
        if (rng() % 2) c.within = size + int32_t(rng() % 20);
      } else if (rng() % 2) {
        c.offset = int32_t(rng() % 20);
        if (rng() % 2) c.depth = size + int32_t(rng() % 30);
      }
      rule.contents.push_back(std::move(c));
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace

TEST(NidsEvaluator, MatchesTheReferenceOnEveryPayloadOfTheCorpus) {
  const std::vector<nf::NidsPattern> patterns = test::nids_patterns(300, 5);
  std::vector<std::string> payloads = test::nids_payloads(patterns, 100'000, 6);
  std::mt19937_64 rng(8);
  for (int i = 0; i < 200; ++i) {  // more distinct patterns than the evaluator collects: every rule verified
    std::string many;
    for (int k = 0; k < 100; ++k) many += test::occurrence(patterns[rng() % patterns.size()], rng);
    payloads.push_back(many);
  }
  const std::vector<NidsRule> rules = generated_rules(patterns, 150, 7);
  nf::NidsCompiledRules compiled(rules, size_t(256) << 20, 1);
  const nf::NidsRuleSetView set = compiled.host_view();
  const char* const hosts[] = {"10.1.2.3", "10.2.0.1", "192.0.2.7", "198.18.0.1", "2001:db8::5", "2001:db9::1"};
  size_t matched_packets = 0, matches = 0, overflowed = 0;
  for (size_t i = 0; i < payloads.size(); ++i) {
    const std::string& payload = payloads[i];
    const bool v6 = rng() % 3 == 0;
    Packet p{*nf::parse_ip_address(hosts[(v6 ? 4 : 0) + rng() % (v6 ? 2 : 4)]),
             *nf::parse_ip_address(hosts[(v6 ? 4 : 0) + rng() % (v6 ? 2 : 4)]), uint8_t(rng() % 2 ? 6 : 17),
             uint16_t(rng() % 2 ? 40000 : 80), uint16_t(rng() % 3 ? 443 : 150)};
    nf::NidsPacket packet{p.src.family, p.proto, true, p.sport, p.dport, {}, {},
                          reinterpret_cast<const uint8_t*>(payload.data()), uint32_t(payload.size())};
    std::copy(std::begin(p.src.bytes), std::end(p.src.bytes), packet.src);
    std::copy(std::begin(p.dst.bytes), std::end(p.dst.bytes), packet.dst);

    std::vector<uint32_t> expected;
    bool pass = false, drop = false;
    const std::string lower = folded(payload);
    for (uint32_t r = 0; r < rules.size(); ++r)
      if (reference_header(rules[r], p) && reference_contents(rules[r].contents, payload, lower)) {
        expected.push_back(r);
        pass |= rules[r].action == nf::NidsAction::Pass;
        drop |= rules[r].action == nf::NidsAction::Drop;
      }
    nf::NidsMatches got;
    nf::nids_evaluate(set, packet, got);
    ASSERT_FALSE(got.verify_limit) << "payload " << i;
    const size_t kept = std::min<size_t>(expected.size(), nf::kNidsMatchesPerPacket);
    ASSERT_EQ(std::vector<uint32_t>(got.rules, got.rules + got.count),
              std::vector<uint32_t>(expected.begin(), expected.begin() + kept))
        << "payload " << i << " (" << payload.size() << " bytes)";
    ASSERT_EQ(got.over_limit, expected.size() - kept) << "payload " << i;
    ASSERT_EQ(got.any_pass, pass) << "payload " << i;
    ASSERT_EQ(got.any_drop, drop) << "payload " << i;
    matched_packets += !expected.empty();
    overflowed += got.pattern_overflow;
    matches += expected.size();
  }
  // The corpus is worth something only if rules match, and not all of them everywhere.
  EXPECT_GT(matched_packets, payloads.size() / 20);
  EXPECT_LT(matched_packets, payloads.size());
  EXPECT_GT(overflowed, 0u);
  std::printf("%zu of %zu payloads matched, %zu matches\n", matched_packets, payloads.size(), matches);
}

// What a GPU gets (NidsCompiledRules::device_image, here in host memory): every array inside the
// one buffer, the hit counters zero, and the same matches and hits as the host's set.
TEST(NidsEvaluator, TheSetsGpuImageHoldsEverythingAndMatchesAsTheHostSet) {
  const std::vector<nf::NidsPattern> patterns = test::nids_patterns(200, 11);
  const std::vector<std::string> payloads = test::nids_payloads(patterns, 20'000, 12);
  nf::NidsCompiledRules compiled(generated_rules(patterns, 120, 13), size_t(256) << 20, 4);
  std::vector<uint64_t> image = compiled.device_image();
  auto* base = reinterpret_cast<uint8_t*>(image.data());
  const nf::NidsRuleSetView host = compiled.host_view(), copy = compiled.view_at(base);
  const void* arrays[] = {copy.dfa.byte_class,    copy.dfa.next,       copy.dfa.match_first,     copy.dfa.matches,
                          copy.dfa.pattern_at,    copy.dfa.nocase,     copy.dfa.pattern_bytes,   copy.rules,
                          copy.contents,          copy.prefixes,       copy.ports,               copy.fast_first,
                          copy.fast_rules,        copy.contentless_rules, copy.hits};
  for (const void* a : arrays) {
    EXPECT_GE(static_cast<const uint8_t*>(a), base);
    EXPECT_LT(static_cast<const uint8_t*>(a), base + image.size() * sizeof(uint64_t));
  }
  EXPECT_EQ(copy.generation, 4u);
  EXPECT_EQ(copy.rule_count, host.rule_count);
  for (uint32_t r = 0; r < copy.rule_count; ++r) ASSERT_EQ(copy.hits[r], 0u);

  const nf::IpAddress src = *nf::parse_ip_address("10.1.2.3"), dst = *nf::parse_ip_address("10.2.0.1");
  for (size_t i = 0; i < payloads.size(); ++i) {
    nf::NidsPacket packet{src.family, 6, true, 40000, uint16_t(i % 3 ? 443 : 150), {}, {},
                          reinterpret_cast<const uint8_t*>(payloads[i].data()), uint32_t(payloads[i].size())};
    std::copy(std::begin(src.bytes), std::end(src.bytes), packet.src);
    std::copy(std::begin(dst.bytes), std::end(dst.bytes), packet.dst);
    nf::NidsMatches on_host, on_copy;
    nf::nids_evaluate(host, packet, on_host);
    nf::nids_evaluate(copy, packet, on_copy);
    ASSERT_EQ(std::vector<uint32_t>(on_copy.rules, on_copy.rules + on_copy.count),
              std::vector<uint32_t>(on_host.rules, on_host.rules + on_host.count))
        << "payload " << i;
    ASSERT_EQ(on_copy.any_drop, on_host.any_drop) << "payload " << i;
    ASSERT_EQ(on_copy.any_pass, on_host.any_pass) << "payload " << i;
  }
  uint64_t hits = 0;
  for (uint32_t r = 0; r < copy.rule_count; ++r) {
    ASSERT_EQ(copy.hits[r], host.hits[r]) << "rule " << r;
    hits += copy.hits[r];
  }
  EXPECT_GT(hits, payloads.size() / 20);
}
