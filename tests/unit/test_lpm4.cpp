// The IPv4 LPM table (nf/l3fwd/lpm4.h): hand-computed cases, then random adds and removes against
// a linear scan of the rules. Its oracle against DPDK's rte_lpm is tests/oracle/.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "lpm_differential.h"
#include "nf/l3fwd/lpm4.h"
#include "util/error.h"

using namespace gnf::nf;

namespace {

constexpr uint32_t ip(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return a << 24 | b << 16 | c << 8 | d; }

// The next hop for addr, or -1 for no route.
int64_t hop(const Lpm4Table& table, uint32_t addr) {
  uint32_t next_hop = 0;
  return lpm4_lookup(table.view(), addr, next_hop) ? int64_t(next_hop) : -1;
}

}  // namespace

TEST(Lpm4, EmptyTableMatchesNothing) {
  Lpm4Table table;
  EXPECT_EQ(hop(table, 0), -1);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 3)), -1);
  EXPECT_EQ(hop(table, 0xffffffff), -1);
  EXPECT_EQ(table.rule_count(), 0u);
}

TEST(Lpm4, DefaultRouteMatchesEveryAddressNotCoveredByALongerOne) {
  Lpm4Table table;
  table.add(0, 0, 7);
  table.add(ip(198, 18, 0, 0), 15, 8);
  EXPECT_EQ(hop(table, 0), 7);
  EXPECT_EQ(hop(table, 0xffffffff), 7);
  EXPECT_EQ(hop(table, ip(198, 17, 255, 255)), 7);
  EXPECT_EQ(hop(table, ip(198, 18, 0, 0)), 8);
  EXPECT_EQ(hop(table, ip(198, 19, 255, 255)), 8);
  EXPECT_EQ(hop(table, ip(198, 20, 0, 0)), 7);
  EXPECT_TRUE(table.remove(0, 0));
  EXPECT_EQ(hop(table, 0), -1);
  EXPECT_EQ(hop(table, ip(198, 19, 1, 1)), 8);
}

TEST(Lpm4, HostRoutesMatchOnlyTheirAddress) {
  Lpm4Table table;
  table.add(ip(198, 18, 0, 1), 32, 1);
  table.add(ip(198, 18, 0, 255), 32, 2);
  table.add(ip(198, 18, 1, 0), 32, 3);
  EXPECT_EQ(hop(table, ip(198, 18, 0, 0)), -1);
  EXPECT_EQ(hop(table, ip(198, 18, 0, 1)), 1);
  EXPECT_EQ(hop(table, ip(198, 18, 0, 2)), -1);
  EXPECT_EQ(hop(table, ip(198, 18, 0, 255)), 2);
  EXPECT_EQ(hop(table, ip(198, 18, 1, 0)), 3);
  EXPECT_EQ(hop(table, ip(198, 18, 1, 1)), -1);
  EXPECT_EQ(table.tbl8_groups_used(), 2u);  // 198.18.0.0/24 and 198.18.1.0/24
}

// 10.0.0.0/8 -> 1 holding 10.1.0.0/16 -> 2, 10.1.2.0/24 -> 3, 10.1.2.128/25 -> 4, 10.1.2.200/32 -> 5.
void add_nested(Lpm4Table& table) {
  table.add(ip(10, 0, 0, 0), 8, 1);
  table.add(ip(10, 1, 0, 0), 16, 2);
  table.add(ip(10, 1, 2, 0), 24, 3);
  table.add(ip(10, 1, 2, 128), 25, 4);
  table.add(ip(10, 1, 2, 200), 32, 5);
}

TEST(Lpm4, NestedPrefixesResolveToTheLongest) {
  Lpm4Table table;
  add_nested(table);
  EXPECT_EQ(hop(table, ip(9, 255, 255, 255)), -1);
  EXPECT_EQ(hop(table, ip(10, 0, 0, 0)), 1);
  EXPECT_EQ(hop(table, ip(10, 1, 1, 255)), 2);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 0)), 3);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 127)), 3);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 128)), 4);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 199)), 4);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), 5);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 201)), 4);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 255)), 4);
  EXPECT_EQ(hop(table, ip(10, 1, 3, 0)), 2);
  EXPECT_EQ(hop(table, ip(10, 2, 0, 0)), 1);
  EXPECT_EQ(hop(table, ip(10, 255, 255, 255)), 1);
  EXPECT_EQ(hop(table, ip(11, 0, 0, 0)), -1);
  EXPECT_EQ(table.rule_count(), 5u);
  EXPECT_EQ(table.tbl8_groups_used(), 1u);
}

