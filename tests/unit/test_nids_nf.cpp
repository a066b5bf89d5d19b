// The nids NF (nf/nids/nids.h, nids_rules.h) on the CPU through a chain: alert, drop and pass in
// Snort's action order; EVE and fast.log lines; per-rule hits and per-reason counters; malformed
// frames (truncated headers, no payload, 9000 bytes) counted, never a crash; the bounded alert
// ring losing records when full, counted; reload; configuration errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nf/chain.h"
#include "nf_frames.h"
#include "nf/l3fwd/ip_address.h"
#include "util/error.h"
#include "wire/bytes.h"

using namespace gnf::nf;
using gnf::UserError;

namespace {

std::string temp_file(const std::string& name, const std::string& text = "") {
  std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-nids-" + name;
  std::ofstream(path) << text;
  return path;
}

std::string read_all(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

constexpr const char* kRules =
    "alert tcp any any -> $HOME_NET 80 (msg:\"cmd.exe in GET\"; content:\"GET \"; depth:4; content:\"cmd.exe\"; "
    "nocase; distance:0; classtype:web-application-attack; priority:1; sid:1001; rev:2;)\n"
    "drop udp any any -> any 53 (msg:\"bad dns\"; content:\"|de ad|\"; sid:1002;)\n"
    "pass tcp 10.9.0.0/16 any -> any any (content:\"GET \"; sid:1003;)\n";

struct Nids {
  std::string eve = temp_file("eve.json"), fast = temp_file("fast.log");
  std::unique_ptr<NfChain> chain;
  NfCounters counters{};

  explicit Nids(const std::string& rules, int64_t queue = 1024) {
    Params p("test.toml", 1, "nf[0]");
    p.set("rules", ParamValue{temp_file("rules", rules), 0});
    p.set("eve_log", ParamValue{eve, 0});
    p.set("fast_log", ParamValue{fast, 0});
    p.set("alert_queue", ParamValue{queue, 0});
    p.set("HOME_NET", ParamValue{std::string("[10.0.0.0/8]"), 0});
    chain = std::make_unique<NfChain>(std::vector<NfSpec>{NfSpec{"nids", p}}, NfContext{});
  }
  Verdict run(std::vector<uint8_t> frame) {
    PacketRef ref{frame.data(), uint32_t(frame.size()), 0, 0, 0, Verdict::Forward, HostReason::Unspecified};
    PacketBatch batch{&ref, 1};
    run_chain(chain->view(), batch, &counters);
    return ref.verdict;
  }
  uint64_t counter(const std::string& name) const {
    const std::vector<std::string> names = chain->counter_names(0);
    return counters.value[std::find(names.begin(), names.end(), name) - names.begin()];
  }
  std::string eve_lines() {
    chain.reset();  // the writer writes what is queued and closes the files
    return read_all(eve);
  }
};

std::vector<uint8_t> ipv4(const char* src, const char* dst, uint8_t proto, uint16_t sport, uint16_t dport,
                          const std::string& payload) {
  return gnf::test::ipv4_frame(src, dst, proto, sport, dport, 0, proto == 6 ? 20 : 8, payload);
}

}  // namespace

TEST(NidsNf, AlertsDropsAndPassesInSnortsActionOrder) {
  Nids nids(kRules);
  EXPECT_EQ(nids.run(ipv4("198.18.0.1", "10.0.0.5", 6, 40000, 80, "GET /scripts/CMD.EXE HTTP/1.1")), Verdict::Forward);
  EXPECT_EQ(nids.run(ipv4("198.18.0.1", "10.0.0.5", 6, 40000, 80, "xGET /cmd.exe")), Verdict::Forward);  // depth 4
  EXPECT_EQ(nids.run(ipv4("198.18.0.1", "198.19.0.1", 17, 5353, 53, "\xde\xad")), Verdict::Drop);
  EXPECT_EQ(nids.run(ipv4("10.9.1.1", "10.0.0.5", 6, 40000, 80, "GET /cmd.exe")), Verdict::Forward);  // pass wins
  EXPECT_EQ(nids.counter("alerted"), 1u);
  EXPECT_EQ(nids.counter("dropped"), 1u);
  EXPECT_EQ(nids.counter("passed"), 1u);
  EXPECT_EQ(nids.counter("clean"), 1u);
  EXPECT_EQ(nids.counter("alerts"), 2u);
  const NfTableStats stats = *nids.chain->tables(0)->table_stats();
  ASSERT_EQ(stats.entries.size(), 3u);
  EXPECT_EQ(stats.entries[0].counters[1], (std::pair<std::string, uint64_t>{"hits", 2}));  // the passed packet too
  EXPECT_EQ(stats.entries[1].action, "drop");

  const std::string fast_path = nids.fast;
  const std::string eve = nids.eve_lines();
  const size_t first_end = eve.find('\n');
  ASSERT_NE(first_end, std::string::npos);
  const std::string first = eve.substr(0, first_end);
  EXPECT_NE(first.find("\"event_type\":\"alert\",\"src_ip\":\"198.18.0.1\",\"src_port\":40000,\"dest_ip\":\"10.0.0.5\","
                       "\"dest_port\":80,\"proto\":\"TCP\",\"alert\":{\"action\":\"allowed\",\"gid\":1,"
                       "\"signature_id\":1001,\"rev\":2,\"signature\":\"cmd.exe in GET\","
                       "\"category\":\"web-application-attack\",\"severity\":1}}"),
            std::string::npos)
      << first;
  EXPECT_NE(eve.find("\"action\":\"blocked\",\"gid\":1,\"signature_id\":1002"), std::string::npos) << eve;
  EXPECT_EQ(std::count(eve.begin(), eve.end(), '\n'), 2);
  const std::string fast = read_all(fast_path);
  EXPECT_NE(fast.find("  [**] [1:1001:2] cmd.exe in GET [**] [Classification: web-application-attack] [Priority: 1] "
                      "{TCP} 198.18.0.1:40000 -> 10.0.0.5:80\n"),
            std::string::npos)
      << fast;
  EXPECT_NE(fast.find("[Drop] [**] [1:1002:0] bad dns"), std::string::npos) << fast;
}

TEST(NidsNf, MalformedAndOddFramesAreCountedNeverInspectedPastTheirEnd) {
  Nids nids("alert ip any any -> any any (content:\"zz\"; sid:1;)\n");
  std::vector<uint8_t> truncated_tcp = ipv4("1.1.1.1", "2.2.2.2", 6, 1, 2, "");
  truncated_tcp.resize(14 + 20 + 10);
  gnf::wire::store_be16(&truncated_tcp[16], 30);  // IP says 30 bytes: 10 of a 20-byte TCP header
  EXPECT_EQ(nids.run(truncated_tcp), Verdict::Forward);
  EXPECT_EQ(nids.run(std::vector<uint8_t>(10, 0)), Verdict::Forward);  // shorter than Ethernet
  std::vector<uint8_t> short_ip = ipv4("1.1.1.1", "2.2.2.2", 17, 1, 2, "zz");
  short_ip.resize(30);
  EXPECT_EQ(nids.run(short_ip), Verdict::Forward);
  EXPECT_EQ(nids.counter("malformed"), 3u);
  std::vector<uint8_t> arp(60, 0);
  gnf::wire::store_be16(&arp[12], 0x0806);
  nids.run(arp);
  EXPECT_EQ(nids.counter("not_ip"), 1u);
  nids.run(ipv4("1.1.1.1", "2.2.2.2", 17, 1, 2, ""));  // no payload
  nids.run(ipv4("1.1.1.1", "2.2.2.2", 17, 1, 2, std::string(8958, 'a') + "zz"));  // 9000-byte frame
  EXPECT_EQ(nids.counter("clean"), 1u);
  EXPECT_EQ(nids.counter("alerted"), 1u);
}

TEST(NidsNf, AFullAlertRingLosesRecordsCountedNeverWaits) {
  Nids nids("alert ip any any -> any any (content:\"x\"; sid:1;)\n", 2);
  // The writer may drain between packets; 2000 packets into a ring of two lose some.
  for (int i = 0; i < 2000; ++i) nids.run(ipv4("1.1.1.1", "2.2.2.2", 17, 1, 2, "x"));
  EXPECT_EQ(nids.counter("alerts") + nids.counter("alerts_lost"), 2000u);
  EXPECT_GT(nids.counter("alerts_lost"), 0u);
  const uint64_t kept = nids.counter("alerts");
  const std::string eve = nids.eve_lines();
  EXPECT_EQ(uint64_t(std::count(eve.begin(), eve.end(), '\n')), kept);
}

TEST(NidsNf, ReloadReplacesTheRulesAndRefusesABadFileKeepingTheOld) {
  Nids nids(kRules);
  const std::string rules_path = temp_file("rules");
  std::ofstream(rules_path) << "alert udp any any -> any any (msg:\"new\"; content:\"new\"; sid:5;)\n";
  NfChain::Reload done = nids.chain->reload().at(0);
  EXPECT_TRUE(done.done) << done.what;
  EXPECT_NE(done.what.find("1 rules (0 skipped)"), std::string::npos) << done.what;
  nids.run(ipv4("1.1.1.1", "2.2.2.2", 17, 1, 2, "new"));
  std::ofstream(rules_path) << "alert udp any any -> any any (content:\"x\"; bogus; sid:6;)\n";
  done = nids.chain->reload().at(0);
  EXPECT_FALSE(done.done);
  EXPECT_NE(done.what.find(":1: bogus: not supported"), std::string::npos) << done.what;
  nids.run(ipv4("1.1.1.1", "2.2.2.2", 17, 1, 2, "new"));
  EXPECT_EQ(nids.counter("alerted"), 2u);
  EXPECT_NE(nids.eve_lines().find("\"signature\":\"new\""), std::string::npos);
}

TEST(NidsNf, ConfigurationErrorsAreRefused) {
  auto configure = [](const std::string& key, ParamValue value) {
    Params p("test.toml", 3, "nf[0]");
    p.set("rules", ParamValue{temp_file("rules", kRules), 0});
    p.set(key, value);
    try {
      NfChain({NfSpec{"nids", p}}, NfContext{});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(configure("unsupported", ParamValue{std::string("ignore"), 0}).find("'ignore' is not one of: refuse, skip"),
            std::string::npos);
  EXPECT_NE(configure("HOME_NET", ParamValue{int64_t(1), 0}).find("expected a string"), std::string::npos);
  EXPECT_NE(configure("rulez", ParamValue{std::string("x"), 0}).find("rulez"), std::string::npos);
  EXPECT_NE(configure("EXTERNAL_NET", ParamValue{std::string("any"), 0}).find("$HOME_NET is not defined"),
            std::string::npos);
}
