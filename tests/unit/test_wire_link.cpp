// Links on a real interface: the loopback interface of a private network namespace, which sends
// every frame it is given straight back in. Needs CAP_SYS_ADMIN (to make the namespace) and
// CAP_NET_RAW; without them the tests say so and skip.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "util/clock.h"
#include "util/error.h"
#include "wire/af_xdp.h"
#include "wire/bytes.h"
#include "wire/checksum.h"
#include "wire/gso.h"
#include "wire/link.h"
#include "wire/netns.h"

namespace gnf::wire {
namespace {

// Runs `fn` on a thread moved into a fresh network namespace with `lo` up; returns why it could
// not, or "".
std::string in_private_netns(const std::function<void()>& fn) {
  std::string why_not;
  std::thread worker([&] {
    if (unshare(CLONE_NEWNET) != 0) {
      why_not = std::string("cannot make a network namespace: ") + std::strerror(errno);
      return;
    }
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq req{};
    std::strcpy(req.ifr_name, "lo");
    ioctl(fd, SIOCGIFFLAGS, &req);
    req.ifr_flags |= IFF_UP;
    bool up = ioctl(fd, SIOCSIFFLAGS, &req) == 0;
    close(fd);
    if (!up) {
      why_not = std::string("cannot bring lo up: ") + std::strerror(errno);
      return;
    }
    try {
      fn();
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  });
  worker.join();
  return why_not;
}

std::vector<uint8_t> frame(uint32_t len, uint16_t ether_type, uint8_t fill) {
  std::vector<uint8_t> f(len, fill);
  for (int i = 0; i < 6; ++i) f[i] = 0x02, f[6 + i] = uint8_t(0x10 + i);
  store_be16(&f[12], ether_type);
  return f;
}

// The frames the link hands over within `wait_ns`, until `want` came.
std::vector<std::vector<uint8_t>> receive(Link& link, size_t want, uint64_t wait_ns = 2'000'000'000) {
  std::vector<std::vector<uint8_t>> got;
  Frame f;
  for (uint64_t end = now_ns() + wait_ns; got.size() < want && now_ns() < end;) {
    Next n = link.next(f);
    EXPECT_NE(n, Next::Exhausted);  // a live link never ends by itself
    if (n == Next::Frame) got.emplace_back(f.data, f.data + f.len);
  }
  return got;
}

std::unique_ptr<Link> open_on_lo(LinkOptions::Type type) {
  LinkOptions o;
  o.type = type;
  o.interface = "lo";
  return open_link(o, [](const std::string& why) { ADD_FAILURE() << "fell back: " << why; });
}

class LinkOnLoopback : public ::testing::TestWithParam<LinkOptions::Type> {
 protected:
  void SetUp() override {
    if (GetParam() == LinkOptions::Type::AfXdp && !af_xdp_built()) GTEST_SKIP() << "built without libxdp";
  }
};

TEST_P(LinkOnLoopback, WhatItSendsComesBackWholeInOrderAndCounted) {
  std::string why_not = in_private_netns([] {
    std::unique_ptr<Link> link = open_on_lo(GetParam());
    Frame f;
    EXPECT_EQ(link->next(f), Next::Later);  // nothing yet is not the end
    std::vector<std::vector<uint8_t>> sent;
    for (uint8_t i = 0; i < 20; ++i) sent.push_back(frame(60 + 70 * i, 0x88b5, i));  // local experimental
    for (const auto& s : sent) link->deliver(s.data(), uint32_t(s.size()), 0);
    link->flush();
    EXPECT_EQ(receive(*link, sent.size()), sent);
    LinkCounters c = link->link_counters();
    EXPECT_EQ(c.tx_frames, sent.size());
    EXPECT_EQ(c.rx_frames, sent.size());
    EXPECT_EQ(c.rx_bytes, c.tx_bytes);
    EXPECT_EQ(c.rx_dropped + c.rx_truncated + c.tx_ring_full + c.tx_errors + c.tx_send_errors, 0u);
    EXPECT_EQ(link->counters().frames, sent.size());
  });
  if (!why_not.empty()) GTEST_SKIP() << why_not;
}

TEST_P(LinkOnLoopback, AShortFrameArrivesPaddedToTheEthernetMinimum) {
  std::string why_not = in_private_netns([] {
    std::unique_ptr<Link> link = open_on_lo(GetParam());
    std::vector<uint8_t> arp = frame(42, 0x0806, 0x33);
    link->deliver(arp.data(), uint32_t(arp.size()), 0);
    link->flush();
    auto got = receive(*link, 1);
    ASSERT_EQ(got.size(), 1u);
    arp.resize(60, 0);
    EXPECT_EQ(got[0], arp);
  });
  if (!why_not.empty()) GTEST_SKIP() << why_not;
}

TEST_P(LinkOnLoopback, AVlanTagArrivesInTheFrameAsSent) {
  std::string why_not = in_private_netns([] {
    std::unique_ptr<Link> link = open_on_lo(GetParam());
    std::vector<uint8_t> tagged = frame(100, 0x8100, 0x44);
    store_be16(&tagged[14], 0x2007);  // PCP 1, VID 7
    store_be16(&tagged[16], 0x88b5);
    link->deliver(tagged.data(), uint32_t(tagged.size()), 0);
    link->flush();
    auto got = receive(*link, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], tagged);
  });
  if (!why_not.empty()) GTEST_SKIP() << why_not;
}

TEST_P(LinkOnLoopback, AFrameLargerThanTheMtuIsCountedNotSent) {
  std::string why_not = in_private_netns([] {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq req{};
    std::strcpy(req.ifr_name, "lo");
    req.ifr_mtu = 1000;
    ASSERT_EQ(ioctl(fd, SIOCSIFMTU, &req), 0) << std::strerror(errno);
    close(fd);
    std::unique_ptr<Link> link = open_on_lo(GetParam());  // reads the MTU when it opens
    std::vector<uint8_t> big = frame(1014 + 1, 0x88b5, 0x55), fits = frame(1014, 0x88b5, 0x66);
    link->deliver(big.data(), uint32_t(big.size()), 0);
    link->deliver(fits.data(), uint32_t(fits.size()), 0);
    link->flush();
    auto got = receive(*link, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], fits);
    EXPECT_EQ(link->link_counters().tx_errors, 1u);
    EXPECT_EQ(link->link_counters().tx_frames, 1u);
  });
  if (!why_not.empty()) GTEST_SKIP() << why_not;
}

INSTANTIATE_TEST_SUITE_P(Backends, LinkOnLoopback,
                         ::testing::Values(LinkOptions::Type::AfPacket, LinkOptions::Type::AfXdp),
                         [](const auto& info) { return std::string(link_type_name(info.param)); });

// A TCP/IPv4 frame of `payload` bytes whose checksum field holds only the pseudo-header's sum, as
// a stack that leaves checksums to the hardware sends it.
std::vector<uint8_t> partial_tcp4(uint32_t payload) {
  std::vector<uint8_t> f = frame(54 + payload, 0x0800, 0);
  uint8_t* ip = &f[14];
  ip[0] = 0x45;
  store_be16(ip + 2, uint16_t(40 + payload));
  ip[8] = 64;
  ip[9] = 6;
  store_be32(ip + 12, 0x7f000001);
  store_be32(ip + 16, 0x7f000002);
  ip[10] = ip[11] = 0;
  store_be16(ip + 10, checksum_finish(checksum_add(0, ip, 20)));
  uint8_t* tcp = ip + 20;
  store_be16(tcp, 40000);
  store_be16(tcp + 2, 5201);
  store_be32(tcp + 4, 1000);
  tcp[12] = 5 << 4;
  tcp[13] = 0x18;
  for (uint32_t i = 0; i < payload; ++i) tcp[20 + i] = uint8_t(i * 7);
  store_be16(tcp + 16, uint16_t(~checksum_finish(checksum_add(0, ip + 12, 8) + 6 + 20 + payload)));
  return f;
}

bool tcp4_checksum_verifies(const std::vector<uint8_t>& f) {
  uint32_t l4_len = uint32_t(f.size() - 34);
  return checksum_finish(checksum_add(checksum_add(0, &f[26], 8) + 6 + l4_len, &f[34], l4_len)) == 0;
}

// Sends `f` on lo from a packet socket of its own with a virtio_net_hdr, as a stack with checksum
// and segmentation offload hands a frame to a veth: the kernel keeps the metadata with it.
void send_with_offloads(const std::vector<uint8_t>& f, uint8_t flags, uint8_t gso_type, uint16_t gso_size) {
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  int on = 1;
  ASSERT_EQ(setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &on, sizeof(on)), 0) << std::strerror(errno);
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_ifindex = int(if_nametoindex("lo"));
  to.sll_protocol = htons(0x0800);
  // flags (1: NEEDS_CSUM), gso_type, hdr_len, gso_size, csum_start 34, csum_offset 16 (host byte order).
  uint8_t vnet[VnetHeader::kBytes] = {flags, gso_type};
  uint16_t fields[4] = {54, gso_size, 34, 16};
  std::memcpy(vnet + 2, fields, sizeof(fields));
  std::vector<uint8_t> out(vnet, vnet + sizeof(vnet));
  out.insert(out.end(), f.begin(), f.end());
  EXPECT_EQ(sendto(fd, out.data(), out.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof(to)), ssize_t(out.size()))
      << std::strerror(errno);
  close(fd);
}