TEST(Lpm4, AddingShorterRoutesAfterLongerOnesKeepsTheLongerOnes) {
  Lpm4Table table;
  table.add(ip(10, 1, 2, 200), 32, 5);
  table.add(ip(10, 1, 2, 128), 25, 4);
  table.add(ip(10, 1, 2, 0), 24, 3);
  table.add(ip(10, 1, 0, 0), 16, 2);
  table.add(ip(10, 0, 0, 0), 8, 1);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), 5);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 201)), 4);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 1)), 3);
  EXPECT_EQ(hop(table, ip(10, 1, 3, 1)), 2);
  EXPECT_EQ(hop(table, ip(10, 9, 3, 1)), 1);
}

TEST(Lpm4, RemovingARouteRestoresTheCoveringRoute) {
  Lpm4Table table;
  add_nested(table);
  EXPECT_TRUE(table.remove(ip(10, 1, 2, 128), 25));
  EXPECT_EQ(hop(table, ip(10, 1, 2, 129)), 3);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), 5);  // the /32 inside it stays
  EXPECT_EQ(table.tbl8_groups_used(), 1u);
  EXPECT_TRUE(table.remove(ip(10, 1, 2, 200), 32));
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), 3);
  EXPECT_EQ(table.tbl8_groups_used(), 0u);  // no route longer than /24 left: the group is freed
  EXPECT_TRUE(table.remove(ip(10, 1, 0, 0), 16));
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), 3);  // the /24 is longer than the removed /16
  EXPECT_EQ(hop(table, ip(10, 1, 3, 0)), 1);
  EXPECT_TRUE(table.remove(ip(10, 1, 2, 0), 24));
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), 1);
  EXPECT_TRUE(table.remove(ip(10, 0, 0, 0), 8));
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), -1);
  EXPECT_EQ(table.rule_count(), 0u);
}

TEST(Lpm4, RemovingAShortRouteUnderALongOneFallsBackInsideTheGroup) {
  Lpm4Table table;
  add_nested(table);
  EXPECT_TRUE(table.remove(ip(10, 1, 2, 0), 24));  // its entries live in the /24's group
  EXPECT_EQ(hop(table, ip(10, 1, 2, 0)), 2);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 128)), 4);
  EXPECT_TRUE(table.remove(ip(10, 1, 0, 0), 16));
  EXPECT_TRUE(table.remove(ip(10, 0, 0, 0), 8));
  EXPECT_EQ(hop(table, ip(10, 1, 2, 0)), -1);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), 5);
  EXPECT_TRUE(table.remove(ip(10, 1, 2, 128), 25));
  EXPECT_TRUE(table.remove(ip(10, 1, 2, 200), 32));
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), -1);
  EXPECT_EQ(table.tbl8_groups_used(), 0u);
}

TEST(Lpm4, RemovingAnAbsentRouteReturnsFalseAndChangesNothing) {
  Lpm4Table table;
  add_nested(table);
  EXPECT_FALSE(table.remove(ip(10, 1, 2, 0), 23));
  EXPECT_FALSE(table.remove(ip(10, 1, 2, 201), 32));
  EXPECT_FALSE(table.remove(0, 0));
  EXPECT_EQ(table.rule_count(), 5u);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 0)), 3);
}

TEST(Lpm4, AddingAnExistingRouteReplacesItsNextHop) {
  Lpm4Table table;
  add_nested(table);
  table.add(ip(10, 1, 2, 128), 25, 40);
  table.add(ip(10, 1, 0, 0), 16, 20);
  EXPECT_EQ(table.rule_count(), 5u);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 129)), 40);
  EXPECT_EQ(hop(table, ip(10, 1, 2, 200)), 5);
  EXPECT_EQ(hop(table, ip(10, 1, 9, 9)), 20);
  uint32_t next_hop = 0;
  EXPECT_TRUE(table.find(ip(10, 1, 0, 0), 16, next_hop));
  EXPECT_EQ(next_hop, 20u);
}

