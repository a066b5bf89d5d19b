// The IPv6 LPM table (nf/l3fwd/lpm6.h): hand-computed cases at each level's edges, then random adds
// and removes against a linear scan of the rules. Its oracle against DPDK's rte_fib6 is tests/oracle/.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../oracle/ipv6_routes.h"
#include "lpm_differential.h"
#include "nf/l3fwd/lpm6.h"
#include "util/error.h"

using namespace gnf::nf;

namespace {

using gnf::oracle::bytes_of;
using gnf::oracle::host_mask;
using gnf::oracle::U128;
using gnf::oracle::value_of;
using Bytes = gnf::oracle::Ipv6Bytes;

Bytes ip(const char* text) {
  Bytes b;
  if (inet_pton(AF_INET6, text, b.data()) != 1) ADD_FAILURE() << "bad address " << text;
  return b;
}

// The next hop for addr, or -1 for no route.
int64_t hop(const Lpm6Table& table, const Bytes& addr) {
  uint32_t next_hop = 0;
  return lpm6_lookup(table.view(), addr.data(), next_hop) ? int64_t(next_hop) : -1;
}
int64_t hop(const Lpm6Table& table, const char* addr) { return hop(table, ip(addr)); }

void add(Lpm6Table& table, const char* prefix, uint8_t depth, uint32_t next_hop) {
  table.add(ip(prefix).data(), depth, next_hop);
}
bool remove(Lpm6Table& table, const char* prefix, uint8_t depth) { return table.remove(ip(prefix).data(), depth); }

}  // namespace

TEST(Lpm6, EmptyTableMatchesNothing) {
  Lpm6Table table;
  EXPECT_EQ(hop(table, "::"), -1);
  EXPECT_EQ(hop(table, "2001:db8::1"), -1);
  EXPECT_EQ(hop(table, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), -1);
  EXPECT_EQ(table.rule_count(), 0u);
  EXPECT_EQ(table.tbl8_groups_used(), 0u);
}

