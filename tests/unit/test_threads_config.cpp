// [threads] (ctl/config_builder.h): how the poll-mode threads wait when idle, and the CPU lists that
// place them, checked against the CPUs this process may run on and the threads the run will have.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "ctl/config.h"
#include "util/cores.h"
#include "util/error.h"

using namespace gnf;

namespace {

const char* kPort = "[[port]]\n[[nf]]\ntype = \"l2fwd\"\n";

// What parsing and validating `threads_table` (the body of [threads]) says, "" if nothing: after
// `more`, on `port` (a one-port cpu-path config).
std::string error_of(const std::string& threads_table, const std::string& more = "", const std::string& port = kPort) {
  try {
    ctl::validate(ctl::parse_config(more + "[threads]\n" + threads_table + port, "t.toml"));
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// A CPU this process may not run on.
int forbidden_cpu() {
  const std::vector<int> allowed = calling_thread_cores();
  int cpu = 0;
  while (std::find(allowed.begin(), allowed.end(), cpu) != allowed.end()) ++cpu;
  return cpu;
}

}  // namespace

TEST(ThreadsConfig, TheTableSetsTheIdleModeTheLongestSleepAndTheCpuLists) {
  const ctl::Config c = ctl::parse_config(
      "[threads]\nidle = \"backoff\"\nidle_sleep_us_max = 50\ncpus = \"3,1-2\"\ncontrol_cpus = \"0\"\n" +
          std::string(kPort),
      "t.toml");
  EXPECT_EQ(c.idle, IdleMode::Backoff);
  EXPECT_EQ(c.idle_sleep_us_max, 50u);
  EXPECT_EQ(c.cpus, (std::vector<int>{3, 1, 2}));
  EXPECT_EQ(c.control_cpus, (std::vector<int>{0}));
  const ctl::Config defaults = ctl::parse_config(kPort, "t.toml");
  EXPECT_EQ(defaults.idle, IdleMode::Auto);
  EXPECT_TRUE(defaults.cpus.empty() && defaults.control_cpus.empty());
  // "" is what leaving them out is.
  const ctl::Config empty = ctl::parse_config("[threads]\ncpus = \"\"\ncontrol_cpus = \"\"\n" + std::string(kPort), "t.toml");
  EXPECT_TRUE(empty.cpus.empty() && empty.control_cpus.empty());
}

TEST(ThreadsConfig, BadValuesAreNamedByFileLineAndKey) {
  EXPECT_EQ(error_of("idle = \"doze\"\n"), "t.toml:2: threads.idle: 'doze' is not one of: auto, spin, backoff");
  EXPECT_EQ(error_of("\nidle_sleep_us_max = 0\n"), "t.toml:3: threads.idle_sleep_us_max: 0 is out of range [1, 100000]");
  EXPECT_EQ(error_of("cpus = \"3-1\"\n"), "t.toml:2: threads.cpus: 3-1 runs backwards");
  EXPECT_EQ(error_of("control_cpus = \"0,0\"\n"), "t.toml:2: threads.control_cpus: CPU 0 is listed twice");
  EXPECT_EQ(error_of("cpus = 3\n"), "t.toml:2: threads.cpus: expected a string");
  EXPECT_EQ(error_of("cores = \"0\"\n"), "t.toml:2: threads.cores: unknown key");
}

TEST(ThreadsConfig, ACpuTheProcessMayNotRunOnIsRefused) {
  const int cpu = forbidden_cpu();
  const std::string allowed = cpu_list_text(calling_thread_cores());
  EXPECT_EQ(error_of(fmt::format("cpus = \"{}\"\n", cpu)),
            fmt::format("t.toml:2: threads.cpus: CPU {} is not one this process may run on ({})", cpu, allowed));
  EXPECT_EQ(error_of(fmt::format("\ncontrol_cpus = \"{}\"\n", cpu)),
            fmt::format("t.toml:3: threads.control_cpus: CPU {} is not one this process may run on ({})", cpu, allowed));
}

TEST(ThreadsConfig, TheListNeedsACpuForEachPollModeThread) {
  const int cpu = calling_thread_cores().front();
  const std::string one = fmt::format("cpus = \"{}\"\n", cpu);
  // The cpu path: one NIC-model thread and (at least) one driver thread.
  EXPECT_EQ(error_of(one), "t.toml:2: threads.cpus: 1 CPU for 2 poll-mode threads (1 NIC model, 1 driver): list a "
                           "CPU for each");
  EXPECT_EQ(error_of(one, "[nic]\nthreads = 3\n"),
            "t.toml:4: threads.cpus: 1 CPU for 4 poll-mode threads (3 NIC model, 1 driver): list a CPU for each");
  // The bypass path's driver is the GPU: its NIC-model thread is all there is.
  EXPECT_EQ(error_of(one, "path = \"bypass\"\n"), "");
  // As many driver threads as asked for, up to one per queue.
  const std::vector<int> allowed = calling_thread_cores();
  if (allowed.size() < 2) GTEST_SKIP() << "one CPU: no list of two";
  const std::string two = fmt::format("cpus = \"{},{}\"\n", allowed[0], allowed[1]);
  EXPECT_EQ(error_of(two), "");
  EXPECT_EQ(error_of(two, "[driver]\nthreads = 2\n"), "");  // one queue: one driver thread
  EXPECT_EQ(error_of(two, "[driver]\nthreads = 2\n", "[[port]]\nqueues = 2\n[[nf]]\ntype = \"l2fwd\"\n"),
            "t.toml:4: threads.cpus: 2 CPUs for 3 poll-mode threads (1 NIC model, 2 driver): list a CPU for each");
}

TEST(ThreadsConfig, ACpuListPinsAndSoCannotGoWithUnpinnedThreads) {
  const int cpu = calling_thread_cores().front();
  EXPECT_EQ(error_of(fmt::format("cpus = \"{}\"\n", cpu), "path = \"bypass\"\n[nic]\npin_threads = false\n"),
            "t.toml:5: threads.cpus: a CPU list pins the poll-mode threads, and nic.pin_threads is false");
}

TEST(ThreadsConfig, AutoSpinsWhileAGeneratorFeedsAPortAndBacksOffOtherwise) {
  ctl::Config c = ctl::parse_config(kPort, "t.toml");
  c.idle_sleep_us_max = 300;
  EXPECT_TRUE(path::idle_policy(c).backoff);
  EXPECT_EQ(path::idle_policy(c).sleep_ns_max, 300'000u);
  c.ports[0].source.kind = ctl::SourceSpec::Kind::Generator;
  EXPECT_FALSE(path::idle_policy(c).backoff);
  c.idle = IdleMode::Backoff;
  EXPECT_TRUE(path::idle_policy(c).backoff);
  c.ports[0].source.kind = ctl::SourceSpec::Kind::Pcap;
  c.idle = IdleMode::Spin;
  EXPECT_FALSE(path::idle_policy(c).backoff);
}