TEST(Lpm4, BitsBeyondTheDepthAreIgnored) {
  Lpm4Table table;
  table.add(ip(10, 1, 2, 3), 8, 1);
  EXPECT_EQ(hop(table, ip(10, 200, 0, 0)), 1);
  uint32_t next_hop = 0;
  EXPECT_TRUE(table.find(ip(10, 0, 0, 0), 8, next_hop));
  EXPECT_TRUE(table.remove(ip(10, 9, 9, 9), 8));
  EXPECT_EQ(hop(table, ip(10, 200, 0, 0)), -1);
}

TEST(Lpm4, RunningOutOfTbl8GroupsThrowsNamingTheLimitAndChangesNothing) {
  Lpm4Table table(2);
  table.add(ip(10, 0, 0, 0), 8, 1);
  table.add(ip(10, 0, 0, 0), 25, 2);
  table.add(ip(10, 0, 1, 0), 25, 3);
  try {
    table.add(ip(10, 0, 2, 0), 25, 4);
    FAIL() << "expected gnf::UserError";
  } catch (const gnf::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("all 2 tbl8 groups are in use"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("10.0.2.0/25"), std::string::npos) << e.what();
  }
  EXPECT_EQ(table.rule_count(), 3u);
  EXPECT_EQ(hop(table, ip(10, 0, 2, 1)), 1);
  table.add(ip(10, 0, 1, 128), 26, 5);  // a /24 that has a group already needs no new one
  EXPECT_EQ(hop(table, ip(10, 0, 1, 130)), 5);
  EXPECT_TRUE(table.remove(ip(10, 0, 0, 0), 25));
  table.add(ip(10, 0, 2, 0), 25, 4);  // the freed group is used again
  EXPECT_EQ(hop(table, ip(10, 0, 2, 1)), 4);
  EXPECT_EQ(hop(table, ip(10, 0, 0, 1)), 1);
}

TEST(Lpm4, DepthAbove32IsRejected) {
  Lpm4Table table;
  EXPECT_THROW(table.add(ip(10, 0, 0, 0), 33, 1), gnf::UserError);
  EXPECT_THROW(table.remove(ip(10, 0, 0, 0), 33), gnf::UserError);
  EXPECT_EQ(table.rule_count(), 0u);
}

TEST(Lpm4, NextHopAbove24BitsIsRejected) {
  Lpm4Table table;
  EXPECT_THROW(table.add(ip(10, 0, 0, 0), 8, kLpm4MaxNextHop + 1), gnf::UserError);
  EXPECT_EQ(hop(table, ip(10, 0, 0, 0)), -1);
  table.add(ip(10, 0, 0, 0), 8, kLpm4MaxNextHop);
  table.add(ip(10, 0, 0, 1), 32, kLpm4MaxNextHop - 1);
  EXPECT_EQ(hop(table, ip(10, 0, 0, 0)), kLpm4MaxNextHop);
  EXPECT_EQ(hop(table, ip(10, 0, 0, 1)), kLpm4MaxNextHop - 1);
}

TEST(Lpm4, Tbl8GroupLimitOutsideItsRangeIsRejected) {
  EXPECT_THROW(Lpm4Table(0), gnf::UserError);
  EXPECT_THROW(Lpm4Table((1u << 24) + 1), gnf::UserError);
}

// Random routes clustered around a few addresses (so they nest and share /24s), every depth from
// 0 to 32, added, replaced and removed in random order; after each phase the table must answer as
// a linear scan of the live rules does ("longest match wins"), at every rule's first and last
// address, the addresses just outside it, and random addresses inside rules and anywhere.
class Lpm4Differential {
 public:
  explicit Lpm4Differential(uint32_t seed) : rng_(seed), table_(8192) {
    for (auto& b : bases_) b = uint32_t(rng_());
  }

