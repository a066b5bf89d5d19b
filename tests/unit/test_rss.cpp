// Tests of the 82599 model's receive-side scaling (src/nic/rss.h, datasheet 7.1.2.8).
#include "nic/rss.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gnf::nic {
namespace {

using Type = RssResult::Type;
using Bytes = std::vector<uint8_t>;

// ---------------------------------------------------------------------------------------------
// Microsoft's published test vectors.
//
// Source: Microsoft, "Verifying the RSS Hash Calculation" (Windows driver docs, network/
// verifying-the-rss-hash-calculation), computed with the key kDefaultRssKey. The values were
// double-checked with an independent bit-by-bit Toeplitz written in Python.
// ---------------------------------------------------------------------------------------------
struct Vector {
  const char* src;
  uint16_t src_port;
  const char* dst;
  uint16_t dst_port;
  uint32_t hash_addresses;  // "IPv4 only" / "IPv6 only" column
  uint32_t hash_with_ports;  // "with TCP" column
};

constexpr Vector kIpv4Vectors[] = {
    {"66.9.149.187", 2794, "161.142.100.80", 1766, 0x323e8fc2, 0x51ccc178},
    {"199.92.111.2", 14230, "65.69.140.83", 4739, 0xd718262a, 0xc626b0ea},
    {"24.19.198.95", 12898, "12.22.207.184", 38024, 0xd2d0a5de, 0x5c2b394a},
    {"38.27.205.30", 48228, "209.142.163.6", 2217, 0x82989176, 0xafc7327f},
    {"153.39.163.191", 44251, "202.188.127.2", 1303, 0x5d1809c5, 0x10e828a2},
};

constexpr Vector kIpv6Vectors[] = {
    {"3ffe:2501:200:1fff::7", 2794, "3ffe:2501:200:3::1", 1766, 0x2cc18cd5, 0x40207d3d},
    {"3ffe:501:8::260:97ff:fe40:efab", 14230, "ff02::1", 4739, 0x0f0c461c, 0xdde51bbf},
    {"3ffe:1900:4545:3:200:f8ff:fe21:67cf", 44251, "fe80::200:f8ff:fe21:67cf", 38024, 0x4b61e985,
     0x02d1feef},
};

Bytes addr(int family, const char* text) {
  Bytes out(family == AF_INET ? 4 : 16);
  if (inet_pton(family, text, out.data()) != 1) throw std::invalid_argument(text);
  return out;
}

void append_be16(Bytes& b, uint16_t v) {
  b.push_back(uint8_t(v >> 8));
  b.push_back(uint8_t(v));
}

// The Toeplitz input Microsoft specifies: src addr, dst addr[, src port, dst port].
Bytes hash_input(int family, const Vector& v, bool with_ports) {
  Bytes in = addr(family, v.src);
  Bytes dst = addr(family, v.dst);
  in.insert(in.end(), dst.begin(), dst.end());
  if (with_ports) {
    append_be16(in, v.src_port);
    append_be16(in, v.dst_port);
  }
  return in;
}

uint32_t hash_of(const Bytes& in) {
  return toeplitz_hash(kDefaultRssKey.data(), kDefaultRssKey.size(), in.data(), in.size());
}

TEST(Toeplitz, MicrosoftIpv4VectorsWithAndWithoutPorts) {
  for (const Vector& v : kIpv4Vectors) {
    SCOPED_TRACE(std::string(v.src) + " -> " + v.dst);
    EXPECT_EQ(hash_of(hash_input(AF_INET, v, false)), v.hash_addresses);
    EXPECT_EQ(hash_of(hash_input(AF_INET, v, true)), v.hash_with_ports);
  }
}

TEST(Toeplitz, MicrosoftIpv6VectorsWithAndWithoutPorts) {
  for (const Vector& v : kIpv6Vectors) {
    SCOPED_TRACE(std::string(v.src) + " -> " + v.dst);
    EXPECT_EQ(hash_of(hash_input(AF_INET6, v, false)), v.hash_addresses);
    EXPECT_EQ(hash_of(hash_input(AF_INET6, v, true)), v.hash_with_ports);
  }
}

TEST(Toeplitz, EmptyInputAndKeyBitsPastTheKeyHashAsZero) {
  EXPECT_EQ(toeplitz_hash(kDefaultRssKey.data(), kDefaultRssKey.size(), nullptr, 0), 0u);
  // A single set bit selects the key's first 32 bits.
  const uint8_t one = 0x80;
  EXPECT_EQ(toeplitz_hash(kDefaultRssKey.data(), kDefaultRssKey.size(), &one, 1), 0x6d5a56dau);
  // With a 4-byte key, the last input bit's window is key bits 7..38 where bits past 31 are 0.
  const uint8_t last = 0x01;
  EXPECT_EQ(toeplitz_hash(kDefaultRssKey.data(), 4, &last, 1), uint32_t(0x6d5a56dau << 7));
}

// ---------------------------------------------------------------------------------------------
// Frame building.
// ---------------------------------------------------------------------------------------------
constexpr uint8_t kTcp = 6, kUdp = 17, kIcmpV6 = 58;
constexpr uint8_t kHopByHop = 0, kRouting = 43, kFragment = 44, kDestOptions = 60;

// Ethernet II header, optionally with one tag whose TPID is `tpid` (0: untagged).
Bytes ethernet(uint16_t ether_type, uint16_t tpid = 0) {
  Bytes f = {0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02};
  if (tpid) {
    append_be16(f, tpid);
    append_be16(f, 0x0064);  // PCP 0, VLAN 100
  }
  append_be16(f, ether_type);
  return f;
}

// The L4 header: ports then zeros up to the protocol's header size.
void append_l4(Bytes& f, uint8_t proto, uint16_t sport, uint16_t dport) {
  append_be16(f, sport);
  append_be16(f, dport);
  f.resize(f.size() + (proto == kTcp ? 16 : 4), 0);
}

struct Ipv4Opts {
  uint8_t proto = kTcp;
  uint16_t frag = 0;            // flags + fragment offset field
  uint16_t tpid = 0;            // VLAN TPID, 0 for none
  uint8_t option_words = 0;     // IHL = 5 + option_words
};

Bytes ipv4_frame(const Vector& v, const Ipv4Opts& o = {}) {
  Bytes f = ethernet(0x0800, o.tpid);
  const size_t ip = f.size();
  f.push_back(uint8_t(0x45 + o.option_words));
  f.push_back(0);
  append_be16(f, 0);  // total length, patched below
  append_be16(f, 0x1234);
  append_be16(f, o.frag);
  f.push_back(64);
  f.push_back(o.proto);
  append_be16(f, 0);  // checksum: RSS does not look at it
  Bytes a = hash_input(AF_INET, v, false);
  f.insert(f.end(), a.begin(), a.end());
  f.resize(f.size() + 4 * o.option_words, 0x01);  // NOP options
  append_l4(f, o.proto, v.src_port, v.dst_port);
  const uint16_t total = uint16_t(f.size() - ip);
  f[ip + 2] = uint8_t(total >> 8);
  f[ip + 3] = uint8_t(total);
  return f;
}

// IPv6 frame with the given extension headers (each 8 bytes) before the L4 header.
Bytes ipv6_frame(const Vector& v, uint8_t proto, const std::vector<uint8_t>& ext = {},
                 uint16_t tpid = 0) {
  Bytes f = ethernet(0x86dd, tpid);
  const size_t ip = f.size();
  f.insert(f.end(), {0x60, 0, 0, 0});
  append_be16(f, 0);  // payload length, patched below
  f.push_back(ext.empty() ? proto : ext[0]);
  f.push_back(64);
  Bytes a = hash_input(AF_INET6, v, false);
  f.insert(f.end(), a.begin(), a.end());
  for (size_t i = 0; i < ext.size(); ++i) {
    f.push_back(i + 1 < ext.size() ? ext[i + 1] : proto);  // next header
    f.push_back(0);                                        // length: 8 bytes in all
    f.resize(f.size() + 6, 0);
  }
  append_l4(f, proto, v.src_port, v.dst_port);
  const uint16_t payload = uint16_t(f.size() - ip - 40);
  f[ip + 4] = uint8_t(payload >> 8);
  f[ip + 5] = uint8_t(payload);
  return f;
}

RssResult classify(const RssConfig& cfg, const Bytes& f) {
  return rss_classify(cfg, f.data(), uint32_t(f.size()));
}

RssConfig spread_config(unsigned queues = 16) {
  RssConfig cfg;
  fill_reta_round_robin(cfg, queues);
  return cfg;
}

// ---------------------------------------------------------------------------------------------
// rss_classify on built frames.
// ---------------------------------------------------------------------------------------------
TEST(RssClassify, TcpIpv4FramesGiveMicrosoftHashWithPorts) {
  const RssConfig cfg = spread_config();
  for (const Vector& v : kIpv4Vectors) {
    const RssResult r = classify(cfg, ipv4_frame(v));
    EXPECT_EQ(r.type, Type::Ipv4Tcp);
    EXPECT_EQ(r.hash, v.hash_with_ports);
    EXPECT_EQ(r.queue, cfg.reta[v.hash_with_ports & 0x7f]);
  }
}

TEST(RssClassify, TcpIpv6FramesGiveMicrosoftHashWithPorts) {
  const RssConfig cfg = spread_config();
  for (const Vector& v : kIpv6Vectors) {
    const RssResult r = classify(cfg, ipv6_frame(v, kTcp));
    EXPECT_EQ(r.type, Type::Ipv6Tcp);
    EXPECT_EQ(r.hash, v.hash_with_ports);
  }
}

TEST(RssClassify, Ipv4UdpUsesPortsOnlyWhenUdpHashEnabled) {
  RssConfig cfg = spread_config();
  const Vector& v = kIpv4Vectors[0];
  const Bytes f = ipv4_frame(v, {.proto = kUdp});

  RssResult r = classify(cfg, f);
  EXPECT_EQ(r.type, Type::Ipv4Udp);
  EXPECT_EQ(r.hash, v.hash_with_ports);

  cfg.ipv4_udp = false;
  r = classify(cfg, f);
  EXPECT_EQ(r.type, Type::Ipv4);
  EXPECT_EQ(r.hash, v.hash_addresses);
}

TEST(RssClassify, Ipv6UdpUsesPortsOnlyWhenUdpHashEnabled) {
  RssConfig cfg = spread_config();
  const Vector& v = kIpv6Vectors[1];
  const Bytes f = ipv6_frame(v, kUdp);
  EXPECT_EQ(classify(cfg, f).type, Type::Ipv6Udp);
  EXPECT_EQ(classify(cfg, f).hash, v.hash_with_ports);
  cfg.ipv6_udp = false;
  EXPECT_EQ(classify(cfg, f).type, Type::Ipv6);
  EXPECT_EQ(classify(cfg, f).hash, v.hash_addresses);
}

TEST(RssClassify, Ipv4FragmentHashesAddressesOnly) {
  const RssConfig cfg = spread_config();
  const Vector& v = kIpv4Vectors[2];
  // First fragment (MF set, offset 0), a middle one (MF and offset) and the last (offset only).
  for (uint16_t frag : {uint16_t(0x2000), uint16_t(0x2010), uint16_t(0x00b9)}) {
    SCOPED_TRACE(frag);
    const RssResult r = classify(cfg, ipv4_frame(v, {.frag = frag}));
    EXPECT_EQ(r.type, Type::Ipv4);
    EXPECT_EQ(r.hash, v.hash_addresses);
  }
  // Don't Fragment is not a fragment.
  EXPECT_EQ(classify(cfg, ipv4_frame(v, {.frag = 0x4000})).type, Type::Ipv4Tcp);
}

TEST(RssClassify, VlanTaggedFrameHashesLikeUntagged) {
  const RssConfig cfg = spread_config();
  const Vector& v4 = kIpv4Vectors[3];
  const Vector& v6 = kIpv6Vectors[2];
  const RssResult plain4 = classify(cfg, ipv4_frame(v4, {.proto = kUdp}));
  const RssResult plain6 = classify(cfg, ipv6_frame(v6, kTcp));
  for (uint16_t tpid : {uint16_t(0x8100), uint16_t(0x88a8)}) {
    SCOPED_TRACE(tpid);
    const RssResult t4 = classify(cfg, ipv4_frame(v4, {.proto = kUdp, .tpid = tpid}));
    EXPECT_EQ(t4.type, plain4.type);
    EXPECT_EQ(t4.hash, plain4.hash);
    EXPECT_EQ(t4.queue, plain4.queue);
    const RssResult t6 = classify(cfg, ipv6_frame(v6, kTcp, {}, tpid));
    EXPECT_EQ(t6.type, plain6.type);
    EXPECT_EQ(t6.hash, plain6.hash);
  }
  EXPECT_EQ(plain4.hash, v4.hash_with_ports);
}

TEST(RssClassify, DoubleTaggedFrameGetsNoHash) {
  // Only one tag is parsed: after it the EtherType is another TPID, which is not IP.
  Bytes f = ipv4_frame(kIpv4Vectors[0], {.tpid = 0x88a8});
  const uint8_t inner_tag[] = {0x81, 0x00, 0x00, 0x0a};
  f.insert(f.begin() + 16, std::begin(inner_tag), std::end(inner_tag));
  const RssResult r = classify(spread_config(), f);
  EXPECT_EQ(r.type, Type::None);
  EXPECT_EQ(r.hash, 0u);
  EXPECT_EQ(r.queue, 0);
}

TEST(RssClassify, Ipv4OptionsAreSkippedToFindPorts) {
  const Vector& v = kIpv4Vectors[4];
  const RssResult r = classify(spread_config(), ipv4_frame(v, {.option_words = 10}));  // IHL 15
  EXPECT_EQ(r.type, Type::Ipv4Tcp);
  EXPECT_EQ(r.hash, v.hash_with_ports);
}

TEST(RssClassify, Ipv6HopByHopHeaderIsSkippedToFindUdpPorts) {
  const Vector& v = kIpv6Vectors[0];
  const RssResult r = classify(spread_config(), ipv6_frame(v, kUdp, {kHopByHop}));
  EXPECT_EQ(r.type, Type::Ipv6Udp);
  EXPECT_EQ(r.hash, v.hash_with_ports);
}

TEST(RssClassify, Ipv6LongerExtensionHeaderIsSkippedByItsLength) {
  const Vector& v = kIpv6Vectors[0];
  Bytes f = ipv6_frame(v, kUdp, {kDestOptions});
  // Grow the destination-options header to 24 bytes (length field 2).
  const size_t ext = 14 + 40;
  f[ext + 1] = 2;
  f.insert(f.begin() + ext + 8, 16, 0x00);
  const RssResult r = classify(spread_config(), f);
  EXPECT_EQ(r.type, Type::Ipv6Udp);
  EXPECT_EQ(r.hash, v.hash_with_ports);
}

TEST(RssClassify, Ipv6ChainOfFourExtensionHeadersIsWalkedButFiveIsAddressOnly) {
  const Vector& v = kIpv6Vectors[1];
  const RssConfig cfg = spread_config();
  const RssResult four =
      classify(cfg, ipv6_frame(v, kTcp, {kHopByHop, kRouting, kDestOptions, kDestOptions}));
  EXPECT_EQ(four.type, Type::Ipv6Tcp);
  EXPECT_EQ(four.hash, v.hash_with_ports);
  const RssResult five = classify(
      cfg, ipv6_frame(v, kTcp, {kHopByHop, kRouting, kDestOptions, kRouting, kDestOptions}));
  EXPECT_EQ(five.type, Type::Ipv6);
  EXPECT_EQ(five.hash, v.hash_addresses);
}

TEST(RssClassify, Ipv6FragmentHeaderHashesAddressesOnly) {
  const Vector& v = kIpv6Vectors[2];
  const RssConfig cfg = spread_config();
  for (const std::vector<uint8_t>& chain : {std::vector<uint8_t>{kFragment},
                                            std::vector<uint8_t>{kHopByHop, kFragment}}) {
    const RssResult r = classify(cfg, ipv6_frame(v, kUdp, chain));
    EXPECT_EQ(r.type, Type::Ipv6);
    EXPECT_EQ(r.hash, v.hash_addresses);
  }
}

TEST(RssClassify, Ipv6NonTcpUdpHashesAddressesOnly) {
  const Vector& v = kIpv6Vectors[0];
  const RssResult r = classify(spread_config(), ipv6_frame(v, kIcmpV6));
  EXPECT_EQ(r.type, Type::Ipv6);
  EXPECT_EQ(r.hash, v.hash_addresses);
}

TEST(RssClassify, DisabledHashTypesFallBackToAddressesThenToNoHash) {
  RssConfig cfg = spread_config();
  const Vector& v4 = kIpv4Vectors[1];
  const Vector& v6 = kIpv6Vectors[1];
  const Bytes tcp4 = ipv4_frame(v4), tcp6 = ipv6_frame(v6, kTcp);

  cfg.ipv4_tcp = cfg.ipv6_tcp = false;
  EXPECT_EQ(classify(cfg, tcp4).type, Type::Ipv4);
  EXPECT_EQ(classify(cfg, tcp4).hash, v4.hash_addresses);
  EXPECT_EQ(classify(cfg, tcp6).type, Type::Ipv6);
  EXPECT_EQ(classify(cfg, tcp6).hash, v6.hash_addresses);

  cfg.ipv4 = cfg.ipv6 = false;
  for (const Bytes* f : {&tcp4, &tcp6}) {
    const RssResult r = classify(cfg, *f);
    EXPECT_EQ(r.type, Type::None);
    EXPECT_EQ(r.hash, 0u);
    EXPECT_EQ(r.queue, 0);
  }

  // The L4 types work without the address-only type, and a fragment then gets no hash.
  cfg.ipv4_tcp = true;
  EXPECT_EQ(classify(cfg, tcp4).type, Type::Ipv4Tcp);
  EXPECT_EQ(classify(cfg, ipv4_frame(v4, {.frag = 0x2000})).type, Type::None);
}

TEST(RssClassify, NonIpAndMalformedFramesGoToQueueZeroNotRetaZero) {
  RssConfig cfg;
  cfg.reta.fill(5);  // so that "queue 0" cannot come from the table
  const Vector& v = kIpv4Vectors[0];

  Bytes arp = ethernet(0x0806);
  arp.resize(60, 0);
  Bytes bad_version = ipv4_frame(v);
  bad_version[14] = 0x65;
  Bytes short_ihl = ipv4_frame(v);
  short_ihl[14] = 0x44;
  Bytes ihl_past_end = ipv4_frame(v);
  ihl_past_end[14] = 0x4f;                          // 60-byte header ...
  ihl_past_end.resize(14 + 40);                     // ... in 40 bytes
  Bytes v6_bad_version = ipv6_frame(kIpv6Vectors[0], kTcp);
  v6_bad_version[14] = 0x40;
  Bytes v4_in_v6_type = ipv4_frame(v);
  v4_in_v6_type[12] = 0x86;
  v4_in_v6_type[13] = 0xdd;  // IPv4 bytes behind the IPv6 EtherType

  for (const Bytes* f : {&arp, &bad_version, &short_ihl, &ihl_past_end, &v6_bad_version,
                         &v4_in_v6_type}) {
    const RssResult r = classify(cfg, *f);
    EXPECT_EQ(r.type, Type::None);
    EXPECT_EQ(r.hash, 0u);
    EXPECT_EQ(r.queue, 0);
  }
  // A good frame does use the table.
  EXPECT_EQ(classify(cfg, ipv4_frame(v)).queue, 5);
}

TEST(RssClassify, TruncatedPortsFallBackToAddressOnlyHash) {
  const Vector& v = kIpv4Vectors[0];
  Bytes f = ipv4_frame(v);
  f.resize(14 + 20 + 3);  // one byte short of the ports
  EXPECT_EQ(classify(spread_config(), f).type, Type::Ipv4);
  EXPECT_EQ(classify(spread_config(), f).hash, v.hash_addresses);
  f.push_back(uint8_t(v.dst_port));  // now exactly the ports
  EXPECT_EQ(classify(spread_config(), f).type, Type::Ipv4Tcp);
  EXPECT_EQ(classify(spread_config(), f).hash, v.hash_with_ports);
}

// ---------------------------------------------------------------------------------------------
// Redirection table.
// ---------------------------------------------------------------------------------------------
TEST(RssReta, RoundRobinMapsHashLsbsToQueue) {
  for (unsigned queues : {1u, 3u, 4u, 16u, 64u}) {
    SCOPED_TRACE(queues);
    const RssConfig cfg = spread_config(queues);
    for (size_t i = 0; i < cfg.reta.size(); ++i) ASSERT_EQ(cfg.reta[i], i % queues);

    // Many flows: each lands on reta[hash % 128], and together they reach every queue.
    std::vector<bool> seen(queues, false);
    Vector v = kIpv4Vectors[0];
    for (uint32_t port = 1024; port < 1024 + 2048; ++port) {
      v.src_port = uint16_t(port);
      const RssResult r = classify(cfg, ipv4_frame(v, {.proto = kUdp}));
      ASSERT_EQ(r.type, Type::Ipv4Udp);
      ASSERT_EQ(r.queue, (r.hash % 128) % queues);
      seen[r.queue] = true;
    }
    for (unsigned q = 0; q < queues; ++q) EXPECT_TRUE(seen[q]) << "queue " << q;
  }
}

TEST(RssReta, RoundRobinRejectsZeroAndMoreThan64Queues) {
  RssConfig cfg;
  EXPECT_THROW(fill_reta_round_robin(cfg, 0), std::invalid_argument);
  EXPECT_THROW(fill_reta_round_robin(cfg, 65), std::invalid_argument);
  EXPECT_NO_THROW(fill_reta_round_robin(cfg, 64));
}

// ---------------------------------------------------------------------------------------------
// Robustness: rss_classify must never read outside [frame, frame + len). Each frame is copied
// into a heap block of exactly `len` bytes so that AddressSanitizer (build with
// -fsanitize=address) reports any read past the end.
// ---------------------------------------------------------------------------------------------
RssResult classify_exact(const RssConfig& cfg, const uint8_t* data, size_t len) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[len == 0 ? 1 : len]);
  if (len) std::memcpy(copy.get(), data, len);
  // For len 0 pass the pointer anyway: nothing may be read through it.
  return rss_classify(cfg, copy.get(), uint32_t(len));
}

