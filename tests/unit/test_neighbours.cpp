// The router's neighbours against a hostile link (issue 12): permanent entries stay, ARP and ND teach
// only about on-link senders and only entries known or being resolved, the table is bounded and
// evicts learnt entries, next-hop and neighbour records are reused, and the slow path answers no
// multicast sender, no network or broadcast address, and no malformed solicitation.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include "ctl/frames.h"
#include "ctl/slow_path.h"
#include "nf/l3fwd/router.h"
#include "sync/readers.h"
#include "util/error.h"

using namespace gnf;
using ctl::Mac;
using ctl::SlowPath;
using nf::IpAddress;

namespace {

const Mac kPortMac[2] = {{0x02, 0, 0, 0, 0x01, 0}, {0x02, 0, 0, 0, 0x01, 1}};
const Mac kHostMac = {0x02, 0xaa, 0, 0, 0, 0x01};
const Mac kStaticMac = {0x02, 0xbb, 0, 0, 0, 0x02};
const Mac kAttackerMac = {0x02, 0xee, 0, 0, 0, 0x66};

IpAddress ip(const char* text) { return *nf::parse_ip_address(text); }

// A router with 10.0.0.1/24 + 2001:db8::1/64 on port 0 and 10.0.1.1/24 + 2001:db8:1::1/64 on port 1,
// its slow path, and what the slow path sent.
struct Link {
  explicit Link(const nf::RouterOptions& options = {})
      : router(options, 2),
        slow(router, view_of(router), nullptr, {kPortMac[0], kPortMac[1]}, [this](uint16_t port, const std::vector<uint8_t>& f) {
          sent.emplace_back(port, f);
          return true;
        }) {
    for (auto [port, text] : {std::pair{0, "10.0.0.1/24"}, {0, "2001:db8::1/64"}, {1, "10.0.1.1/24"}, {1, "2001:db8:1::1/64"}}) {
      auto parsed = *nf::parse_interface_address(text);
      router.add_address(uint16_t(port), parsed.first, parsed.second);
    }
  }

  static nf::L3FwdView view_of(const nf::Router& router) {
    nf::L3FwdView view{};
    view.tables = router.host_tables();
    for (int p = 0; p < 2; ++p) std::copy(kPortMac[p].begin(), kPortMac[p].end(), view.port_mac[p]);
    view.ports = 2;
    view.check_dst_mac = true;
    return view;
  }

  std::optional<Mac> neighbour(uint16_t port, const char* address) const {
    const IpAddress a = ip(address);
    Mac mac;
    if (!nf::neighbour_lookup(router.host_tables().neighbours, port, a.family, a.bytes, mac.data())) return std::nullopt;
    return mac;
  }

  uint64_t counter(SlowPath::Counter c) const { return slow.counters()[c]; }

  void arp(uint16_t port, uint16_t op, const Mac& sender_mac, const char* sender, const char* target,
           const Mac& eth_dst = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) {
    slow.handle(port, ctl::arp_frame(op, eth_dst, sender_mac, ip(sender), op == 2 ? kPortMac[port] : Mac{}, ip(target)),
                now);
  }

  // A neighbour solicitation (135) or advertisement (136) about `target` from `source`, with a
  // link-layer address option (source for NS, target for NA) of `option_length` units of 8 bytes.
  void nd(uint16_t port, uint8_t type, const Mac& mac, const char* source, const char* target, uint8_t option_length = 1,
          bool override_flag = true) {
    std::vector<uint8_t> message(32, 0);
    message[0] = type;
    if (type == 136 && override_flag) message[4] = 0x20;
    std::copy_n(ip(target).bytes, 16, &message[8]);
    message[24] = type == 135 ? 1 : 2;
    message[25] = option_length;
    std::copy(mac.begin(), mac.end(), &message[26]);
    const IpAddress router_address = ip(port == 0 ? "2001:db8::1" : "2001:db8:1::1");
    slow.handle(port, ctl::icmpv6_frame(kPortMac[port], mac, ip(source), router_address, std::move(message), 255), now);
  }

  // A UDP-less IPv4 packet (an echo request) from a host on port 0 to `destination`, routed by the
  // router: held when its next hop is not resolved.
  void send_through(const char* destination) {
    slow.handle(0, ctl::icmpv4_frame(kPortMac[0], kHostMac, ip("10.0.0.2"), ip(destination), std::vector<uint8_t>(16, 0)),
                now);
  }

  // Resolves `address` on port 1 as a host answering the router's ARP request with `mac`.
  void resolve(const char* address, const Mac& mac) {
    send_through(address);
    arp(1, 2, mac, address, "10.0.1.1", kPortMac[1]);
  }

