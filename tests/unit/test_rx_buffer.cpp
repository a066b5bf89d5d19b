#include <deque>
#include <random>

#include <gtest/gtest.h>

#include "nic/rx_buffer.h"

using gnf::nic::RxPacketBuffer;
using gnf::nic::RxRecord;

namespace {
RxRecord record(uint32_t len, uint32_t tag) {
  RxRecord r{};
  r.len = len;
  r.rss_hash = tag;
  return r;
}
}  // namespace

TEST(RxPacketBuffer, RefusesAFrameThatDoesNotFitAndKeepsTheOthers) {
  RxPacketBuffer buffer(1024, 1514);
  std::vector<uint8_t> data(1514, 0xab);
  EXPECT_TRUE(buffer.push(record(500, 1), data.data()));   // 504 B with FCS
  EXPECT_TRUE(buffer.push(record(500, 2), data.data()));   // 1008
  EXPECT_FALSE(buffer.push(record(60, 3), data.data()));   // 1072 > 1024
  EXPECT_EQ(buffer.frames(), 2u);
  EXPECT_EQ(buffer.used_bytes(), 1008u);
  buffer.pop();
  EXPECT_TRUE(buffer.push(record(60, 3), data.data()));
}

TEST(RxPacketBuffer, KeepsOrderAndBytesAcrossManyWrapArounds) {
  RxPacketBuffer buffer(16 * 1024, 9014);
  std::mt19937 rng(7);
  std::deque<std::pair<uint32_t, uint32_t>> expected;  // (len, tag)
  uint32_t tag = 0;
  std::vector<uint8_t> data(9014);
  for (int round = 0; round < 200'000; ++round) {
    if (rng() % 2) {
      uint32_t len = 60 + rng() % (rng() % 8 ? 200 : 8954);
      for (uint32_t i = 0; i < len; ++i) data[i] = uint8_t(tag + i);
      if (buffer.push(record(len, tag), data.data())) expected.emplace_back(len, tag);
      ++tag;
    } else if (!expected.empty()) {
      const RxRecord* front = buffer.front();
      ASSERT_NE(front, nullptr);
      ASSERT_EQ(front->len, expected.front().first);
      ASSERT_EQ(front->rss_hash, expected.front().second);
      for (uint32_t i = 0; i < front->len; ++i) ASSERT_EQ(front->data()[i], uint8_t(front->rss_hash + i));
      buffer.pop();
      expected.pop_front();
    }
    ASSERT_LE(buffer.used_bytes(), 16u * 1024);
  }
}

TEST(RxPacketBuffer, FillsToItsConfiguredCapacityWithMinimumFrames) {
  RxPacketBuffer buffer(512 * 1024, 1514);
  std::vector<uint8_t> data(60);
  uint32_t n = 0;
  while (buffer.push(record(60, n), data.data())) ++n;
  EXPECT_EQ(n, 512u * 1024 / 64);
}