void expect_consistent(const RssConfig& cfg, const RssResult& r) {
  if (r.type == Type::None) {
    EXPECT_EQ(r.hash, 0u);
    EXPECT_EQ(r.queue, 0);
  } else {
    EXPECT_EQ(r.queue, cfg.reta[r.hash & 0x7f]);
  }
}

TEST(RssRobustness, EveryPrefixOfValidFramesIsClassifiedInBounds) {
  const RssConfig cfg = spread_config(7);
  struct Case {
    Bytes frame;
    size_t l3_end;     // first length at which the address-only hash is possible
    size_t ports_end;  // first length at which the ports are hashed
  };
  const Case cases[] = {
      {ipv4_frame(kIpv4Vectors[0]), 14 + 20, 14 + 20 + 4},
      {ipv4_frame(kIpv4Vectors[1], {.proto = kUdp, .tpid = 0x8100}), 18 + 20, 18 + 20 + 4},
      {ipv4_frame(kIpv4Vectors[2], {.option_words = 3}), 14 + 32, 14 + 32 + 4},
      {ipv6_frame(kIpv6Vectors[0], kTcp), 14 + 40, 14 + 40 + 4},
      {ipv6_frame(kIpv6Vectors[1], kUdp, {kHopByHop, kRouting, kDestOptions}, 0x88a8), 18 + 40,
       18 + 40 + 24 + 4},
      {ipv6_frame(kIpv6Vectors[2], kUdp, {kFragment}), 14 + 40, SIZE_MAX},
  };
  for (const Case& c : cases) {
    const RssResult full = classify(cfg, c.frame);
    for (size_t len = 0; len <= c.frame.size(); ++len) {
      SCOPED_TRACE("prefix " + std::to_string(len) + " of " + std::to_string(c.frame.size()));
      const RssResult r = classify_exact(cfg, c.frame.data(), len);
      expect_consistent(cfg, r);
      // Shape of the answer as the frame grows: nothing, then addresses, then ports.
      if (len < c.l3_end) {
        EXPECT_EQ(r.type, Type::None);
      } else if (len < c.ports_end) {
        EXPECT_TRUE(r.type == Type::Ipv4 || r.type == Type::Ipv6);
      } else {
        EXPECT_EQ(r.type, full.type);
        EXPECT_EQ(r.hash, full.hash);
      }
    }
  }
}