  nf::Router router;
  std::vector<std::pair<uint16_t, std::vector<uint8_t>>> sent;
  SlowPath slow;
  uint64_t now = 1'000'000'000;
};

Mac numbered_mac(uint32_t i) { return {0x02, 0x10, uint8_t(i >> 16), uint8_t(i >> 8), uint8_t(i), 0x01}; }

}  // namespace

TEST(Neighbours, StaticEntriesSurviveArpRequestsRepliesAndUnsolicitedAdvertisements) {
  Link link;
  link.router.set_neighbour(1, ip("10.0.1.2"), kStaticMac);
  link.router.set_neighbour(1, ip("2001:db8:1::2"), kStaticMac);
  link.arp(1, 1, kAttackerMac, "10.0.1.2", "10.0.1.1");                // a request for the router
  link.arp(1, 2, kAttackerMac, "10.0.1.2", "10.0.1.1", kPortMac[1]);   // a reply to it
  link.arp(1, 2, kAttackerMac, "10.0.1.2", "10.0.1.2");                // gratuitous
  link.nd(1, 136, kAttackerMac, "2001:db8:1::2", "2001:db8:1::2");     // unsolicited advertisement
  link.nd(1, 135, kAttackerMac, "2001:db8:1::2", "2001:db8:1::1");     // solicitation for the router
  EXPECT_EQ(link.neighbour(1, "10.0.1.2"), kStaticMac);
  EXPECT_EQ(link.neighbour(1, "2001:db8:1::2"), kStaticMac);
  EXPECT_EQ(link.counter(SlowPath::kNeighboursRefused), 5u);
  EXPECT_EQ(link.counter(SlowPath::kNeighboursLearnt), 0u);
  // The router still answers the requests, and the control plane still changes the entries.
  EXPECT_EQ(link.counter(SlowPath::kArpReplies), 1u);
  EXPECT_EQ(link.counter(SlowPath::kNdAdvertisements), 1u);
  link.router.set_neighbour(1, ip("10.0.1.2"), kHostMac);
  EXPECT_EQ(link.neighbour(1, "10.0.1.2"), kHostMac);
}

TEST(Neighbours, OnlyOnLinkSendersOfEntriesBeingResolvedOrKnownAreLearnt) {
  Link link;
  link.arp(1, 1, kAttackerMac, "192.168.5.5", "10.0.1.1");             // outside every network
  link.arp(1, 1, kAttackerMac, "10.0.0.7", "10.0.1.1");                // the other port's network
  link.arp(1, 1, kAttackerMac, "10.0.1.255", "10.0.1.1");              // the network's broadcast
  link.arp(1, 1, kAttackerMac, "10.0.1.60", "10.0.1.1");               // on-link, but nobody asked
  link.arp(1, 2, kAttackerMac, "10.0.1.50", "10.0.1.1", kPortMac[1]);  // an answer nobody asked for
  link.nd(1, 136, kAttackerMac, "2001:db8:1::50", "2001:db8:1::50");   // unsolicited advertisement
  link.nd(1, 135, kAttackerMac, "2001:db8:77::5", "2001:db8:1::1");    // solicitation from off-link
  for (const char* a : {"192.168.5.5", "10.0.0.7", "10.0.1.255", "10.0.1.60", "10.0.1.50", "2001:db8:1::50",
                        "2001:db8:77::5"})
    EXPECT_FALSE(link.neighbour(1, a)) << a;
  EXPECT_EQ(link.router.usage().neighbours, 0u);
  EXPECT_EQ(link.counter(SlowPath::kNeighboursRefused), 7u);

  // Asked for, it is learnt, and the packet that waited for it leaves.
  link.resolve("10.0.1.50", kHostMac);
  EXPECT_EQ(link.neighbour(1, "10.0.1.50"), kHostMac);
  EXPECT_EQ(link.counter(SlowPath::kHeldForwarded), 1u);
  EXPECT_EQ(link.counter(SlowPath::kNeighboursLearnt), 1u);
  // Known, it follows the host's new MAC (a NIC replaced), from a request as from a reply.
  link.arp(1, 1, kAttackerMac, "10.0.1.50", "10.0.1.1");
  EXPECT_EQ(link.neighbour(1, "10.0.1.50"), kAttackerMac);
}

