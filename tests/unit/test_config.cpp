#include <gtest/gtest.h>

#include "ctl/config.h"
#include "ctl/config_builder.h"
#include "util/error.h"
#include "util/memory_budget.h"

using namespace gnf;

namespace {

// The message of the UserError that parsing `text` throws, or "" if it parses.
std::string error_of(const std::string& text) {
  try {
    ctl::Config c = ctl::parse_config(text, "/etc/gnf/test.toml");
    ctl::validate(c);
    nf::NfContext context;
    context.ports = uint16_t(c.ports.size());
    nf::NfChain chain(c.nfs, context);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

const char* kValid = R"(
path = "cpu"
duration = 2.5

[driver]
rx_ring = 1024
burst = 64
tx_completion = "head"

[[port]]
name = "wan"
speed = 100
queues = 4
rx_buffer_kib = 256
mac = "02:aa:bb:cc:dd:ee"
[port.source]
type = "generator"
size = [64, 1518]
flows = 16
rate_gbps = 40
[port.sink]
pcap = "out.pcap"

[[port]]
name = "lan"
speed = 100
queues = 4

[[nf]]
type = "l2fwd"
mode = "pairs"
mac = "swap"
)";

}  // namespace

TEST(Config, AValidFileFillsEveryLayersOptions) {
  ctl::Config c = ctl::parse_config(kValid, "/etc/gnf/test.toml");
  ctl::validate(c);
  ASSERT_EQ(c.ports.size(), 2u);
  EXPECT_EQ(c.duration_s, 2.5);
  EXPECT_EQ(c.driver.rx_ring_size, 1024u);
  EXPECT_EQ(c.driver.burst, 64u);
  EXPECT_EQ(c.driver.tx_completion, driver::TxCompletion::HeadRegister);
  const ctl::PortSpec& wan = c.ports[0];
  EXPECT_EQ(wan.nic.name, "wan");
  EXPECT_EQ(wan.nic.speed_gbps, 100u);
  EXPECT_EQ(wan.nic.rx_queues, 4u);
  EXPECT_EQ(wan.nic.rx_buffer_bytes, 256u * 1024);
  EXPECT_EQ(wan.nic.mac[1], 0xaa);
  EXPECT_EQ(wan.nic.rss.reta[5], 1);
  EXPECT_EQ(wan.source.kind, ctl::SourceSpec::Kind::Generator);
  EXPECT_EQ(wan.source.generator.sizes, (std::vector<uint32_t>{64, 1518}));
  EXPECT_EQ(wan.source.generator.line_gbps, 100);
  EXPECT_EQ(wan.sink.pcap_file, "/etc/gnf/out.pcap");  // relative to the config file
  ASSERT_EQ(c.nfs.size(), 1u);
  EXPECT_EQ(c.nfs[0].type, "l2fwd");
  EXPECT_EQ(error_of(kValid), "");
}

TEST(Config, AnUnknownKeyIsAnErrorNamingFileLineAndKey) {
  std::string text = "[[port]]\nspeed = 10\nqueus = 4\n";
  EXPECT_EQ(error_of(text), "/etc/gnf/test.toml:3: port[0].queus: unknown key");
}

TEST(Config, AnUnsupportedSpeedNamesTheKey) {
  EXPECT_EQ(error_of("[[port]]\n\nspeed = 11\n"),
            "/etc/gnf/test.toml:3: port[0].speed: supported speeds are 10, 25, 40, 100, 200 and 400 (Gbit/s)");
}

TEST(Config, AWrongTypeNamesTheKey) {
  EXPECT_EQ(error_of("[[port]]\nqueues = \"four\"\n"), "/etc/gnf/test.toml:2: port[0].queues: expected an integer");
}

// An integer a double cannot hold exactly is still a number: the rule judges it (it threw
// std::bad_optional_access, found by config_fuzz).
TEST(Config, AHugeIntegerWhereANumberGoesIsJudgedByItsRule) {
  const std::string message = error_of("duration = 8888888388888888888\n");
  EXPECT_EQ(message.rfind("/etc/gnf/test.toml:1: duration: ", 0), 0u) << message;
}

TEST(Config, ABadMacAddressIsRejected) {
  EXPECT_EQ(error_of("[[port]]\nmac = \"02:00:00:00:00\"\n"),
            "/etc/gnf/test.toml:2: port[0].mac: expected a MAC address like \"02:00:00:00:00:01\"");
}

TEST(Config, ASyntaxErrorNamesTheLine) {
  std::string message = error_of("[[port]]\nspeed = = 10\n");
  EXPECT_EQ(message.rfind("/etc/gnf/test.toml:2: ", 0), 0u) << message;
}

TEST(Config, AnUnknownNfParameterNamesItsLine) {
  std::string text = "[[port]]\n[[nf]]\ntype = \"l2fwd\"\nmoed = \"reflect\"\n";
  EXPECT_EQ(error_of(text), "/etc/gnf/test.toml:4: nf[0].moed: unknown parameter");
}

TEST(Config, AnUnknownNfTypeIsRejected) {
  std::string text = "[[port]]\n[[nf]]\ntype = \"l9fwd\"\n";
  EXPECT_EQ(error_of(text), "/etc/gnf/test.toml:3: nf[0].type: unknown NF 'l9fwd' (known: acl, ether_filter, ipsec, l2fwd, l3fwd, nids)");
}

TEST(Config, ABadNfChoiceListsTheAllowedValues) {
  std::string text = "[[port]]\n[[nf]]\ntype = \"l2fwd\"\nmac = \"flip\"\n";
  EXPECT_EQ(error_of(text), "/etc/gnf/test.toml:4: nf[0].mac: 'flip' is not one of: none, swap, rewrite");
}

TEST(Config, PortsMustAgreeOnQueueCounts) {
  std::string text = "[[port]]\nqueues = 2\n[[port]]\nqueues = 4\n";
  EXPECT_NE(error_of(text).find("same number of rx and tx queues"), std::string::npos);
}

TEST(Config, APcapSourceNeedsAFile) {
  EXPECT_EQ(error_of("[[port]]\n[port.source]\ntype = \"pcap\"\n"),
            "/etc/gnf/test.toml:2: port[0].source.file: a pcap source needs a file");
}

TEST(Config, RingSizesMustBeMultiplesOfEight) {
  EXPECT_EQ(error_of("[driver]\nrx_ring = 100\n[[port]]\n"),
            "/etc/gnf/test.toml:2: driver.rx_ring: must be a multiple of 8 (the ring length in bytes is a multiple of 128)");
}

TEST(Config, APoolNoLargerThanTheRxRingIsRejected) {
  EXPECT_EQ(error_of("[driver]\nrx_ring = 64\npool_slots = 64\n[[port]]\n"),
            "/etc/gnf/test.toml:3: driver.pool_slots: must be larger than rx_ring (64): each received packet is "
            "replaced by a free slot");
  EXPECT_EQ(error_of("[driver]\nrx_ring = 64\npool_slots = 65\n[[port]]\n[[nf]]\ntype = \"l2fwd\"\n"), "");
}

// Slots are found by 32-bit offsets in their pool (driver::DriverOptions::pool_problem): a pool of
// 4 GiB is refused with the config's line, not once the data path starts.
TEST(Config, APoolOf4GiBOrMoreIsRejectedNamingTheKey) {
  if (!memory_problem(uint64_t(1) << 32, "a 4 GiB pool").empty())
    GTEST_SKIP() << "a 4 GiB pool is more than half of this machine's memory: that check comes first";
  // Slots of 2048 B + 128 B of headroom: 1973790 of them take 256 B less than 4 GiB.
  EXPECT_EQ(error_of("[driver]\npool_slots = 1973791\n[[port]]\n"),
            "/etc/gnf/test.toml:2: driver.pool_slots: a pool of 1973791 slots of 2176 B spans 4 GiB or more, and "
            "slots are found by 32-bit offsets in their pool: at most 1973790 slots of 2176 B");
  EXPECT_EQ(error_of("[driver]\npool_slots = 1973790\n[[port]]\n[[nf]]\ntype = \"l2fwd\"\n"), "");
}

TEST(Config, AMissingFileIsAClearError) {
  EXPECT_THROW(ctl::load_config("/nonexistent/gnf.toml"), UserError);
}

TEST(Config, APortLinkedToAnInterfaceGetsItsTypeNamespaceAndWhereItWasSaid) {
  ctl::Config c = ctl::parse_config(
      "[[port]]\nmax_frame = 9018\n[port.link]\ntype = \"af_xdp\"\ninterface = \"veth-ga\"\nnetns = \"ns1\"\n"
      "[[port]]\n[port.link]\ninterface = \"eth1\"\n",
      "/etc/gnf/test.toml");
  ASSERT_TRUE(c.ports[0].link);
  const wire::LinkOptions& a = c.ports[0].link->options;
  EXPECT_EQ(a.type, wire::LinkOptions::Type::AfXdp);
  EXPECT_EQ(a.interface, "veth-ga");
  EXPECT_EQ(a.netns, "ns1");
  EXPECT_EQ(a.max_frame_bytes, 9014u);  // the port's, without FCS: it sizes the ring slots
  EXPECT_EQ(c.ports[0].link->where, "/etc/gnf/test.toml:5: port[0].link");
  ASSERT_TRUE(c.ports[1].link);
  EXPECT_EQ(c.ports[1].link->options.type, wire::LinkOptions::Type::Auto);  // the default
  EXPECT_EQ(c.ports[1].link->options.netns, "");                           // gnf's own
  EXPECT_EQ(c.ports[1].source.kind, ctl::SourceSpec::Kind::None);
}

TEST(Config, APortCannotHaveBothALinkAndASourceOrSink) {
  std::string why = ": a port attached to an interface has it as both its source and its sink: drop [port.source] "
                    "and [port.sink], or [port.link]";
  EXPECT_EQ(error_of("[[port]]\n[port.source]\ntype = \"generator\"\n[port.link]\ninterface = \"veth0\"\n"),
            "/etc/gnf/test.toml:4: port[0].link" + why);
  EXPECT_EQ(error_of("[[port]]\n[port.link]\ninterface = \"veth0\"\n[port.sink]\npcap = \"out.pcap\"\n"),
            "/etc/gnf/test.toml:2: port[0].link" + why);
}

TEST(Config, ALinkNeedsAnInterfaceNameTheKernelWouldTake) {
  EXPECT_EQ(error_of("[[port]]\n[port.link]\ntype = \"af_packet\"\n"),
            "/etc/gnf/test.toml:2: port[0].link.interface: expected an interface name of 1 to 15 characters, e.g. "
            "\"veth0\"");
  EXPECT_NE(error_of("[[port]]\n[port.link]\ninterface = \"a-name-far-too-long\"\n").find("1 to 15 characters"),
            std::string::npos);
  EXPECT_EQ(error_of("[[port]]\n[port.link]\ninterface = \"veth0\"\ntype = \"netmap\"\n"),
            "/etc/gnf/test.toml:4: port[0].link.type: 'netmap' is not one of: auto, af_packet, af_xdp");
  EXPECT_EQ(error_of("[[port]]\n[port.link]\ninterface = \"veth0\"\nnetns = \"../x\"\n"),
            "/etc/gnf/test.toml:4: port[0].link.netns: expected the name of a namespace under /run/netns (as `ip "
            "netns add NAME` makes)");
  EXPECT_EQ(error_of("[[port]]\n[port.link]\ninterface = \"veth0\"\nqueue = 1\n"),
            "/etc/gnf/test.toml:4: port[0].link.queue: unknown key");
}

namespace {

// What validate() says of a one-port Config built in code ("" if nothing).
std::string validation_error(const ctl::Config& c) {
  try {
    ctl::validate(c);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

ctl::Config one_port_in_code() {
  ctl::Config c;
  c.ports.push_back(ctl::new_port(0));
  return c;
}

}  // namespace

TEST(Config, DriverOptionsSetInCodeAreHeldToTheRulesTheirKeysHave) {
  ctl::Config c = one_port_in_code();
  EXPECT_EQ(validation_error(c), "");
  c.driver.burst = driver::kMaxBurst + 1;
  EXPECT_EQ(validation_error(c), "<command line>: driver.burst: 1025 is out of range [1, 1024]");
  c = one_port_in_code();
  c.driver.rx_ring_size = 100;
  EXPECT_EQ(validation_error(c), "<command line>: driver.rx_ring: must be a multiple of 8 (the ring length in bytes "
                                 "is a multiple of 128)");
}

TEST(Config, OnTheBypassPathABurstMustBeShorterThanTheRxRing) {
  ctl::Config c = one_port_in_code();
  c.driver.rx_ring_size = c.driver.tx_ring_size = 32;
  c.driver.burst = 32;
  EXPECT_EQ(validation_error(c), "");  // the cpu path takes what the ring holds
  c.path = ctl::PathKind::Bypass;
  EXPECT_EQ(validation_error(c), "<command line>: driver.burst: must be smaller than driver.rx_ring (32) on the bypass "
                                 "path (a burst polls that many descriptors)");
  c.driver.burst = 31;
  EXPECT_EQ(validation_error(c), "");
}

TEST(Config, ErrorsAcrossFieldsNameTheLineOfTheKeyGiven) {
  const ctl::Config c = ctl::parse_config("[driver]\nslot_size = 2048\n\n[[port]]\nmax_frame = 4000\n", "f.toml");
  EXPECT_EQ(validation_error(c), "f.toml:5: port[0].max_frame: 4000 B does not fit in driver.slot_size (2048 B)");
  // A default named by its key, without a line; an origin noted by a flag wins.
  EXPECT_EQ(ctl::where(c, "driver.burst"), "f.toml: driver.burst");
  ctl::Config flagged = c;
  flagged.origins.note("port[0].max_frame", "--max-frame");
  EXPECT_EQ(validation_error(flagged), "--max-frame: 4000 B does not fit in driver.slot_size (2048 B)");
}

TEST(Config, KeysInsideArraysOfTablesAndSubTablesHaveTheirLines) {
  const ctl::Config c = ctl::parse_config(
      "[[port]]\nname = \"a\"\n[port.sink]\npcap = \"x.pcap\"\n[[port]]\nname = \"a\"\n[[nf]]\ntype = \"l2fwd\"\n", "g.toml");
  EXPECT_EQ(ctl::where(c, "port[0].sink.pcap"), "g.toml:4: port[0].sink.pcap");
  EXPECT_EQ(ctl::where(c, "nf[0].type"), "g.toml:8: nf[0].type");
  EXPECT_EQ(validation_error(c), "g.toml:6: port[1].name: 'a' is port 0's name too: ports are told apart by name");
}

TEST(Config, TheControlSocketAndTheMetricsAddressAreReadAndUnknownKeysThereRefused) {
  const std::string port = "[[port]]\n[[nf]]\ntype = \"l2fwd\"\n";
  ctl::Config c = ctl::parse_config(port + "[ctl]\nsocket = \"run/gnf.sock\"\n[metrics]\nlisten = \"127.0.0.1:9464\"\n",
                                    "/etc/gnf/test.toml");
  EXPECT_EQ(c.ctl_socket, "/etc/gnf/run/gnf.sock");  // relative to the config's folder, as every path
  EXPECT_EQ(c.metrics_listen, "127.0.0.1:9464");
  c = ctl::parse_config(port, "/etc/gnf/test.toml");
  EXPECT_EQ(c.ctl_socket, "");
  EXPECT_EQ(c.metrics_listen, "");
  EXPECT_NE(error_of(port + "[metrics]\nport = 9464\n").find("metrics.port"), std::string::npos);
}

TEST(Config, LocalDeliveryThroughATapIsReadAndNeedsNetlink) {
  const std::string router = "[[port]]\n[[nf]]\ntype = \"l3fwd\"\n";
  const std::string tap = "[router]\nlocal_delivery = \"tap\"\n";
  ctl::Config c = ctl::parse_config(router + "[netlink]\nnetns = \"ctl\"\n" + tap, "r.toml");
  EXPECT_TRUE(c.local_delivery_tap);
  EXPECT_EQ(validation_error(c), "");
  EXPECT_FALSE(ctl::parse_config(router, "r.toml").local_delivery_tap);  // "none" by default
  EXPECT_FALSE(ctl::parse_config(router + "[router]\nlocal_delivery = \"none\"\n", "r.toml").local_delivery_tap);
  // The kernel it hands to is the [netlink] namespace's: without one, the key and its line are named.
  c = ctl::parse_config(router + tap, "r.toml");
  EXPECT_EQ(validation_error(c).rfind("r.toml:5: router.local_delivery: \"tap\" hands the router's own traffic", 0), 0u)
      << validation_error(c);
  EXPECT_NE(error_of(router + "[router]\nlocal_delivery = \"tun\"\n").find("router.local_delivery"), std::string::npos);
  EXPECT_NE(error_of(router + "[router]\ndelivery = \"tap\"\n").find("router.delivery"), std::string::npos);
}
