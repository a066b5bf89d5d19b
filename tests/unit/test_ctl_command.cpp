// The control socket's commands (app/ctl_command.h): what `gnf ctl` may ask, and the answers over a
// snapshot, with `clear counters` as a baseline the answers subtract.
#include <gtest/gtest.h>

#include "app/ctl_command.h"
#include "util/error.h"

namespace gnf::app {
namespace {

// A target whose counters `snapshot` reads, without tables or ports.
CtlTarget target_reading(std::function<path::Snapshot()> snapshot) {
  CtlTarget target;
  target.snapshot = std::move(snapshot);
  return target;
}

TEST(CtlCommand, EachCommandParsesFromItsWordsWithOrWithoutJson) {
  EXPECT_EQ(parse_ctl_request("show ports").command, CtlCommand::ShowPorts);
  EXPECT_EQ(parse_ctl_request("show queues").command, CtlCommand::ShowQueues);
  EXPECT_EQ(parse_ctl_request("show nf").command, CtlCommand::ShowNf);
  EXPECT_EQ(parse_ctl_request("  show   runtime ").command, CtlCommand::ShowRuntime);
  EXPECT_EQ(parse_ctl_request("clear counters").command, CtlCommand::ClearCounters);
  EXPECT_FALSE(parse_ctl_request("show ports").json);
  const CtlRequest request = parse_ctl_request(std::vector<std::string>{"show", "--json", "runtime"});
  EXPECT_EQ(request.command, CtlCommand::ShowRuntime);
  EXPECT_TRUE(request.json);
}

TEST(CtlCommand, AnUnknownOrMissingCommandIsRefusedListingTheCommands) {
  for (const char* line : {"show port", "show ports now", "", "--json", "clear"}) {
    try {
      parse_ctl_request(line);
      FAIL() << "'" << line << "' was taken";
    } catch (const UserError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("show runtime"), std::string::npos) << what;
      EXPECT_NE(what.find("clear counters"), std::string::npos) << what;
    }
  }
}

TEST(CtlCommand, TheLineAClientSendsParsesBackToItsRequest) {
  for (const char* line : {"show ports", "show queues", "show nf", "show runtime", "clear counters"}) {
    for (bool json : {false, true}) {
      const CtlRequest request = parse_ctl_request(std::string(line) + (json ? " --json" : ""));
      EXPECT_EQ(ctl_request_line(request), std::string(line) + (json ? " --json" : ""));
      const CtlRequest again = parse_ctl_request(ctl_request_line(request));
      EXPECT_EQ(again.command, request.command) << line;
      EXPECT_EQ(again.json, json) << line;
    }
  }
  EXPECT_EQ(ctl_request_line(parse_ctl_request(std::vector<std::string>{"--json", "show", "nf"})), "show nf --json");
}

// The server's reply is JSON, and JSON holds UTF-8 only: a request of other bytes (or a NUL, which
// would end the message early) is quoted as \xNN, and the reply says what was wrong.
TEST(CtlCommand, ARequestOfAnyBytesGetsAJsonReplyQuotingIt) {
  path::Snapshot baseline;
  bool read = false;
  const auto snapshot = [&] {
    read = true;
    return path::Snapshot{};
  };
  const std::string line("show \xff\xfe ports\0\x1b[2J", 18);
  const nlohmann::json reply = nlohmann::json::parse(ctl_reply(line, target_reading(snapshot), baseline));
  EXPECT_FALSE(reply["ok"].get<bool>());
  const std::string error = reply["error"].get<std::string>();
  EXPECT_EQ(error.rfind("'show \\xff\\xfe ports\\x00\\x1b[2J' is not a command; the commands are:\n", 0), 0u) << error;
  EXPECT_NE(error.find("clear counters"), std::string::npos) << error;
  EXPECT_FALSE(read) << "counters read for a request that is none";

  const nlohmann::json answer = nlohmann::json::parse(ctl_reply("show nf --json", target_reading(snapshot), baseline));
  EXPECT_TRUE(answer["ok"].get<bool>());
  EXPECT_TRUE(answer["json"].is_array());
  EXPECT_TRUE(read);
}

// A target whose counters are `s`, without tables or ports.
CtlTarget target_of(const path::Snapshot& s) { return target_reading([s] { return s; }); }

path::Snapshot counted(uint64_t rx, uint64_t calls, uint64_t packets) {
  path::Snapshot s;
  path::PortStats port;
  port.name = "port0";
  port.rx_good_packets = rx;
  port.rx_missed = rx / 10;
  port.wire_lag_max_ns = 5000;
  port.rx_queue_packets = {rx / 2, rx - rx / 2};
  port.rx_queue_drops = {0, 1};
  port.tx_queue_packets = {rx, 0};
  s.ports.push_back(port);
  path::NfStats nf{"l2fwd", {{"forwarded", rx}, {"malformed", 0}}, std::nullopt, nf::NfRuntime{calls, packets}};
  s.nfs.push_back(nf);
  return s;
}

TEST(CtlCommand, ShowPortsNamesTheCountersAsTheSummaryDoesAndDropsApart) {
  path::Snapshot baseline;
  const nlohmann::json answer = answer_ctl_request(parse_ctl_request("show ports"), target_of(counted(1000, 0, 0)), baseline);
  const nlohmann::json& port = answer["json"][0];
  EXPECT_EQ(port["name"], "port0");
  EXPECT_EQ(port["rx_packets"], 1000);
  EXPECT_EQ(port["drops"]["rx_missed"], 100);
  EXPECT_FALSE(port.contains("wire_lag_max_ns"));  // a model diagnostic, not a port counter
  EXPECT_NE(answer["text"].get<std::string>().find("rx_packets"), std::string::npos);
}

TEST(CtlCommand, ShowRuntimeGivesCallsPacketsAndPacketsPerCall) {
  path::Snapshot baseline;
  const nlohmann::json answer = answer_ctl_request(parse_ctl_request("show runtime"), target_of(counted(320, 10, 320)), baseline);
  EXPECT_TRUE(answer["json"]["counted"].get<bool>());
  const nlohmann::json& element = answer["json"]["elements"][0];
  EXPECT_EQ(element["type"], "l2fwd");
  EXPECT_EQ(element["calls"], 10);
  EXPECT_EQ(element["packets"], 320);
  EXPECT_DOUBLE_EQ(element["packets_per_call"].get<double>(), 32.0);
  EXPECT_NE(answer["text"].get<std::string>().find("nf[0] l2fwd"), std::string::npos);
}

TEST(CtlCommand, RuntimeThatNoDriverCountedSaysSo) {
  path::Snapshot s = counted(320, 0, 0), baseline;
  s.nfs[0].runtime.reset();
  const nlohmann::json answer = answer_ctl_request(parse_ctl_request("show runtime"), target_of(s), baseline);
  EXPECT_FALSE(answer["json"]["counted"].get<bool>());
  EXPECT_NE(answer["text"].get<std::string>().find("not counted"), std::string::npos);
}

TEST(CtlCommand, ClearCountersMakesLaterAnswersCountFromItWithoutTouchingTheSnapshot) {
  path::Snapshot baseline;
  answer_ctl_request(parse_ctl_request("clear counters"), target_of(counted(1000, 40, 1000)), baseline);
  const path::Snapshot now = counted(1500, 50, 1320);
  const nlohmann::json ports = answer_ctl_request(parse_ctl_request("show ports"), target_of(now), baseline)["json"];
  EXPECT_EQ(ports[0]["rx_packets"], 500);
  EXPECT_EQ(ports[0]["drops"]["rx_missed"], 50);
  const nlohmann::json queues = answer_ctl_request(parse_ctl_request("show queues"), target_of(now), baseline)["json"];
  EXPECT_EQ(queues[0]["rx_queue_packets"], nlohmann::json({250, 250}));
  EXPECT_EQ(queues[0]["rx_queue_drops"], nlohmann::json({0, 0}));
  const nlohmann::json nfs = answer_ctl_request(parse_ctl_request("show nf"), target_of(now), baseline)["json"];
  EXPECT_EQ(nfs[0]["counters"]["forwarded"], 500);
  const nlohmann::json runtime = answer_ctl_request(parse_ctl_request("show runtime"), target_of(now), baseline)["json"];
  EXPECT_EQ(runtime["elements"][0]["calls"], 10);
  EXPECT_EQ(runtime["elements"][0]["packets"], 320);
  EXPECT_EQ(now.ports[0].rx_good_packets, 1500u);
  EXPECT_EQ(now.since(baseline).ports[0].wire_lag_max_ns, 5000u);  // a maximum is not a count
}

}  // namespace
}  // namespace gnf::app
