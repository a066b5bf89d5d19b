// The control socket's commands that change a running gnf (app/ctl_actions.h): their arguments as
// the parser checks them, and routes added, listed and removed on a real router.
#include <gtest/gtest.h>

#include "app/ctl_command.h"
#include "nf/l3fwd/router.h"
#include "util/error.h"

namespace gnf::app {
namespace {

std::string refusal(const std::string& line) {
  try {
    parse_ctl_request(line);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(CtlActions, CommandsWithArgumentsKeepThemAndTheirLineParsesBack) {
  for (const char* line : {"show route", "show route 10.0.1.7", "show route 2001:db8::/32",
                           "route add 10.9.0.0/16 via 10.0.1.2", "route add 10.9.0.0/16 via 10.0.1.2 port 1",
                           "route add 198.18.0.0/15 port 0", "route add 10.66.0.0/16 blackhole", "route del 10.9.0.0/16",
                           "reload", "reload nf 2", "reload acl", "acl reload", "sa reload",
                           "pcap start port0 /tmp/a.pcap", "pcap start 1 /tmp/a.pcap tx max 10", "pcap stop port0"}) {
    const CtlRequest request = parse_ctl_request(std::string(line) + " --json");
    EXPECT_TRUE(request.json) << line;
    EXPECT_EQ(ctl_request_line(request), std::string(line) + " --json");
  }
  const CtlRequest request = parse_ctl_request("route add 10.9.0.0/16 via 10.0.1.2 port 1");
  EXPECT_EQ(request.command, CtlCommand::RouteAdd);
  EXPECT_EQ(request.args, (std::vector<std::string>{"10.9.0.0/16", "via", "10.0.1.2", "port", "1"}));
}

TEST(CtlActions, BadArgumentsAreRefusedWithWhatIsWrongAndTheUsage) {
  EXPECT_NE(refusal("route add 10.9.0.0/33 via 10.0.1.2").find("'10.9.0.0/33' is not a prefix"), std::string::npos);
  EXPECT_NE(refusal("route add 10.9.0.1/16 via 10.0.1.2").find("bits set beyond its length: the network is 10.9.0.0/16"),
            std::string::npos);
  EXPECT_NE(refusal("route add 10.9.0.0/16 via 2001:db8::1").find("not an IPv4 gateway"), std::string::npos);
  EXPECT_NE(refusal("route add 10.9.0.0/16").find("usage: route add PREFIX"), std::string::npos);
  EXPECT_NE(refusal("route del").find("usage: route del PREFIX"), std::string::npos);
  EXPECT_NE(refusal("show route nowhere").find("'nowhere' is no IPv4 or IPv6 address"), std::string::npos);
  EXPECT_NE(refusal("reload frobnicator").find("'frobnicator' is not an NF type"), std::string::npos);
  EXPECT_NE(refusal("acl reload now").find("acl reload takes no arguments"), std::string::npos);
  EXPECT_NE(refusal("pcap start port0").find("a port and a file"), std::string::npos);
  EXPECT_NE(refusal("pcap start port0 f max 0").find("'0' is not a number of frames"), std::string::npos);
  EXPECT_NE(refusal("pcap start port0 f\x01").find("arguments are printable ASCII"), std::string::npos);
}

class CtlRoutes : public ::testing::Test {
 protected:
  CtlRoutes() : router_(nf::RouterOptions{}, 2) {
    for (const auto& [port, text] : {std::pair<uint16_t, const char*>{0, "10.0.0.1/24"}, {1, "10.0.1.1/24"}}) {
      const auto [host, network] = *nf::parse_interface_address(text);
      router_.add_address(port, host, network);
    }
    target_.nfs = {{"acl", nullptr}, {"l3fwd", &router_}};
    target_.port_names = {"port0", "port1"};
  }
  nlohmann::json ask(const std::string& line) { return answer_ctl_request(parse_ctl_request(line), target_, baseline_); }
  std::string refused(const std::string& line) {
    try {
      ask(line);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }

  nf::Router router_;
  CtlTarget target_;
  path::Snapshot baseline_;
};

TEST_F(CtlRoutes, AnAddedRouteIsWhereTrafficGoesAndIsListedUntilRemoved) {
  const nlohmann::json added = ask("route add 10.9.0.0/16 via 10.0.1.2");
  EXPECT_EQ(added["json"]["added"]["line"], "10.9.0.0/16 via 10.0.1.2 dev port1");
  EXPECT_FALSE(added["json"]["replaced"].get<bool>());
  EXPECT_EQ(ask("show route 10.9.3.4")["json"]["line"], "10.9.3.4 via 10.0.1.2 dev port1");
  EXPECT_EQ(ask("show route 10.9.0.0/16")["json"]["route"]["via"], "10.0.1.2");
  const nlohmann::json listed = ask("show route")["json"];
  EXPECT_EQ(listed["ipv4_routes"], 5);  // two local, two connected, ours
  bool found = false;
  for (const auto& route : listed["routes"]) found |= route["prefix"] == "10.9.0.0/16";
  EXPECT_TRUE(found) << listed.dump();

  EXPECT_TRUE(ask("route add 10.9.0.0/16 blackhole")["json"]["replaced"].get<bool>());
  EXPECT_EQ(ask("show route 10.9.3.4")["json"]["type"], "blackhole");
  EXPECT_EQ(ask("route del 10.9.0.0/16")["json"]["removed"]["type"], "blackhole");
  EXPECT_EQ(ask("show route 10.9.3.4")["json"]["type"], "unreachable");
  EXPECT_FALSE(ask("show route 10.9.0.0/16")["json"]["found"].get<bool>());
}

TEST_F(CtlRoutes, ListingIsOrderedAndBounded) {
  for (int i = 0; i < 300; ++i) ask("route add 10.200." + std::to_string(i % 256) + "." + std::to_string(i / 256 * 128) + "/25 via 10.0.1.2");
  const nlohmann::json listed = ask("show route")["json"];
  EXPECT_EQ(listed["routes"].size(), 256u);
  EXPECT_EQ(listed["more"], 304 - 256);
  EXPECT_EQ(listed["routes"][0]["prefix"], "10.0.0.0/24");
  EXPECT_EQ(listed["routes"][1]["prefix"], "10.0.0.1/32");
}

TEST_F(CtlRoutes, WhatTheRouterCannotDoIsRefusedWithTheReason) {
  EXPECT_NE(refused("route del 10.77.0.0/16").find("no route 10.77.0.0/16"), std::string::npos);
  EXPECT_NE(refused("route add 10.9.0.0/16 via 10.5.0.2").find("in none of the ports' networks"), std::string::npos);
  EXPECT_NE(refused("route add 10.9.0.0/16 port 7").find("port 7 is none"), std::string::npos);
  target_.netlink_netns = "gnf-test";
  EXPECT_NE(refused("route add 10.9.0.0/16 via 10.0.1.2").find("netlink (namespace gnf-test)"), std::string::npos);
  target_.nfs = {{"acl", nullptr}};
  EXPECT_NE(refused("show route").find("no l3fwd"), std::string::npos);
}

TEST_F(CtlRoutes, ReloadSaysWhatEachElementDidAndRefusesWhatTheChainLacks) {
  // Neither element here has files: the router's routes are reloaded by nobody, the acl has none.
  const nlohmann::json all = ask("reload nf 1");
  EXPECT_EQ(all["json"]["elements"][0]["what"], "nothing to reload");
  EXPECT_NE(refused("reload nf 5").find("there is no nf[5]"), std::string::npos);
  EXPECT_NE(refused("sa reload").find("the NF chain has no ipsec"), std::string::npos);
  EXPECT_NE(refused("pcap stop port0").find("no ports to capture"), std::string::npos);
}

}  // namespace
}  // namespace gnf::app