TEST(Lpm6, DefaultRouteMatchesEveryAddressNotCoveredByALongerOne) {
  Lpm6Table table;
  add(table, "::", 0, 7);
  add(table, "2001:db8::", 32, 8);
  EXPECT_EQ(hop(table, "::"), 7);
  EXPECT_EQ(hop(table, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), 7);
  EXPECT_EQ(hop(table, "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff"), 7);
  EXPECT_EQ(hop(table, "2001:db8::"), 8);
  EXPECT_EQ(hop(table, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"), 8);
  EXPECT_EQ(hop(table, "2001:db9::"), 7);
  EXPECT_TRUE(remove(table, "::", 0));
  EXPECT_EQ(hop(table, "::"), -1);
  EXPECT_EQ(hop(table, "2001:db8::1"), 8);
}

TEST(Lpm6, HostRoutesMatchOnlyTheirAddress) {
  Lpm6Table table;
  add(table, "2001:db8::1", 128, 1);
  add(table, "2001:db8::ff", 128, 2);
  add(table, "2001:db8::100", 128, 3);
  EXPECT_EQ(hop(table, "2001:db8::"), -1);
  EXPECT_EQ(hop(table, "2001:db8::1"), 1);
  EXPECT_EQ(hop(table, "2001:db8::2"), -1);
  EXPECT_EQ(hop(table, "2001:db8::ff"), 2);
  EXPECT_EQ(hop(table, "2001:db8::100"), 3);
  EXPECT_EQ(hop(table, "2001:db8::101"), -1);
  EXPECT_EQ(hop(table, "2001:db8:0:0:8000::1"), -1);
  // A /128 alone in its /24 takes a group at each of the 13 levels; ::100 differs in the last-but-one
  // byte, so it adds one group for the last level.
  EXPECT_EQ(table.tbl8_groups_used(), 14u);
}

TEST(Lpm6, RoutesUpToSlash24LiveInTbl24AndLongerOnesInAGroup) {
  Lpm6Table table;
  add(table, "2001:db00::", 24, 1);
  EXPECT_EQ(table.tbl8_groups_used(), 0u);
  EXPECT_EQ(hop(table, "2001:daff:ffff:ffff:ffff:ffff:ffff:ffff"), -1);
  EXPECT_EQ(hop(table, "2001:db00::"), 1);
  EXPECT_EQ(hop(table, "2001:dbff:ffff:ffff:ffff:ffff:ffff:ffff"), 1);
  EXPECT_EQ(hop(table, "2001:dc00::"), -1);
  add(table, "2001:db80::", 25, 2);
  EXPECT_EQ(table.tbl8_groups_used(), 1u);
  EXPECT_EQ(hop(table, "2001:db7f:ffff:ffff:ffff:ffff:ffff:ffff"), 1);
  EXPECT_EQ(hop(table, "2001:db80::"), 2);
  EXPECT_EQ(hop(table, "2001:dbff:ffff:ffff:ffff:ffff:ffff:ffff"), 2);
  EXPECT_EQ(hop(table, "2001:dc00::"), -1);
}

// For every depth from 25 to 127: the route matches its first and last address and nothing just
// outside them, under a /16 that covers the rest; it takes one group per 8 bits beyond /24, and
// gives them all back when removed.
TEST(Lpm6, EveryDepthFrom25To127MatchesExactlyItsPrefixAndFreesItsGroups) {
  Lpm6Table table;
  const U128 base = value_of(ip("2001:db8:5a5a:a5a5:1234:5678:9abc:def0"));
  table.add(bytes_of(base & ~host_mask(16)).data(), 16, 1);
  for (int depth = 25; depth <= 127; ++depth) {
    SCOPED_TRACE(depth);
    const U128 first = base & ~host_mask(depth), last = first | host_mask(depth);
    table.add(bytes_of(first).data(), uint8_t(depth), 2);
    EXPECT_EQ(table.tbl8_groups_used(), uint32_t(depth - 24 + 7) / 8);
    EXPECT_EQ(hop(table, bytes_of(first)), 2);
    EXPECT_EQ(hop(table, bytes_of(last)), 2);
    EXPECT_EQ(hop(table, bytes_of(first + (last - first) / 2)), 2);
    EXPECT_EQ(hop(table, bytes_of(first - 1)), 1);
    EXPECT_EQ(hop(table, bytes_of(last + 1)), 1);
    EXPECT_TRUE(table.remove(bytes_of(first).data(), uint8_t(depth)));
    EXPECT_EQ(table.tbl8_groups_used(), 0u);
    EXPECT_EQ(hop(table, bytes_of(first)), 1);
  }
}

namespace {

// 2001:db8::/32 -> 1 holding 2001:db8:1::/48 -> 2, 2001:db8:1:2::/64 -> 3, 2001:db8:1:2::80/121 -> 4,
// 2001:db8:1:2::c8/128 -> 5.
void add_nested(Lpm6Table& table) {
  add(table, "2001:db8::", 32, 1);
  add(table, "2001:db8:1::", 48, 2);
  add(table, "2001:db8:1:2::", 64, 3);
  add(table, "2001:db8:1:2::80", 121, 4);
  add(table, "2001:db8:1:2::c8", 128, 5);
}

}  // namespace

TEST(Lpm6, NestedPrefixesResolveToTheLongest) {
  Lpm6Table table;
  add_nested(table);
  EXPECT_EQ(hop(table, "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff"), -1);
  EXPECT_EQ(hop(table, "2001:db8::"), 1);
  EXPECT_EQ(hop(table, "2001:db8:0:ffff:ffff:ffff:ffff:ffff"), 1);
  EXPECT_EQ(hop(table, "2001:db8:1::"), 2);
  EXPECT_EQ(hop(table, "2001:db8:1:1:ffff:ffff:ffff:ffff"), 2);
  EXPECT_EQ(hop(table, "2001:db8:1:2::"), 3);
  EXPECT_EQ(hop(table, "2001:db8:1:2::7f"), 3);
  EXPECT_EQ(hop(table, "2001:db8:1:2::80"), 4);
  EXPECT_EQ(hop(table, "2001:db8:1:2::c7"), 4);
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), 5);
  EXPECT_EQ(hop(table, "2001:db8:1:2::c9"), 4);
  EXPECT_EQ(hop(table, "2001:db8:1:2::ff"), 4);
  EXPECT_EQ(hop(table, "2001:db8:1:2::100"), 3);
  EXPECT_EQ(hop(table, "2001:db8:1:3::"), 2);
  EXPECT_EQ(hop(table, "2001:db8:2::"), 1);
  EXPECT_EQ(hop(table, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"), 1);
  EXPECT_EQ(hop(table, "2001:db9::"), -1);
  EXPECT_EQ(table.rule_count(), 5u);
  EXPECT_EQ(table.tbl8_groups_used(), 13u);  // one path from /24 to the last level
}

TEST(Lpm6, AddingShorterRoutesAfterLongerOnesKeepsTheLongerOnes) {
  Lpm6Table table;
  add(table, "2001:db8:1:2::c8", 128, 5);
  add(table, "2001:db8:1:2::80", 121, 4);
  add(table, "2001:db8:1:2::", 64, 3);
  add(table, "2001:db8:1::", 48, 2);
  add(table, "2001:db8::", 32, 1);
  add(table, "2000::", 3, 9);
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), 5);
  EXPECT_EQ(hop(table, "2001:db8:1:2::c9"), 4);
  EXPECT_EQ(hop(table, "2001:db8:1:2::1"), 3);
  EXPECT_EQ(hop(table, "2001:db8:1:3::1"), 2);
  EXPECT_EQ(hop(table, "2001:db8:9:3::1"), 1);
  EXPECT_EQ(hop(table, "2a00::1"), 9);
}

