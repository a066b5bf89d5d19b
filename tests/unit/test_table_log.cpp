// What a table builder records (sync/table_log.h) is everything it stores: replaying the log over a
// copy of the table taken when recording began gives the table, word for word. (The GPU copy of the
// router's tables is kept up to date by exactly such a replay.)
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "../oracle/ipv6_routes.h"
#include "sync/table_log.h"
#include "nf/l3fwd/lpm4.h"
#include "nf/l3fwd/lpm6.h"

using namespace gnf;

namespace {

// Replays as the GPU does: phase after phase, the stores of a phase in no particular order (here
// shuffled), so a log that relies on the order within a phase fails.
struct Copy {
  std::vector<uint32_t> regions[2];
  void replay(const sync::TableLog& log) {
    std::mt19937 rng(1);
    uint32_t begin = 0;
    for (uint32_t end : log.phase_ends()) {
      std::vector<sync::TableStore> phase(log.stores().begin() + begin, log.stores().begin() + end);
      std::shuffle(phase.begin(), phase.end(), rng);
      for (const sync::TableStore& s : phase) {
        ASSERT_LT(s.region, 2u);
        ASSERT_LT(s.index, regions[s.region].size());
        regions[s.region][s.index] = s.value;
      }
      begin = end;
    }
  }
};

template <typename Table>
Copy copy_of(const Table& table, size_t tbl24_words) {
  Copy c;
  c.regions[0].assign(table.tbl24_words(), table.tbl24_words() + tbl24_words);
  c.regions[1].assign(table.tbl8_words(), table.tbl8_words() + table.tbl8_word_count());
  return c;
}

template <typename Table>
void expect_equal(const Copy& c, const Table& table, size_t tbl24_words) {
  ASSERT_TRUE(std::equal(c.regions[0].begin(), c.regions[0].end(), table.tbl24_words())) << "tbl24 differs";
  for (size_t w = 0; w < table.tbl8_word_count(); ++w)
    ASSERT_EQ(c.regions[1][w], table.tbl8_words()[w]) << "tbl8 word " << w;
  (void)tbl24_words;
}

}  // namespace

TEST(TableLog, ReplayingAnLpm4LogOverTheEarlierCopyGivesTheTable) {
  nf::Lpm4Table table(1024);
  std::mt19937 rng(4);
  auto random_route = [&] { return std::pair{uint32_t(rng()), uint8_t(8 + rng() % 25)}; };
  for (int i = 0; i < 2000; ++i) {
    auto [p, d] = random_route();
    table.add(p, d, i);
  }
  Copy copy = copy_of(table, nf::kLpm4Tbl24Entries);
  sync::TableLog log;
  table.record_stores(&log, 0, 1);
  std::vector<std::pair<uint32_t, uint8_t>> added;
  for (int i = 0; i < 3000; ++i) {
    auto [p, d] = random_route();
    if (rng() % 3 == 0 && !added.empty()) {
      auto [rp, rd] = added[rng() % added.size()];
      table.remove(rp, rd);
    } else {
      table.add(p, d, 5000 + i);
      added.emplace_back(p, d);
    }
  }
  copy.replay(log);
  expect_equal(copy, table, nf::kLpm4Tbl24Entries);
}

TEST(TableLog, ReplayingAnLpm6LogOverTheEarlierCopyGivesTheTable) {
  const auto routes = oracle::synthetic_bgp6_routes(20'000, 6);
  nf::Lpm6Table table(1u << 16);
  for (size_t i = 0; i < routes.size() / 2; ++i)
    table.add(oracle::bytes_of(routes[i].prefix).data(), routes[i].depth, routes[i].next_hop);
  Copy copy = copy_of(table, nf::kLpm6Tbl24Entries);
  sync::TableLog log;
  table.record_stores(&log, 0, 1);
  for (size_t i = routes.size() / 2; i < routes.size(); ++i)
    table.add(oracle::bytes_of(routes[i].prefix).data(), routes[i].depth, routes[i].next_hop);
  for (size_t i = 0; i < routes.size(); i += 7) table.remove(oracle::bytes_of(routes[i].prefix).data(), routes[i].depth);
  copy.replay(log);
  expect_equal(copy, table, nf::kLpm6Tbl24Entries);
}

TEST(TableLog, APhaseHoldsOneStorePerWordWithTheLastValue) {
  sync::TableLog log;
  log.store(0, 5, 1);
  log.store(1, 5, 2);
  log.store(0, 5, 3);  // same word: its value changes, no second store
  ASSERT_EQ(log.stores().size(), 2u);
  EXPECT_EQ(log.stores()[0].value, 3u);
  log.release();
  log.store(0, 5, 4);  // after a release: a store of its own, in the next phase
  ASSERT_EQ(log.stores().size(), 3u);
  EXPECT_EQ(log.phase_ends(), (std::vector<uint32_t>{2, 3}));
}
