// Oracle: gnf's ACL classifier (nf/acl/classifier.h) against DPDK's rte_acl, on seeded ClassBench-
// shaped rule sets (acl_rules.h): 10 k IPv4 rules and 4 k IPv6 rules, each family in one rte_acl
// context laid out as DPDK's l3fwd-acl lays its fields out, priority = rule order (first match wins).
// Every rule's edges (range bounds and one past them, every protocol bit flipped) and the random
// tuples (half near a rule, half uniform) must get the same decision from both: the same rule, or no
// rule from either.
//
// Usage: acl_vs_rte_acl [random_tuples]   (default 10 M, a fifth of them IPv6)
// Exit: 0 all agree, 1 a mismatch, 77 (CTest's SKIP_RETURN_CODE) DPDK's EAL could not start here.
#include <arpa/inet.h>
#include <rte_acl.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl_rules.h"
#include "eal.h"
#include "nf/acl/classifier.h"

using namespace gnf;
using gnf::oracle::AclRuleGenerator;

namespace {

constexpr uint32_t kRules4 = 10'000, kRules6 = 4'000;

// rte_acl reads its input in network order; the first field is one byte, the rest in 4-byte groups.
struct Input4 {
  uint8_t proto, pad[3];
  uint32_t src, dst;
  uint16_t sport, dport;
};
struct Input6 {
  uint8_t proto, pad[3];
  uint32_t src[4], dst[4];
  uint16_t sport, dport;
};

RTE_ACL_RULE_DEF(Rule4, 5);
RTE_ACL_RULE_DEF(Rule6, 11);

rte_acl_field_def field(uint8_t type, uint8_t size, uint8_t index, uint8_t input, uint32_t offset) {
  return rte_acl_field_def{type, size, index, input, offset};
}

std::vector<rte_acl_field_def> fields4() {
  return {field(RTE_ACL_FIELD_TYPE_BITMASK, 1, 0, 0, offsetof(Input4, proto)),
          field(RTE_ACL_FIELD_TYPE_MASK, 4, 1, 1, offsetof(Input4, src)),
          field(RTE_ACL_FIELD_TYPE_MASK, 4, 2, 2, offsetof(Input4, dst)),
          field(RTE_ACL_FIELD_TYPE_RANGE, 2, 3, 3, offsetof(Input4, sport)),
          field(RTE_ACL_FIELD_TYPE_RANGE, 2, 4, 3, offsetof(Input4, dport))};
}

std::vector<rte_acl_field_def> fields6() {
  std::vector<rte_acl_field_def> f{field(RTE_ACL_FIELD_TYPE_BITMASK, 1, 0, 0, offsetof(Input6, proto))};
  for (uint8_t i = 0; i < 4; ++i)
    f.push_back(field(RTE_ACL_FIELD_TYPE_MASK, 4, uint8_t(1 + i), uint8_t(1 + i), offsetof(Input6, src) + 4 * i));
  for (uint8_t i = 0; i < 4; ++i)
    f.push_back(field(RTE_ACL_FIELD_TYPE_MASK, 4, uint8_t(5 + i), uint8_t(5 + i), offsetof(Input6, dst) + 4 * i));
  f.push_back(field(RTE_ACL_FIELD_TYPE_RANGE, 2, 9, 9, offsetof(Input6, sport)));
  f.push_back(field(RTE_ACL_FIELD_TYPE_RANGE, 2, 10, 9, offsetof(Input6, dport)));
  return f;
}

void set_common(rte_acl_rule_data& data, rte_acl_field* f, size_t ports_at, const nf::AclMatch& m, uint32_t index) {
  data.category_mask = 1;
  data.priority = int32_t(RTE_ACL_MAX_PRIORITY - index);
  data.userdata = index + 1;  // 0 is rte_acl's "no match"
  f[0].value.u8 = m.proto;
  f[0].mask_range.u8 = m.proto_mask;
  f[ports_at].value.u16 = m.sport_lo;
  f[ports_at].mask_range.u16 = m.sport_hi;
  f[ports_at + 1].value.u16 = m.dport_lo;
  f[ports_at + 1].mask_range.u16 = m.dport_hi;
}

Rule4 rte_rule(const nf::AclMatch& m, uint32_t index, Rule4) {
  Rule4 r{};
  set_common(r.data, r.field, 3, m, index);
  r.field[1].value.u32 = m.src.address.ipv4();
  r.field[1].mask_range.u32 = m.src.length;
  r.field[2].value.u32 = m.dst.address.ipv4();
  r.field[2].mask_range.u32 = m.dst.length;
  return r;
}

Rule6 rte_rule(const nf::AclMatch& m, uint32_t index, Rule6) {
  Rule6 r{};
  set_common(r.data, r.field, 9, m, index);
  for (const auto& [prefix, first] : {std::pair{&m.src, 1}, std::pair{&m.dst, 5}}) {
    for (int i = 0; i < 4; ++i) {
      const uint8_t* b = prefix->address.bytes + 4 * i;
      r.field[first + i].value.u32 = uint32_t(b[0]) << 24 | b[1] << 16 | b[2] << 8 | b[3];
      const int bits = int(prefix->length) - 32 * i;
      r.field[first + i].mask_range.u32 = bits <= 0 ? 0 : bits >= 32 ? 32 : uint32_t(bits);
    }
  }
  return r;
}

// rte_acl contexts that hold rules[first, first + count), rte_acl's rule i being our rule i. rte_acl
// refuses a set that needs more than 8 tries ("Exceeded max number of tries"), as arbitrary port
// ranges and protocol masks over 10 k rules do: such a set is split in halves until every part
// builds. A tuple's answer is then the lowest rule any part matches, which is what one context
// holding them all would answer.
template <typename Rule>
bool build_rte_acl(const std::vector<nf::AclMatch>& rules, uint32_t first, uint32_t count,
                   const std::vector<rte_acl_field_def>& defs, std::vector<rte_acl_ctx*>& out) {
  const std::string name = "acl_oracle" + std::to_string(defs.size()) + "_" + std::to_string(first);
  rte_acl_param param{name.c_str(), SOCKET_ID_ANY, uint32_t(RTE_ACL_RULE_SZ(defs.size())), count};
  rte_acl_ctx* ctx = rte_acl_create(&param);
  if (!ctx) return false;
  std::vector<Rule> rte_rules;
  for (uint32_t i = first; i < first + count; ++i) rte_rules.push_back(rte_rule(rules[i], i, Rule{}));
  rte_acl_config config{};
  config.num_categories = 1;
  config.num_fields = uint32_t(defs.size());
  std::copy(defs.begin(), defs.end(), config.defs);
  if (rte_acl_add_rules(ctx, reinterpret_cast<const rte_acl_rule*>(rte_rules.data()), count) == 0 &&
      rte_acl_build(ctx, &config) == 0) {
    out.push_back(ctx);
    return true;
  }
  rte_acl_free(ctx);
  if (count < 2) return false;
  return build_rte_acl<Rule>(rules, first, count / 2, defs, out) &&
         build_rte_acl<Rule>(rules, first + count / 2, count - count / 2, defs, out);
}

Input4 input(const nf::AclKey4& k) {
  return Input4{k.proto, {}, htonl(k.src), htonl(k.dst), htons(k.sport), htons(k.dport)};
}
Input6 input(const nf::AclKey6& k) {
  Input6 in{k.proto, {}, {}, {}, htons(k.sport), htons(k.dport)};
  for (int i = 0; i < 2; ++i) {
    in.src[i] = htonl(uint32_t(k.src.hi >> (32 - 32 * i)));
    in.src[2 + i] = htonl(uint32_t(k.src.lo >> (32 - 32 * i)));
    in.dst[i] = htonl(uint32_t(k.dst.hi >> (32 - 32 * i)));
    in.dst[2 + i] = htonl(uint32_t(k.dst.lo >> (32 - 32 * i)));
  }
  return in;
}

struct Tally {
  uint64_t compared = 0, matched = 0, mismatches = 0;
  double ours_s = 0, theirs_s = 0;
};

// Both classifiers on `keys`, in bursts of 64 (rte_acl's way); each timed on its own. rte_acl's rule
// i is our rule first_rule + i.
template <typename Key>
void compare(const std::vector<rte_acl_ctx*>& parts, const nf::AclView& view, const std::vector<Key>& keys,
             uint32_t first_rule, Tally& tally) {
  constexpr size_t kBurst = 64;
  std::vector<decltype(input(keys[0]))> inputs(kBurst);
  const uint8_t* data[kBurst];
  uint32_t theirs[kBurst], part[kBurst], ours[kBurst];
  for (size_t first = 0; first < keys.size(); first += kBurst) {
    const size_t n = std::min(kBurst, keys.size() - first);
    for (size_t i = 0; i < n; ++i) {
      inputs[i] = input(keys[first + i]);
      data[i] = reinterpret_cast<const uint8_t*>(&inputs[i]);
    }
    auto t0 = std::chrono::steady_clock::now();
    std::fill(theirs, theirs + n, nf::kAclNoMatch);
    for (rte_acl_ctx* ctx : parts) {
      rte_acl_classify(ctx, data, part, uint32_t(n), 1);
      for (size_t i = 0; i < n; ++i)  // userdata is the rule's number + 1; 0 is rte_acl's "no match"
        if (part[i] != 0) theirs[i] = std::min(theirs[i], part[i] - 1);
    }
    auto t1 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < n; ++i) ours[i] = nf::acl_classify(view, keys[first + i]);
    auto t2 = std::chrono::steady_clock::now();
    tally.theirs_s += std::chrono::duration<double>(t1 - t0).count();
    tally.ours_s += std::chrono::duration<double>(t2 - t1).count();
    for (size_t i = 0; i < n; ++i) {
      const uint32_t want = theirs[i] == nf::kAclNoMatch ? nf::kAclNoMatch : first_rule + theirs[i];
      ++tally.compared;
      tally.matched += want != nf::kAclNoMatch;
      if (ours[i] != want && ++tally.mismatches <= 10)
        printf("MISMATCH tuple %zu (IPv%d): rte_acl rule %d, ours %d\n", first + i, sizeof(Key) == sizeof(nf::AclKey4) ? 4 : 6,
               int(want), int(ours[i]));
    }
  }
}