TEST(Lpm6, RemovingARouteFallsBackToTheNextCoveringRoute) {
  Lpm6Table table;
  add_nested(table);
  EXPECT_TRUE(remove(table, "2001:db8:1:2::80", 121));
  EXPECT_EQ(hop(table, "2001:db8:1:2::81"), 3);
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), 5);  // the /128 inside it stays
  EXPECT_EQ(table.tbl8_groups_used(), 13u);
  EXPECT_TRUE(remove(table, "2001:db8:1:2::c8", 128));
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), 3);
  EXPECT_EQ(table.tbl8_groups_used(), 5u);  // nothing longer than /64 left: groups for bits 64..127 freed
  EXPECT_TRUE(remove(table, "2001:db8:1::", 48));
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), 3);  // the /64 is longer than the removed /48
  EXPECT_EQ(hop(table, "2001:db8:1:3::"), 1);
  EXPECT_TRUE(remove(table, "2001:db8:1:2::", 64));
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), 1);
  EXPECT_EQ(table.tbl8_groups_used(), 1u);  // the /32's group
  EXPECT_TRUE(remove(table, "2001:db8::", 32));
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), -1);
  EXPECT_EQ(table.rule_count(), 0u);
  EXPECT_EQ(table.tbl8_groups_used(), 0u);
}

TEST(Lpm6, RemovingAShortRouteUnderLongOnesFallsBackInsideTheirGroups) {
  Lpm6Table table;
  add(table, "2000::", 3, 9);
  add_nested(table);
  EXPECT_TRUE(remove(table, "2001:db8::", 32));  // its entries live in groups down to the last level
  EXPECT_EQ(hop(table, "2001:db8::"), 9);
  EXPECT_EQ(hop(table, "2001:db8:1:2::ff"), 4);
  EXPECT_EQ(hop(table, "2001:db8:1:2::1:0"), 3);
  EXPECT_TRUE(remove(table, "2000::", 3));
  EXPECT_TRUE(remove(table, "2001:db8:1::", 48));
  EXPECT_TRUE(remove(table, "2001:db8:1:2::", 64));
  EXPECT_EQ(hop(table, "2001:db8:1:2::1"), -1);
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), 5);
  EXPECT_TRUE(remove(table, "2001:db8:1:2::80", 121));
  EXPECT_TRUE(remove(table, "2001:db8:1:2::c8", 128));
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), -1);
  EXPECT_EQ(table.tbl8_groups_used(), 0u);
}

TEST(Lpm6, RemovingAnAbsentRouteReturnsFalseAndChangesNothing) {
  Lpm6Table table;
  add_nested(table);
  EXPECT_FALSE(remove(table, "2001:db8:1::", 47));
  EXPECT_FALSE(remove(table, "2001:db8:1:2::c9", 128));
  EXPECT_FALSE(remove(table, "::", 0));
  EXPECT_EQ(table.rule_count(), 5u);
  EXPECT_EQ(hop(table, "2001:db8:1::"), 2);
}

TEST(Lpm6, AddingAnExistingRouteReplacesItsNextHop) {
  Lpm6Table table;
  add_nested(table);
  add(table, "2001:db8:1:2::80", 121, 40);
  add(table, "2001:db8:1::", 48, 20);
  EXPECT_EQ(table.rule_count(), 5u);
  EXPECT_EQ(table.tbl8_groups_used(), 13u);
  EXPECT_EQ(hop(table, "2001:db8:1:2::81"), 40);
  EXPECT_EQ(hop(table, "2001:db8:1:2::c8"), 5);
  EXPECT_EQ(hop(table, "2001:db8:1:9::"), 20);
  uint32_t next_hop = 0;
  EXPECT_TRUE(table.find(ip("2001:db8:1::").data(), 48, next_hop));
  EXPECT_EQ(next_hop, 20u);
}

