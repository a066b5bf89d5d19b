// A config file's key and the `gnf run` / `gnf bench` flag that sets the same option take the same
// values, refuse the same ones with the same words, and start from the same defaults.
#include <cstring>
#include <fstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "app/bench_flags.h"
#include "app/run_flags.h"
#include "ctl/config.h"
#include "ctl/config_builder.h"
#include "util/error.h"

using namespace gnf;

namespace {

// A subcommand's options, parsed from `line` (CLI::ParseError for a bad flag).
template <typename Flags>
struct Command {
  CLI::App cmd;
  Flags flags;
  Command(void (*add)(CLI::App&, Flags&), const std::string& line) {
    add(cmd, flags);
    cmd.parse(line, false);
  }
};

// An option as a config file and the flags name it.
struct Option {
  const char* flag;
  const char* file;  // a config file that sets the option, "{}" for its value
  const char* key;   // the key as errors name it: "driver.rx_ring"
  std::vector<std::string> values;  // as typed after the flag
};

// What a config file's error says of `value` ("" when the file parses), after "file:line: key: ".
std::string file_problem(const Option& o, const std::string& value) {
  char* end = nullptr;
  std::strtod(value.c_str(), &end);
  std::string literal = *end == '\0' ? value : "\"" + value + "\"";  // TOML: numbers bare, names quoted
  try {
    ctl::parse_config(fmt::format(fmt::runtime(o.file), literal), "test.toml");
  } catch (const UserError& e) {
    std::string message = e.what();
    std::string named = std::string(o.key) + ": ";
    size_t at = message.find(named);
    return at == std::string::npos ? message : message.substr(at + named.size());
  }
  return "";
}

// What the flag's parser says of `value` ("" when it takes it), after "--flag: ".
template <typename Flags>
std::string flag_problem(void (*add)(CLI::App&, Flags&), const Option& o, const std::string& value) {
  try {
    Command<Flags> command(add, fmt::format("{}={}", o.flag, value));
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    std::string named = std::string(o.flag) + ": ";
    return message.rfind(named, 0) == 0 ? message.substr(named.size()) : message;
  }
  return "";
}

// Options both commands have, then `gnf bench`'s own, then `gnf run`'s own.
const std::vector<Option> kShared = {
    {"--path", "path = {}\n[[port]]\n", "path", {"cpu", "bypass", "p2p", "gpu", "calibrate"}},
    {"--speed", "[[port]]\nspeed = {}\n", "port[0].speed", {"10", "400", "11", "0", "x", "2.5"}},
    {"--queues", "[[port]]\nqueues = {}\n", "port[0].queues", {"1", "64", "0", "65"}},
    {"--size", "[[port]]\n[port.source]\ntype = \"generator\"\nsize = {}\n", "port[0].source.size",
     {"64", "9018", "63", "9019"}},
    {"--flows", "[[port]]\n[port.source]\ntype = \"generator\"\nflows = {}\n", "port[0].source.flows",
     {"1", "65536", "0", "65537"}},
    {"--ip", "[[port]]\n[port.source]\ntype = \"generator\"\nip = {}\n", "port[0].source.ip", {"4", "6", "5", "7"}},
    // On a 400 G port, so that the rates the flags take fit the line (a file's port checks that too).
    {"--rate-pps", "[[port]]\nspeed = 400\n[port.source]\ntype = \"generator\"\nrate_pps = {}\n",
     "port[0].source.rate_pps", {"1", "1e8", "0", "-5", "2e12", "x"}},
    {"--rate-gbps", "[[port]]\nspeed = 400\n[port.source]\ntype = \"generator\"\nrate_gbps = {}\n",
     "port[0].source.rate_gbps", {"0.5", "400", "0", "401"}},
    {"--nic-threads", "[nic]\nthreads = {}\n[[port]]\n", "nic.threads", {"1", "64", "0", "65"}},
    {"--driver-threads", "[driver]\nthreads = {}\n[[port]]\n", "driver.threads", {"0", "64", "65", "-1"}},
    {"--idle", "[threads]\nidle = {}\n[[port]]\n", "threads.idle", {"auto", "spin", "backoff", "sleep"}},
    {"--idle-sleep-us-max", "[threads]\nidle_sleep_us_max = {}\n[[port]]\n", "threads.idle_sleep_us_max",
     {"1", "100000", "0", "100001"}},
    // Lists that are no bare number: a config file writes a list as a string, "3" too.
    {"--cpus", "[threads]\ncpus = {}\n[[port]]\n", "threads.cpus", {"0-1", "2-7,10", "3-1", "1,1", "x", "1-2-3", "9999-9999"}},
    {"--control-cpus", "[threads]\ncontrol_cpus = {}\n[[port]]\n", "threads.control_cpus", {"0-0", "0,1", "1,,2"}},
};
const std::vector<Option> kBenchOnly = {
    {"--rx-ring", "[driver]\nrx_ring = {}\n[[port]]\n", "driver.rx_ring", {"8", "32768", "0", "32776", "x"}},
    {"--tx-ring", "[driver]\ntx_ring = {}\n[[port]]\n", "driver.tx_ring", {"8", "32768", "0", "32776"}},
    {"--burst", "[driver]\nburst = {}\n[[port]]\n", "driver.burst", {"1", "1024", "0", "1025"}},
    {"--rx-tail-batch", "[driver]\nrx_tail_batch = {}\n[[port]]\n", "driver.rx_tail_batch", {"1", "4096", "0", "4097"}},
    {"--tx-tail-batch", "[driver]\ntx_tail_batch = {}\n[[port]]\n", "driver.tx_tail_batch", {"1", "4096", "0", "4097"}},
    {"--tail-timeout-ns", "[driver]\ntail_timeout_ns = {}\n[[port]]\n", "driver.tail_timeout_ns",
     {"1", "1000000000", "0", "1000000001"}},
    {"--tx-completion", "[driver]\ntx_completion = {}\n[[port]]\n", "driver.tx_completion", {"none", "head", "never"}},
    {"--tx-full", "[driver]\ntx_full = {}\n[[port]]\n", "driver.tx_full", {"drop", "wait", "block"}},
    {"--staged-mode", "[driver]\nstaged_mode = {}\n[[port]]\n", "driver.staged_mode", {"copy", "fast"}},
    {"--staged-depth", "[driver]\nstaged_depth = {}\n[[port]]\n", "driver.staged_depth", {"1", "64", "0", "65"}},
    {"--one-way", "[driver]\none_way = {}\n[[port]]\n", "driver.one_way", {"off", "tx", "both"}},
};
const std::vector<Option> kRunOnly = {
    {"--duration", "duration = {}\n[[port]]\n", "duration", {"0", "2.5", "1e6", "-1", "1e7"}},
    {"--count", "[[port]]\n[port.source]\ntype = \"generator\"\ncount = {}\n", "port[0].source.count", {"0", "-1", "x"}},
    {"--timing", "[[port]]\n[port.source]\ntype = \"pcap\"\nfile = \"in.pcap\"\ntiming = {}\n", "port[0].source.timing",
     {"max", "original", "fast"}},
};

template <typename Flags>
void expect_same_answers(void (*add)(CLI::App&, Flags&), const std::vector<Option>& options) {
  for (const Option& o : options) {
    for (const std::string& value : o.values) {
      SCOPED_TRACE(fmt::format("{} {}", o.flag, value));
      EXPECT_EQ(flag_problem(add, o, value), file_problem(o, value));
    }
  }
}

}  // namespace