  std::pair<uint32_t, uint8_t> random_route() {
    // Depths below 8 rewrite 2^16 .. 2^24 tbl24 entries each: keep them rare (time, not coverage).
    uint8_t depth = rng_() % 100 == 0 ? uint8_t(rng_() % 8) : uint8_t(8 + rng_() % 25);
    uint32_t addr = rng_() % 4 == 0 ? uint32_t(rng_()) : bases_[rng_() % bases_.size()] ^ (uint32_t(rng_()) >> (rng_() % 32));
    uint32_t mask = depth == 0 ? 0 : ~uint32_t(0) << (32 - depth);
    return {addr & mask, depth};
  }

  void add_random() {
    auto [prefix, depth] = random_route();
    uint32_t next_hop = uint32_t(rng_()) & kLpm4MaxNextHop;
    table_.add(prefix, depth, next_hop);
    rules_[{depth, prefix}] = next_hop;
  }

  void remove_random_live() {
    if (rules_.empty()) return;
    auto it = std::next(rules_.begin(), long(rng_() % rules_.size()));
    ASSERT_TRUE(table_.remove(it->first.second, it->first.first));
    rules_.erase(it);
  }

  void remove_random_absent() {
    auto [prefix, depth] = random_route();
    if (rules_.count({depth, prefix})) return;
    ASSERT_FALSE(table_.remove(prefix, depth));
  }

  int64_t reference(uint32_t addr) const {
    int best_depth = -1;
    int64_t best = -1;
    for (auto& [key, next_hop] : rules_) {
      auto [depth, prefix] = key;
      uint32_t mask = depth == 0 ? 0 : ~uint32_t(0) << (32 - depth);
      if ((addr & mask) == prefix && int(depth) > best_depth) {
        best_depth = depth;
        best = next_hop;
      }
    }
    return best;
  }

  void check(int random_addresses) {
    std::vector<uint32_t> addrs;
    for (auto& [key, next_hop] : rules_) {
      auto [depth, prefix] = key;
      uint32_t last = prefix | (depth == 0 ? ~uint32_t(0) : ~(~uint32_t(0) << (32 - depth)));
      addrs.insert(addrs.end(), {prefix, last, prefix - 1, last + 1, prefix + (last - prefix) / 2});
    }
    std::vector<std::pair<uint8_t, uint32_t>> keys;
    for (auto& r : rules_) keys.push_back(r.first);
    for (int i = 0; i < random_addresses; ++i) {
      if (i % 2 == 0 || keys.empty()) {
        addrs.push_back(uint32_t(rng_()));
      } else {
        auto [depth, prefix] = keys[rng_() % keys.size()];
        uint32_t span = depth == 0 ? ~uint32_t(0) : ~(~uint32_t(0) << (32 - depth));
        addrs.push_back(prefix | (uint32_t(rng_()) & span));
      }
    }
    int failures = 0;
    for (uint32_t a : addrs) {
      int64_t want = reference(a), got = hop(table_, a);
      if (want != got && ++failures <= 10) {
        ADD_FAILURE() << "address 0x" << std::hex << a << std::dec << ": table " << got << ", linear scan " << want;
      }
    }
    ASSERT_EQ(failures, 0) << "of " << addrs.size() << " addresses";
    // A group exactly for each /24 holding a route longer than /24.
    std::set<uint32_t> long_24s;
    for (auto& r : rules_) {
      if (r.first.first > 24) long_24s.insert(r.first.second >> 8);
    }
    ASSERT_EQ(table_.tbl8_groups_used(), long_24s.size());
    ASSERT_EQ(table_.rule_count(), rules_.size());
  }

  size_t live() const { return rules_.size(); }

 private:
  std::mt19937 rng_;
  std::array<uint32_t, 8> bases_;
  Lpm4Table table_;
  std::map<std::pair<uint8_t, uint32_t>, uint32_t> rules_;  // (depth, prefix) -> next hop
};

TEST(Lpm4Differential, RandomAddsReplacesAndRemovesMatchALinearScan) {
  Lpm4Differential d(1);
  gnf::test::run_lpm_differential(d);
}

TEST(Lpm4Differential, RandomAddsReplacesAndRemovesMatchALinearScanAnotherSeed) {
  Lpm4Differential d(2);
  gnf::test::run_lpm_differential(d);
}