TEST(AfPacketOnLoopback, ATsoSuperFrameArrivesAsItsSegmentsOnceAndAPartialChecksumCompleted) {
  std::string why_not = in_private_netns([] {
    std::unique_ptr<Link> link = open_on_lo(LinkOptions::Type::AfPacket);
    send_with_offloads(partial_tcp4(5000), 1, 1 /* VIRTIO_NET_HDR_GSO_TCPV4 */, 1448);
    send_with_offloads(partial_tcp4(100), 1, 0, 0);
    // 4 segments and the small frame, and then nothing: the super-frame is not taken twice.
    auto got = receive(*link, 6, 300'000'000);
    ASSERT_EQ(got.size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(got[i].size(), 54 + (i < 3 ? 1448 : i == 3 ? 656 : 100)) << i;
      EXPECT_TRUE(tcp4_checksum_verifies(got[i])) << i;
      if (i < 4) EXPECT_EQ(load_be32(&got[i][38]), 1000 + 1448 * i) << i;
    }
    LinkCounters c = link->link_counters();
    EXPECT_EQ(c.rx_gso_frames, 1u);
    EXPECT_EQ(c.rx_gso_segments, 4u);
    EXPECT_EQ(c.rx_csum_completed, 1u);
    EXPECT_EQ(c.rx_frames, 5u);
    EXPECT_EQ(c.rx_too_big + c.rx_bad_offload + c.rx_truncated, 0u);
  });
  if (!why_not.empty()) GTEST_SKIP() << why_not;
}