TEST(RssRobustness, RandomFramesAreClassifiedInBounds) {
  std::mt19937 rng(82599);
  auto pick = [&](std::initializer_list<uint32_t> xs) {
    return *(xs.begin() + std::uniform_int_distribution<size_t>(0, xs.size() - 1)(rng));
  };
  RssConfig cfg = spread_config(13);
  int by_type[7] = {};

  for (int i = 0; i < 10000; ++i) {
    // Random bytes, steered towards the parser's interesting paths so that most frames get past
    // the EtherType: tags, plausible version nibbles, extension chains with random lengths.
    Bytes f(std::uniform_int_distribution<size_t>(0, 160)(rng));
    for (uint8_t& b : f) b = uint8_t(rng());
    size_t l3 = 14;
    auto put16 = [&](size_t at, uint16_t v) {
      if (at + 1 < f.size()) f[at] = uint8_t(v >> 8), f[at + 1] = uint8_t(v);
    };
    if (rng() % 4 != 0) {
      if (rng() % 3 == 0) {
        put16(12, uint16_t(pick({0x8100, 0x88a8})));
        l3 = 18;
      }
      const bool v6 = rng() % 2;
      put16(l3 - 2, v6 ? 0x86dd : 0x0800);
      if (l3 < f.size() && rng() % 8 != 0) f[l3] = uint8_t((v6 ? 0x60 : 0x40) | (f[l3] & 0x0f));
      if (!v6 && l3 + 7 < f.size() && rng() % 2) {
        f[l3 + 6] &= 0x40;  // often not a fragment: MF and offset clear
        f[l3 + 7] = 0;
      }
      if (!v6 && l3 + 9 < f.size()) f[l3 + 9] = uint8_t(pick({6, 17, 6, 17, 1, uint32_t(rng() & 0xff)}));
      if (v6) {
        // Chain of extension headers with small random lengths, each possibly running past len.
        size_t off = l3 + 40;
        size_t nh_at = l3 + 6;
        for (int n = 0; n < 6 && nh_at < f.size(); ++n) {
          const uint8_t nh = uint8_t(pick({0, 43, 60, 0, 43, 60, 44, 6, 17, 58}));
          f[nh_at] = nh;
          if (nh != 0 && nh != 43 && nh != 60) break;
          if (off + 1 < f.size()) f[off + 1] = uint8_t(rng() % 3);
          nh_at = off;
          off += (off + 1 < f.size() ? f[off + 1] + 1 : 1) * 8;
        }
      }
    }
    if (rng() % 4 == 0) {  // vary the enabled hash types too
      cfg.ipv4 = rng() % 2, cfg.ipv4_tcp = rng() % 2, cfg.ipv4_udp = rng() % 2;
      cfg.ipv6 = rng() % 2, cfg.ipv6_tcp = rng() % 2, cfg.ipv6_udp = rng() % 2;
    }

    const RssResult r = classify_exact(cfg, f.data(), f.size());
    expect_consistent(cfg, r);
    ++by_type[int(r.type)];
  }
  // The generator must actually reach every outcome, or the test proves little.
  for (int t = 0; t < 7; ++t) EXPECT_GT(by_type[t], 0) << "type " << t;
}

}  // namespace
}  // namespace gnf::nic

TEST(ToeplitzTable, GivesTheBitwiseHashForEveryInputLength) {
  gnf::nic::ToeplitzTable table(gnf::nic::kDefaultRssKey);
  std::mt19937 rng(3);
  for (int round = 0; round < 2000; ++round) {
    uint8_t input[gnf::nic::kRssMaxInputBytes];
    size_t n = rng() % (gnf::nic::kRssMaxInputBytes + 1);
    for (size_t i = 0; i < n; ++i) input[i] = uint8_t(rng());
    ASSERT_EQ(table.hash(input, n), gnf::nic::toeplitz_hash(gnf::nic::kDefaultRssKey.data(), 40, input, n));
  }
}
