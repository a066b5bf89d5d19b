// app/verdict.h's model-bound rule: which of the NIC model's own counters make a run's rate the
// model's rather than the path's.
#include <gtest/gtest.h>

#include "app/verdict.h"

using namespace gnf::app;

namespace {

nlohmann::json reasons_of(const ModelHealth& health) {
  const nlohmann::json j = model_bound_json(cpu_json({}, 1.0), health);
  EXPECT_EQ(j["bound"].get<bool>(), !j["reasons"].empty());
  return j["reasons"];
}

}  // namespace

TEST(ModelBound, LateFramesCountFromAShareOfTheFramesSent) {
  ModelHealth h;
  h.sent = 100'000;
  h.late_frames = 999;
  EXPECT_TRUE(reasons_of(h).empty());
  h.late_frames = 1'000;
  ASSERT_EQ(reasons_of(h).size(), 1u);
  EXPECT_NE(reasons_of(h)[0].get<std::string>().find("late on 1000 frames"), std::string::npos);
}

TEST(ModelBound, TxRingLossWhileTheTxSideWasAwayBindsTheRunHoweverSmall) {
  ModelHealth h;
  h.sent = 10'000'000;
  h.tx_stalls = 2;
  h.tx_stalled_frames = 3'000;
  h.tx_stall_max_ns = 1'500'000;
  EXPECT_TRUE(reasons_of(h).empty()) << "a stall that cost no frame is the machine's, not a limit";
  h.tx_ring_lost = 1;
  ASSERT_EQ(reasons_of(h).size(), 1u);
  EXPECT_EQ(reasons_of(h)[0].get<std::string>(),
            "NIC model's tx side away 2 times (up to 1500 us, 3000 frames waiting) and 1 frames lost in the tx rings");
  h.tx_stalled_frames = 0;
  h.tx_stalls = 0;
  EXPECT_TRUE(reasons_of(h).empty()) << "tx-ring loss with the model on time is the path's";
}