TEST(Lpm6, BitsBeyondTheDepthAreIgnored) {
  Lpm6Table table;
  add(table, "2001:db8:ffff::1", 32, 1);
  EXPECT_EQ(hop(table, "2001:db8::"), 1);
  uint32_t next_hop = 0;
  EXPECT_TRUE(table.find(ip("2001:db8::").data(), 32, next_hop));
  EXPECT_TRUE(remove(table, "2001:db8:9::9", 32));
  EXPECT_EQ(hop(table, "2001:db8::"), -1);
}

TEST(Lpm6, RunningOutOfTbl8GroupsThrowsNamingTheLimitAndChangesNothing) {
  Lpm6Table table(3);
  add(table, "2001:db8::", 32, 1);      // 1 group: bits 24..31 of 2001:d00::/24
  add(table, "2001:db8:100::", 40, 2);  // 1 more: bits 32..39 of 2001:db8::/32
  try {
    add(table, "2001:db9:200::", 48, 3);  // 2 more: bits 32..39 of 2001:db9::/32, 40..47 of its /40
    FAIL() << "expected gnf::UserError";
  } catch (const gnf::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 2 more tbl8 groups, but 2 of all 3 are in use"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("2001:db9:200::/48"), std::string::npos) << e.what();
  }
  EXPECT_EQ(table.rule_count(), 2u);
  EXPECT_EQ(table.tbl8_groups_used(), 2u);
  EXPECT_EQ(hop(table, "2001:db9:200::1"), -1);
  uint32_t next_hop = 0;
  EXPECT_FALSE(table.find(ip("2001:db9:200::").data(), 48, next_hop));
  add(table, "2001:db8:f000::", 36, 4);  // in the /32's group for bits 32..39, there already
  add(table, "2001:db9:200::", 40, 5);   // takes the last free group
  EXPECT_EQ(table.tbl8_groups_used(), 3u);
  EXPECT_EQ(hop(table, "2001:db8:f000::1"), 4);
  EXPECT_EQ(hop(table, "2001:db9:200::1"), 5);
  EXPECT_THROW(add(table, "2001:dba::", 40, 6), gnf::UserError);
  EXPECT_EQ(hop(table, "2001:dba::1"), -1);
  EXPECT_EQ(hop(table, "2001:db8:100::1"), 2);
}

TEST(Lpm6, GroupsFreedOnRemoveAreUsedAgain) {
  Lpm6Table table(13);
  add(table, "2001:db8::1", 128, 1);
  EXPECT_EQ(table.tbl8_groups_used(), 13u);
  EXPECT_THROW(add(table, "2001:db9::1", 128, 2), gnf::UserError);
  EXPECT_TRUE(remove(table, "2001:db8::1", 128));
  EXPECT_EQ(table.tbl8_groups_used(), 0u);
  add(table, "2001:db9::1", 128, 2);
  EXPECT_EQ(table.tbl8_groups_used(), 13u);
  EXPECT_EQ(hop(table, "2001:db9::1"), 2);
  EXPECT_EQ(hop(table, "2001:db9::2"), -1);
  EXPECT_EQ(hop(table, "2001:db8::1"), -1);
}

TEST(Lpm6, DepthAbove128IsRejected) {
  Lpm6Table table;
  EXPECT_THROW(add(table, "2001:db8::", 129, 1), gnf::UserError);
  EXPECT_THROW(remove(table, "2001:db8::", 129), gnf::UserError);
  uint32_t next_hop = 0;
  EXPECT_THROW(table.find(ip("2001:db8::").data(), 129, next_hop), gnf::UserError);
  EXPECT_EQ(table.rule_count(), 0u);
}

TEST(Lpm6, NextHopAbove24BitsIsRejected) {
  Lpm6Table table;
  EXPECT_THROW(add(table, "2001:db8::", 32, kLpm6MaxNextHop + 1), gnf::UserError);
  EXPECT_EQ(hop(table, "2001:db8::"), -1);
  EXPECT_EQ(table.tbl8_groups_used(), 0u);
  add(table, "2001:db8::", 32, kLpm6MaxNextHop);
  add(table, "2001:db8::1", 128, kLpm6MaxNextHop - 1);
  EXPECT_EQ(hop(table, "2001:db8::"), kLpm6MaxNextHop);
  EXPECT_EQ(hop(table, "2001:db8::1"), kLpm6MaxNextHop - 1);
}

TEST(Lpm6, Tbl8GroupLimitOutsideItsRangeIsRejected) {
  EXPECT_THROW(Lpm6Table(0), gnf::UserError);
  EXPECT_THROW(Lpm6Table(kLpm6MaxTbl8Groups + 1), gnf::UserError);
}