TEST(Neighbours, AFloodOfMadeUpSendersLeavesRoomForALaterNeighbour) {
  nf::RouterOptions options;
  options.neighbour_slots = 64;  // 48 neighbours at most
  options.neighbour_records = 64;
  Link link(options);
  for (uint32_t i = 0; i < 2000; ++i) {
    const std::string sender = "10.0.1." + std::to_string(2 + i % 250);
    link.arp(1, i % 2 ? 2 : 1, numbered_mac(i), sender.c_str(), "10.0.1.1", i % 2 ? kPortMac[1] : Mac{0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  }
  link.resolve("10.0.1.253", kHostMac);
  EXPECT_EQ(link.neighbour(1, "10.0.1.253"), kHostMac);
  EXPECT_EQ(link.counter(SlowPath::kHeldForwarded), 1u);
}

TEST(Neighbours, AFullTableEvictsTheLeastRecentlyConfirmedLearntEntryNeverAPermanentOne) {
  nf::RouterOptions options;
  options.neighbour_slots = 64;  // 48 neighbours at most
  options.neighbour_records = 64;
  Link link(options);
  for (uint32_t i = 0; i < 20; ++i)
    link.router.set_neighbour(1, ip(("10.0.1." + std::to_string(200 + i)).c_str()), kStaticMac);
  for (uint32_t i = 0; i < 150; ++i) {
    link.resolve(("10.0.1." + std::to_string(2 + i)).c_str(), numbered_mac(i));
    if (i > 0) link.arp(1, 2, kHostMac, "10.0.1.2", "10.0.1.1", kPortMac[1]);  // the first host keeps confirming
  }
  EXPECT_LE(link.router.usage().neighbours, 48u);
  EXPECT_EQ(link.counter(SlowPath::kHeldForwarded), 150u) << "every resolution found room";
  for (uint32_t i = 0; i < 20; ++i)
    EXPECT_EQ(link.neighbour(1, ("10.0.1." + std::to_string(200 + i)).c_str()), kStaticMac) << i;
  EXPECT_EQ(link.neighbour(1, "10.0.1.2"), kHostMac) << "a confirmed entry is not the oldest";
  EXPECT_EQ(link.neighbour(1, "10.0.1.151"), numbered_mac(149)) << "the newest stays";
  EXPECT_FALSE(link.neighbour(1, "10.0.1.3")) << "the oldest unconfirmed one went";
  // The control plane's entries are refused only when nothing learnt is left to evict.
  nf::RouterOptions tiny;
  tiny.neighbour_slots = 16;  // 12 neighbours at most
  nf::Router router(tiny, 2);
  for (uint32_t i = 0; i < 12; ++i) router.set_neighbour(1, IpAddress::from_ipv4(0x0a000100 + i), kStaticMac);
  EXPECT_THROW(router.set_neighbour(1, ip("10.0.1.99"), kStaticMac), UserError);
}

TEST(Neighbours, MacFlappingReusesNeighbourRecordsOnceTheirReadersHaveLeft) {
  nf::RouterOptions options;
  options.neighbour_records = 4;
  Link link(options);
  link.resolve("10.0.1.50", kHostMac);
  for (uint32_t i = 0; i < 1000; ++i) link.arp(1, 2, numbered_mac(i), "10.0.1.50", "10.0.1.1", kPortMac[1]);
  EXPECT_EQ(link.neighbour(1, "10.0.1.50"), numbered_mac(999));
  EXPECT_EQ(link.counter(SlowPath::kNeighboursLearnt), 1001u);
  EXPECT_EQ(link.router.usage().neighbour_records, 1u);

  // With readers, a record replaced while a burst may still read it waits for that burst to end.
  sync::ReaderRegistry readers(false);
  link.router.set_readers(&readers);
  sync::reader_enter(readers.slot(0));
  link.arp(1, 2, kHostMac, "10.0.1.50", "10.0.1.1", kPortMac[1]);
  link.arp(1, 2, kAttackerMac, "10.0.1.50", "10.0.1.1", kPortMac[1]);
  EXPECT_EQ(link.router.usage().neighbour_records, 3u) << "the two replaced ones wait";
  sync::reader_leave(readers.slot(0));
  for (uint32_t i = 0; i < 100; ++i) link.arp(1, 2, numbered_mac(i), "10.0.1.50", "10.0.1.1", kPortMac[1]);
  EXPECT_EQ(link.neighbour(1, "10.0.1.50"), numbered_mac(99));
  EXPECT_LE(link.router.usage().neighbour_records, 4u);
}

TEST(Neighbours, RouteChurnReusesNextHopRecords) {
  nf::RouterOptions options;
  options.next_hops = 8;  // the two ports' local and connected routes take three
  Link link(options);
  const uint32_t baseline = link.router.usage().next_hops;
  nf::RouteTarget via{nf::NextHopKind::Gateway, 1, {}};
  for (uint32_t i = 0; i < 200; ++i) {
    via.gateway = IpAddress::from_ipv4(0x0a000102 + i % 200);
    link.router.add_route(*nf::parse_ip_prefix("198.18.0.0/16"), via);  // replaces: the old gateway goes
    if (i % 3 == 0) link.router.remove_route(*nf::parse_ip_prefix("198.18.0.0/16"));
  }
  EXPECT_EQ(link.router.usage().next_hops, baseline + 1);
  EXPECT_EQ(link.router.usage().next_hop_records, baseline + 1);
  EXPECT_EQ(nf::route_get_line(link.router, ip("198.18.3.4"), {"west", "east"}), "198.18.3.4 via 10.0.1.201 dev east");
}

TEST(Neighbours, ArpFromAMulticastSenderMacIsNeitherAnsweredNorLearnt) {
  Link link;
  const Mac multicast = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
  link.send_through("10.0.1.50");  // being resolved: an answer would be taken
  link.sent.clear();
  link.arp(1, 1, multicast, "10.0.1.50", "10.0.1.1");
  link.arp(1, 2, multicast, "10.0.1.50", "10.0.1.1", kPortMac[1]);
  EXPECT_TRUE(link.sent.empty());
  EXPECT_FALSE(link.neighbour(1, "10.0.1.50"));
  EXPECT_EQ(link.counter(SlowPath::kArpReplies), 0u);
  link.arp(1, 1, kHostMac, "10.0.1.50", "10.0.1.1");
  EXPECT_EQ(link.counter(SlowPath::kArpReplies), 1u) << "a unicast sender is answered";
}

TEST(Neighbours, ArpForANetworksNetworkOrBroadcastAddressIsNotAnswered) {
  Link link;
  // An operator's slips: the router given a network's first and last address.
  link.router.add_address(1, ip("10.0.3.0"), *nf::parse_ip_prefix("10.0.3.0/24"));
  link.router.add_address(1, ip("10.0.4.255"), *nf::parse_ip_prefix("10.0.4.0/24"));
  for (const char* target : {"10.0.3.0", "10.0.4.255", "10.0.1.0", "10.0.1.255"})
    link.arp(1, 1, kHostMac, "10.0.1.2", target);
  EXPECT_TRUE(link.sent.empty());
  // A /31 (RFC 3021) has neither: both of its addresses are hosts.
  link.router.add_address(1, ip("10.0.5.0"), *nf::parse_ip_prefix("10.0.5.0/31"));
  link.arp(1, 1, kHostMac, "10.0.5.1", "10.0.5.0");
  EXPECT_EQ(link.counter(SlowPath::kArpReplies), 1u);
}

TEST(Neighbours, AnAdvertisementWithoutOverrideAnswersAResolutionButChangesNoKnownAddress) {
  Link link;
  // An IPv6 packet from port 0's host to 2001:db8:1::50 waits for the router's solicitation.
  link.slow.handle(0, ctl::icmpv6_frame(kPortMac[0], kHostMac, ip("2001:db8::2"), ip("2001:db8:1::50"),
                                        std::vector<uint8_t>(16, 0)),
                   link.now);
  EXPECT_EQ(link.counter(SlowPath::kHeld), 1u);
  link.nd(1, 136, kHostMac, "2001:db8:1::50", "2001:db8:1::50", 1, false);  // solicited, no override
  EXPECT_EQ(link.neighbour(1, "2001:db8:1::50"), kHostMac);
  // RFC 4861 7.2.5: known now, an advertisement without override keeps the address it has.
  link.nd(1, 136, kAttackerMac, "2001:db8:1::50", "2001:db8:1::50", 1, false);
  EXPECT_EQ(link.neighbour(1, "2001:db8:1::50"), kHostMac);
  link.nd(1, 136, kAttackerMac, "2001:db8:1::50", "2001:db8:1::50", 1, true);
  EXPECT_EQ(link.neighbour(1, "2001:db8:1::50"), kAttackerMac);
}

TEST(Neighbours, ASolicitationWithAZeroLengthOptionGetsNoAdvertisement) {
  Link link;
  link.nd(1, 135, kHostMac, "2001:db8:1::2", "2001:db8:1::1", 0);
  link.nd(1, 136, kHostMac, "2001:db8:1::2", "2001:db8:1::2", 0);
  EXPECT_TRUE(link.sent.empty());
  EXPECT_EQ(link.counter(SlowPath::kMalformed), 2u);
  link.nd(1, 135, kHostMac, "2001:db8:1::2", "2001:db8:1::1", 1);
  EXPECT_EQ(link.counter(SlowPath::kNdAdvertisements), 1u) << "a whole one is answered";
}
