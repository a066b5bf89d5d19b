// The ring a port's capture copies frames into (nic/capture_ring.h): frames come out as they went
// in, in order; a full ring drops and counts, never overwrites nor waits.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "nic/capture_ring.h"

namespace gnf::nic {
namespace {

std::vector<uint8_t> frame_of(uint32_t sequence, uint32_t len) {
  std::vector<uint8_t> f(len, uint8_t(sequence));
  std::memcpy(f.data(), &sequence, 4);
  return f;
}

TEST(CaptureRing, FramesComeOutInOrderWithTheirBytesLengthAndTime) {
  CaptureRing ring(8, 1518);
  for (uint32_t i = 0; i < 5; ++i) ring.push(frame_of(i, 60 + i).data(), 60 + i, 1000 + i);
  std::vector<uint32_t> seen;
  EXPECT_EQ(ring.drain([&](const CapturedFrame& f) {
    uint32_t sequence;
    std::memcpy(&sequence, f.data, 4);
    EXPECT_EQ(f.len, 60 + sequence);
    EXPECT_EQ(f.kept, f.len);
    EXPECT_EQ(f.time_ns, 1000 + sequence);
    EXPECT_EQ(std::vector<uint8_t>(f.data, f.data + f.kept), frame_of(sequence, f.len));
    seen.push_back(sequence);
  }), 5u);
  EXPECT_EQ(seen, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(ring.dropped(), 0u);
}

TEST(CaptureRing, AFullRingCountsWhatItCannotTakeAndKeepsWhatItHas) {
  CaptureRing ring(4, 128);
  for (uint32_t i = 0; i < 7; ++i) ring.push(frame_of(i, 64).data(), 64, i);
  EXPECT_EQ(ring.dropped(), 3u);
  std::vector<uint32_t> seen;
  ring.drain([&](const CapturedFrame& f) { seen.push_back(uint32_t(f.time_ns)); });
  EXPECT_EQ(seen, (std::vector<uint32_t>{0, 1, 2, 3}));
  ring.push(frame_of(9, 64).data(), 64, 9);  // room again
  EXPECT_EQ(ring.drain([](const CapturedFrame& f) { EXPECT_EQ(f.time_ns, 9u); }), 1u);
}

TEST(CaptureRing, AFrameLongerThanASlotIsCutAndKeepsItsLength) {
  CaptureRing ring(4, 100);
  ring.push(frame_of(1, 300).data(), 300, 0);
  ring.drain([](const CapturedFrame& f) {
    EXPECT_EQ(f.len, 300u);
    EXPECT_EQ(f.kept, 100u);
  });
}

TEST(CaptureRing, DiscardFreesWhatIsUnread) {
  CaptureRing ring(4, 64);
  for (uint32_t i = 0; i < 4; ++i) ring.push(frame_of(i, 64).data(), 64, i);
  ring.discard();
  EXPECT_EQ(ring.drain([](const CapturedFrame&) {}), 0u);
  ring.push(frame_of(5, 64).data(), 64, 5);
  EXPECT_EQ(ring.dropped(), 0u);
}

// One producer thread and one consumer thread: every frame is either read, whole and in order, or
// counted as dropped.
TEST(CaptureRing, AProducerAndAConsumerOnTwoThreadsLoseNothingUncounted) {
  CaptureRing ring(64, 256);
  constexpr uint32_t kFrames = 200000;
  std::thread producer([&] {
    for (uint32_t i = 0; i < kFrames; ++i) ring.push(frame_of(i, 64 + i % 128).data(), 64 + i % 128, i);
  });
  uint64_t read = 0;
  int64_t last = -1;
  bool in_order = true, whole = true;
  auto visit = [&](const CapturedFrame& f) {
    uint32_t sequence;
    std::memcpy(&sequence, f.data, 4);
    in_order &= int64_t(sequence) > last && f.time_ns == sequence;
    whole &= f.len == 64 + sequence % 128 && f.data[f.len - 1] == uint8_t(sequence);
    last = sequence;
    ++read;
  };
  while (read + ring.dropped() < kFrames) ring.drain(visit);
  producer.join();
  ring.drain(visit);
  EXPECT_TRUE(in_order);
  EXPECT_TRUE(whole);
  EXPECT_EQ(read + ring.dropped(), kFrames);
  EXPECT_GT(read, 0u);
}

}  // namespace
}  // namespace gnf::nic