TEST(ConfigFlags, BenchFlagsRefuseWhatTheirConfigKeysRefuseInTheSameWords) {
  expect_same_answers(app::add_bench_options, kShared);
  expect_same_answers(app::add_bench_options, kBenchOnly);
}

TEST(ConfigFlags, RunFlagsRefuseWhatTheirConfigKeysRefuseInTheSameWords) {
  expect_same_answers(app::add_run_options, kShared);
  expect_same_answers(app::add_run_options, kRunOnly);
}

TEST(ConfigFlags, TheAnswersDifferWhereTheyShould) {
  // The test above is not comparing two empty strings.
  EXPECT_EQ(file_problem(kShared[2], "65"), "65 is out of range [1, 64]");
  EXPECT_EQ(flag_problem(app::add_bench_options, kShared[2], "65"), "65 is out of range [1, 64]");
  EXPECT_EQ(flag_problem(app::add_run_options, kShared[1], "11"),
            "supported speeds are 10, 25, 40, 100, 200 and 400 (Gbit/s)");
  EXPECT_EQ(flag_problem(app::add_bench_options, kShared[6], "0"), "0 is out of range (0, 1000000000000]");
  EXPECT_EQ(flag_problem(app::add_bench_options, kShared[1], "x"), "expected an integer");
}

