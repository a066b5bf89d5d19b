// The anti-replay window (nf/ipsec/replay.h) against RFC 4303 §3.4.3 and appendix A, and against a
// plain set of the numbers seen for long random runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "nf/ipsec/replay.h"

using namespace gnf::nf;

TEST(IpsecReplay, AcceptsEachNumberOnceAndNothingBelowTheWindow) {
  ReplayWindow w{};
  EXPECT_EQ(replay_check(w, 64, 0), ReplayVerdict::OutsideWindow);  // the first number is 1
  EXPECT_EQ(replay_accept(w, 64, 5), ReplayVerdict::New);
  EXPECT_EQ(replay_accept(w, 64, 5), ReplayVerdict::Replayed);
  EXPECT_EQ(replay_accept(w, 64, 3), ReplayVerdict::New);
  EXPECT_EQ(replay_accept(w, 64, 200), ReplayVerdict::New);
  EXPECT_EQ(replay_check(w, 64, 137), ReplayVerdict::New);             // the window's lowest: 200 - 63
  EXPECT_EQ(replay_check(w, 64, 136), ReplayVerdict::OutsideWindow);
  EXPECT_EQ(replay_check(w, 64, 5), ReplayVerdict::OutsideWindow);
  EXPECT_EQ(replay_accept(w, 64, 137), ReplayVerdict::New);
  EXPECT_EQ(replay_check(w, 64, 137), ReplayVerdict::Replayed);
  EXPECT_EQ(w.top, 200u);
}

TEST(IpsecReplay, MatchesTheSetOfNumbersSeenForEverySize) {
  std::mt19937_64 rng(13);
  for (uint32_t size : {64u, 128u, 192u, 1024u, 4096u}) {
    ReplayWindow w{};
    std::set<uint64_t> seen;
    uint64_t top = 0;
    for (int i = 0; i < 200000; ++i) {
      // Mostly near the top, sometimes far ahead (the ring wraps and is cleared whole).
      const uint64_t jump = rng() % 100 == 0 ? rng() % (8 * size) : rng() % 8;
      const uint64_t seq = rng() % 2 ? top + jump : (top > jump * 16 ? top - jump * 16 : 1 + rng() % 4);
      ReplayVerdict want = ReplayVerdict::New;
      if (seq == 0 || (seq <= top && top - seq >= size)) want = ReplayVerdict::OutsideWindow;
      else if (seen.count(seq)) want = ReplayVerdict::Replayed;
      ASSERT_EQ(replay_check(w, size, seq), want) << "size " << size << " seq " << seq << " top " << top;
      ASSERT_EQ(replay_accept(w, size, seq), want);
      if (want == ReplayVerdict::New) {
        seen.insert(seq);
        top = std::max(top, seq);
      }
    }
  }
}

// RFC 4303 appendix A2.2: the high half is the one that puts the number closest above the
// window's bottom.
TEST(IpsecReplay, InfersTheHighHalfOfExtendedSequenceNumbers) {
  ReplayWindow w{};
  constexpr uint32_t kSize = 64;
  EXPECT_EQ(replay_infer_sequence(w, kSize, true, 1), 1u);
  EXPECT_EQ(replay_infer_sequence(w, kSize, true, 0xFFFFFFF0u), 0u);  // would be below the first subspace
  w.top = 0x1'0000'0010ull;  // case B: the window straddles 2^32
  EXPECT_EQ(replay_infer_sequence(w, kSize, true, 0xFFFFFFF0u), 0xFFFFFFF0ull);
  EXPECT_EQ(replay_infer_sequence(w, kSize, true, 0x20), 0x1'0000'0020ull);
  w.top = 0x1'FFFF'FFF0ull;  // case A: numbers below the bottom belong to the next subspace
  EXPECT_EQ(replay_infer_sequence(w, kSize, true, 5), 0x2'0000'0005ull);
  EXPECT_EQ(replay_infer_sequence(w, kSize, true, 0xFFFFFFC0u), 0x1'FFFF'FFC0ull);
  EXPECT_EQ(replay_infer_sequence(w, kSize, false, 5), 5u);  // without ESN: the wire's number
}

// Several host threads on one window (an SA reached through two ports): each number, offered by
// every thread, is accepted exactly once.
TEST(IpsecReplay, ThreadsOnOneWindowAcceptEachNumberOnce) {
  constexpr uint32_t kSize = kMaxReplayWindow;
  constexpr int kThreads = 4;
  ReplayWindow w{};
  std::vector<std::vector<uint8_t>> accepted(kThreads, std::vector<uint8_t>(kSize + 1));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<uint64_t> order(kSize);
      for (uint32_t i = 0; i < kSize; ++i) order[i] = i + 1;
      std::shuffle(order.begin(), order.end(), std::mt19937_64(t));
      for (uint64_t seq : order)
        if (replay_check(w, kSize, seq) == ReplayVerdict::New && replay_accept(w, kSize, seq) == ReplayVerdict::New)
          accepted[t][seq] = 1;
    });
  for (std::thread& t : threads) t.join();
  for (uint64_t seq = 1; seq <= kSize; ++seq) {
    int times = 0;
    for (int t = 0; t < kThreads; ++t) times += accepted[t][seq];
    ASSERT_EQ(times, 1) << "number " << seq;
  }
  EXPECT_EQ(w.top, kSize);
}