namespace {

// Random routes clustered around a few addresses (so they nest and share groups at every level),
// every depth from 0 to 128, added, replaced and removed in random order; after each phase the table
// must answer as a linear scan of the live rules does, at every rule's first, middle and last address,
// the addresses just outside it, and random addresses inside rules and anywhere; and it must hold
// exactly the groups the rules need.
class Lpm6Differential {
 public:
  explicit Lpm6Differential(uint32_t seed) : rng_(seed), table_(1u << 15) {
    for (auto& b : bases_) b = random_u128();
  }

  U128 random_u128() {
    const uint64_t hi = rng_();
    return U128(hi) << 64 | rng_();
  }

  std::pair<uint8_t, U128> random_route() {
    // Depths below 16 rewrite 2^8 .. 2^24 tbl24 entries each: keep them rare (time, not coverage).
    const uint8_t depth = rng_() % 100 == 0 ? uint8_t(rng_() % 16) : uint8_t(16 + rng_() % 113);
    const U128 addr =
        rng_() % 4 == 0 ? random_u128() : bases_[rng_() % bases_.size()] ^ (random_u128() >> (rng_() % 128));
    return {depth, addr & ~host_mask(depth)};
  }

  void add_random() {
    auto [depth, prefix] = random_route();
    const uint32_t next_hop = uint32_t(rng_()) & kLpm6MaxNextHop;
    table_.add(bytes_of(prefix).data(), depth, next_hop);
    rules_[{depth, prefix}] = next_hop;
  }

  void remove_random_live() {
    if (rules_.empty()) return;
    auto it = std::next(rules_.begin(), long(rng_() % rules_.size()));
    ASSERT_TRUE(table_.remove(bytes_of(it->first.second).data(), it->first.first));
    rules_.erase(it);
  }

  void remove_random_absent() {
    auto [depth, prefix] = random_route();
    if (rules_.count({depth, prefix})) return;
    ASSERT_FALSE(table_.remove(bytes_of(prefix).data(), depth));
  }

  int64_t reference(U128 addr) const {
    int best_depth = -1;
    int64_t best = -1;
    for (auto& [key, next_hop] : rules_) {
      auto [depth, prefix] = key;
      if ((addr & ~host_mask(depth)) == prefix && int(depth) > best_depth) {
        best_depth = depth;
        best = next_hop;
      }
    }
    return best;
  }

  void check(int random_addresses) {
    std::vector<U128> addrs;
    std::vector<std::pair<uint8_t, U128>> keys;
    for (auto& [key, next_hop] : rules_) {
      auto [depth, prefix] = key;
      const U128 last = prefix | host_mask(depth);
      addrs.insert(addrs.end(), {prefix, last, prefix - 1, last + 1, prefix + (last - prefix) / 2});
      keys.push_back(key);
    }
    for (int i = 0; i < random_addresses; ++i) {
      if (i % 2 == 0 || keys.empty()) {
        addrs.push_back(random_u128());
      } else {
        auto [depth, prefix] = keys[rng_() % keys.size()];
        addrs.push_back(prefix | (random_u128() & host_mask(depth)));
      }
    }
    int failures = 0;
    for (U128 a : addrs) {
      const int64_t want = reference(a), got = hop(table_, bytes_of(a));
      if (want != got && ++failures <= 10) {
        char text[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, bytes_of(a).data(), text, sizeof text);
        ADD_FAILURE() << "address " << text << ": table " << got << ", linear scan " << want;
      }
    }
    ASSERT_EQ(failures, 0) << "of " << addrs.size() << " addresses";
    // A group at level k exactly for each /(24 + 8(k-1)) holding a rule longer than it.
    std::set<std::pair<int, U128>> groups;
    for (auto& r : rules_) {
      const int depth = r.first.first;
      for (int above = 24; above < depth; above += 8) groups.insert({above, r.first.second & ~host_mask(above)});
    }
    ASSERT_EQ(table_.tbl8_groups_used(), groups.size());
    ASSERT_EQ(table_.rule_count(), rules_.size());
  }

  size_t live() const { return rules_.size(); }

 private:
  std::mt19937_64 rng_;
  std::array<U128, 8> bases_;
  Lpm6Table table_;
  std::map<std::pair<uint8_t, U128>, uint32_t> rules_;  // (depth, prefix) -> next hop
};

}  // namespace

TEST(Lpm6Differential, RandomAddsReplacesAndRemovesMatchALinearScan) {
  Lpm6Differential d(1);
  gnf::test::run_lpm_differential(d);
}

TEST(Lpm6Differential, RandomAddsReplacesAndRemovesMatchALinearScanAnotherSeed) {
  Lpm6Differential d(2);
  gnf::test::run_lpm_differential(d);
}