TEST(ConfigFlags, ARingSizeOffItsStepIsRefusedByOneRuleSaidOfTheLineOrOfTheTypedValue) {
  const Option& rx_ring = kBenchOnly[0];
  const char* why = "(the ring length in bytes is a multiple of 128)";
  EXPECT_EQ(file_problem(rx_ring, "100"), fmt::format("must be a multiple of 8 {}", why));
  EXPECT_EQ(flag_problem(app::add_bench_options, rx_ring, "100"), fmt::format("100 is not a multiple of 8 {}", why));
  EXPECT_EQ(file_problem(rx_ring, "100"), ctl::rule::kRingSize.problem(100, ctl::Given::InFile));
  EXPECT_EQ(flag_problem(app::add_bench_options, rx_ring, "100"), ctl::rule::kRingSize.problem(100, ctl::Given::AsFlag));
}

TEST(ConfigFlags, RunFlagsAndAConfigFileStartFromTheSameDefaults) {
  Command<app::RunFlags> run(app::add_run_options, "--gen");
  ctl::Config flags = app::config_from_flags(run.flags);
  ctl::Config file = ctl::parse_config("[[port]]\n[port.source]\ntype = \"generator\"\n", "test.toml");
  const nic::PortOptions &a = flags.ports.at(0).nic, &b = file.ports.at(0).nic;
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.mac, b.mac);
  EXPECT_EQ(std::tie(a.speed_gbps, a.rx_queues, a.tx_queues, a.rx_buffer_bytes, a.tx_buffer_bytes, a.max_frame_bytes,
                     a.flow_control),
            std::tie(b.speed_gbps, b.rx_queues, b.tx_queues, b.rx_buffer_bytes, b.tx_buffer_bytes, b.max_frame_bytes,
                     b.flow_control));
  const wire::GeneratorOptions &g = flags.ports[0].source.generator, &h = file.ports[0].source.generator;
  EXPECT_EQ(std::tie(g.ip_version, g.sizes, g.imix, g.flows, g.rate_pps, g.rate_gbps_l1, g.line_gbps, g.count),
            std::tie(h.ip_version, h.sizes, h.imix, h.flows, h.rate_pps, h.rate_gbps_l1, h.line_gbps, h.count));
  EXPECT_EQ(std::tie(flags.path, flags.duration_s, flags.nic_threads),
            std::tie(file.path, file.duration_s, file.nic_threads));
  std::vector<uint64_t> counts_a, counts_b;
  ctl::for_each_driver_count(flags, [&](const char*, const ctl::IntRule&, auto value) { counts_a.push_back(value); });
  ctl::for_each_driver_count(file, [&](const char*, const ctl::IntRule&, auto value) { counts_b.push_back(value); });
  EXPECT_EQ(counts_a, counts_b);
}

TEST(ConfigFlags, ABenchFlagOverridesItsKeyInTheConfigFileAndNothingElse) {
  std::string path = testing::TempDir() + "gnf-config-flags.toml";
  std::ofstream(path) << "[driver]\nrx_ring = 1024\nburst = 64\n[[port]]\nspeed = 25\nqueues = 2\n"
                         "[[port]]\nspeed = 25\nqueues = 2\n[[nf]]\ntype = \"l2fwd\"\n";
  Command<app::BenchFlags> bench(app::add_bench_options, "--config " + path + " --burst 16 --queues 4");
  ctl::Config c = app::trial_from_flags(bench.flags).config;
  EXPECT_EQ(c.driver.rx_ring_size, 1024u);
  EXPECT_EQ(c.driver.burst, 16u);
  for (const ctl::PortSpec& port : c.ports) {
    EXPECT_EQ(port.nic.speed_gbps, 25u);
    EXPECT_EQ(port.nic.rx_queues, 4u);
    EXPECT_EQ(port.nic.rss.reta[3], 3);  // RSS spreads over the queues the flag gave
  }
}

TEST(ConfigFlags, AFlagThatBreaksARuleAcrossKeysIsNamed) {
  std::string path = testing::TempDir() + "gnf-config-pool.toml";
  std::ofstream(path) << "[driver]\nrx_ring = 64\npool_slots = 80\n[[port]]\n[[port]]\n[[nf]]\ntype = \"l2fwd\"\n";
  Command<app::BenchFlags> bench(app::add_bench_options, "--config " + path + " --rx-ring 80");
  try {
    app::trial_from_flags(bench.flags);
    FAIL() << "an rx ring as large as the pool was taken";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "--rx-ring: must be smaller than driver.pool_slots (80): each received packet is replaced "
                           "by a free slot");
  }
}