template <typename Key>
std::vector<Key> tuples(AclRuleGenerator& gen, const std::vector<nf::AclMatch>& rules, uint64_t random) {
  std::vector<Key> keys;
  for (const nf::AclMatch& m : rules) gen.edges(m, keys);
  for (uint64_t i = 0; i < random; ++i) {
    if (i % 2) {
      keys.push_back(gen.random_tuple<Key>());
    } else {
      // Inside a rule in most fields, so that rules compete (a later one is often shadowed).
      keys.push_back(gen.tuple_near<Key>(rules[gen.pick(uint32_t(rules.size()))], 31 & ~(1u << gen.pick(8))));
    }
  }
  return keys;
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t random = argc > 1 ? std::stoull(argv[1]) : 10'000'000;
  if (!gnf::oracle::start_eal("acl_vs_rte_acl", "2048")) return 77;
  const auto start = std::chrono::steady_clock::now();

  AclRuleGenerator gen(2005);
  std::vector<nf::AclMatch> rules4, rules6;
  for (uint32_t i = 0; i < kRules4; ++i) rules4.push_back(gen.rule(4));
  for (uint32_t i = 0; i < kRules6; ++i) rules6.push_back(gen.rule(6));

  auto t = std::chrono::steady_clock::now();
  std::vector<rte_acl_ctx*> parts4, parts6;
  if (!build_rte_acl<Rule4>(rules4, 0, kRules4, fields4(), parts4) ||
      !build_rte_acl<Rule6>(rules6, 0, kRules6, fields6(), parts6)) {
    printf("acl_vs_rte_acl: rte_acl could not build the rules: %s\n", rte_strerror(rte_errno));
    return 1;
  }
  const double theirs_build = since(t);
  // One classifier holds both families: the IPv6 rules' indices follow the IPv4 rules'.
  std::vector<nf::AclMatch> all = rules4;
  all.insert(all.end(), rules6.begin(), rules6.end());
  t = std::chrono::steady_clock::now();
  nf::AclClassifier classifier(all);
  const double ours_build = since(t);
  const nf::AclView view = classifier.view();

  const auto keys4 = tuples<nf::AclKey4>(gen, rules4, random - random / 5);
  const auto keys6 = tuples<nf::AclKey6>(gen, rules6, random / 5);
  Tally v4, v6;
  compare(parts4, view, keys4, 0, v4);
  compare(parts6, view, keys6, kRules4, v6);

  for (const auto& [family, tally] : {std::pair{4, &v4}, std::pair{6, &v6}}) {
    printf("acl_vs_rte_acl: IPv%d: %llu tuples compared (%llu matched a rule), %llu mismatches; "
           "lookups: ours %.0f ns, rte_acl %.0f ns (one core, bursts of 64, over all its contexts)\n",
           family, (unsigned long long)tally->compared, (unsigned long long)tally->matched,
           (unsigned long long)tally->mismatches, tally->ours_s * 1e9 / double(tally->compared),
           tally->theirs_s * 1e9 / double(tally->compared));
  }
  printf("acl_vs_rte_acl: %u IPv4 + %u IPv6 rules; build: ours %.2f s (%.1f MiB, %u rows), rte_acl %.2f s "
         "(%zu + %zu contexts); %.1f s in all\n",
         kRules4, kRules6, ours_build, double(classifier.arena_bytes()) / (1 << 20), classifier.row_count(),
         theirs_build, parts4.size(), parts6.size(), since(start));
  for (rte_acl_ctx* ctx : parts4) rte_acl_free(ctx);
  for (rte_acl_ctx* ctx : parts6) rte_acl_free(ctx);
  rte_eal_cleanup();
  return v4.mismatches + v6.mismatches == 0 && v4.matched > 0 && v6.matched > 0 ? 0 : 1;
}
