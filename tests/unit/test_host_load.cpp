// host_load (app/verdict.h): a poll-mode thread that ran less than 80 % of the time waited for a
// core, unless it slept on purpose, backing off (util/idle_backoff.h): then only the time it was
// awake counts.
#include <gtest/gtest.h>

#include "app/verdict.h"

namespace {

gnf::ThreadCpu thread(const char* role, double cpu_s, double slept_s) {
  gnf::ThreadCpu t{role, cpu_s, 0};
  t.slept_s = slept_s;
  return t;
}

nlohmann::json host_load(const std::vector<gnf::ThreadCpu>& threads, double wall_s) {
  return gnf::app::host_load_json(gnf::app::cpu_json(threads, wall_s));
}

TEST(HostLoad, SpinningThreadsThatRanTheWholeTimeHadTheirCores) {
  const nlohmann::json j = host_load({thread("nic", 9.9, 0), thread("driver", 9.8, 0)}, 10);
  EXPECT_FALSE(j["loaded"].get<bool>());
  EXPECT_NEAR(j["cpu_share"].get<double>(), 0.98, 1e-9);
}

TEST(HostLoad, ASpinningThreadThatRanAThirdOfTheTimeWaitedForItsCore) {
  const nlohmann::json j = host_load({thread("nic", 9.9, 0), thread("driver", 3.0, 0)}, 10);
  EXPECT_TRUE(j["loaded"].get<bool>());
  EXPECT_EQ(j["reasons"][0].get<std::string>(), "driver threads ran 30 % of the time");
}

TEST(HostLoad, AThreadBackingOffIsJudgedByTheTimeItWasAwake) {
  // Asleep 6.8 s of 10, running 3 of the 3.2 it was awake.
  const nlohmann::json j = host_load({thread("nic", 9.9, 0), thread("driver", 3.0, 6.8)}, 10);
  EXPECT_FALSE(j["loaded"].get<bool>()) << j;
  EXPECT_NEAR(j["cpu_share"].get<double>(), 3.0 / 3.2, 1e-9);
  const nlohmann::json cpu = gnf::app::cpu_json({thread("driver", 3.0, 6.8)}, 10);
  EXPECT_DOUBLE_EQ(cpu["driver"]["slept_s"].get<double>(), 6.8);
  // Awake 2 s of them, running 1: it waited.
  EXPECT_TRUE(host_load({thread("driver", 1.0, 8.0)}, 10)["loaded"].get<bool>());
}

TEST(HostLoad, AThreadAwakeTooShortlyToSayIsNotJudged) {
  const nlohmann::json j = host_load({thread("driver", 0.01, 9.9)}, 10);
  EXPECT_FALSE(j["loaded"].get<bool>()) << j;
  EXPECT_TRUE(host_load({thread("driver", 0, 10)}, 10)["cpu_share"].is_null());
}

}  // namespace