TEST(AfPacketOnLoopback, AFrameLargerThanThePortTakesIsCountedAndDropped) {
  std::string why_not = in_private_netns([] {
    LinkOptions o;
    o.type = LinkOptions::Type::AfPacket;
    o.interface = "lo";  // MTU 65536: the kernel carries what the port does not take
    o.max_frame_bytes = 1514;
    std::unique_ptr<Link> link = open_link(o, [](const std::string&) {});
    send_with_offloads(partial_tcp4(3000 - 54), 0, 0, 0);  // no offload, but longer than the port's 1514 B
    send_with_offloads(partial_tcp4(1514 - 54), 0, 0, 0);
    auto got = receive(*link, 2, 300'000'000);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].size(), 1514u);
    EXPECT_EQ(link->link_counters().rx_too_big, 1u);
    EXPECT_EQ(link->counters().malformed, 1u);
  });
  if (!why_not.empty()) GTEST_SKIP() << why_not;
}

TEST(Link, AMissingInterfaceIsNamedWithItsNamespace) {
  LinkOptions o;
  o.type = LinkOptions::Type::AfPacket;
  o.interface = "gnf-nope0";
  try {
    open_link(o, [](const std::string&) {});
    FAIL() << "opened a link on an interface that does not exist";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no interface 'gnf-nope0' in gnf's network namespace"), std::string::npos)
        << e.what();
  }
}

TEST(Netns, AMissingNamespaceSaysHowToMakeIt) {
  try {
    Netns ns("gnf-no-such-namespace");
    FAIL() << "opened a namespace that does not exist";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/run/netns/gnf-no-such-namespace"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ip netns add gnf-no-such-namespace"), std::string::npos) << e.what();
  }
}

TEST(Netns, GnfsOwnRunsOnTheCallersThread) {
  std::thread::id ran_on;
  Netns("").run([&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(Link, FitsMtuCountsTheTagOutsideTheMtu) {
  std::vector<uint8_t> plain = frame(1514, 0x0800, 0), tagged = frame(1518, 0x8100, 0);
  EXPECT_TRUE(fits_mtu(plain.data(), 1514, 1500));
  EXPECT_FALSE(fits_mtu(plain.data(), 1515, 1500));
  EXPECT_TRUE(fits_mtu(tagged.data(), 1518, 1500));
  EXPECT_FALSE(fits_mtu(tagged.data(), 1519, 1500));
}

}  // namespace
}  // namespace gnf::wire
