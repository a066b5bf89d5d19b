// Stamp encoding and decoding, including what decode must survive.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "wire/generator.h"
#include "wire/stamp.h"

namespace gnf::wire {
namespace {

std::vector<uint8_t> generated_frame(int ip_version, uint32_t size) {
  Generator g({.ip_version = ip_version, .sizes = {size}, .flows = 8});
  g.start(0);
  Frame fr;
  for (int i = 0; i < 13; ++i) g.next(fr);  // flow 4, seq 1
  return {fr.data, fr.data + fr.len};
}

std::optional<Stamp> decode(const std::vector<uint8_t>& f) { return decode_stamp(f.data(), uint32_t(f.size())); }

TEST(Stamp, EncodeThenDecodeOfTheWireFormRoundTrips) {
  std::vector<uint8_t> f = generated_frame(4, 64);
  Stamp s{Stamp::make_flow_seq(65535, (uint64_t(1) << 48) - 1), 0x0123456789abcdefull};
  encode_stamp(f.data() + 42, s);
  EXPECT_EQ(f[42 + 16], 0x66);  // magic, little-endian
  EXPECT_EQ(f[42 + 17], 0x6e);
  std::optional<Stamp> got = decode(f);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->flow(), 65535u);
  EXPECT_EQ(got->seq(), (uint64_t(1) << 48) - 1);
  EXPECT_EQ(got->send_time_ns, s.send_time_ns);
}

TEST(Stamp, DecodesGeneratedIpv4AndIpv6Frames) {
  for (int v : {4, 6}) {
    std::optional<Stamp> s = decode(generated_frame(v, 256));
    ASSERT_TRUE(s) << "IPv" << v;
    EXPECT_EQ(s->flow(), 4u);
    EXPECT_EQ(s->seq(), 1u);
  }
}

TEST(Stamp, DecodesBehindOneVlanTag) {
  for (int v : {4, 6}) {
    std::vector<uint8_t> f = generated_frame(v, 128);
    std::vector<uint8_t> tag = {0x81, 0x00, 0x00, 0x2a};
    f.insert(f.begin() + 12, tag.begin(), tag.end());
    std::optional<Stamp> s = decode(f);
    ASSERT_TRUE(s) << "IPv" << v;
    EXPECT_EQ(s->flow(), 4u);
  }
}

TEST(Stamp, DecodesIpv4WithOptions) {
  std::vector<uint8_t> f = generated_frame(4, 128);
  std::vector<uint8_t> nops = {1, 1, 1, 1, 1, 1, 1, 1};
  f.insert(f.begin() + 34, nops.begin(), nops.end());
  f[14] = 0x47;                                   // IHL 7
  f[17] = uint8_t(f[17] + 8);                     // total length
  ASSERT_TRUE(decode(f));
}

TEST(Stamp, RejectsWhatIsNotAStampedUdpDatagram) {
  std::vector<uint8_t> f = generated_frame(4, 128);
  auto broken = [&](size_t off, uint8_t v) {
    std::vector<uint8_t> g = f;
    g[off] = v;
    return !decode(g);
  };
  EXPECT_TRUE(broken(12, 0x88));      // not IPv4
  EXPECT_TRUE(broken(14, 0x65));      // version 6 in an IPv4 ethertype
  EXPECT_TRUE(broken(14, 0x44));      // IHL below 5
  EXPECT_TRUE(broken(23, 6));         // TCP
  EXPECT_TRUE(broken(21, 1));         // a later fragment
  EXPECT_TRUE(broken(42 + 17, 0));    // wrong magic
  EXPECT_TRUE(broken(38, 0xff));      // UDP length too long for the IP packet
  std::vector<uint8_t> g = f;
  g[38] = 0;
  g[39] = 8 + 17;                     // UDP length one short of a stamp
  EXPECT_FALSE(decode(g));
  g[20] = 0x20;                       // the first fragment (MF set) still carries the stamp
  g[39] = 8 + 18;
  EXPECT_TRUE(decode(g));
}

TEST(Stamp, EveryTruncationOfAValidFrameDecodesToNothing) {
  for (int v : {4, 6}) {
    for (uint32_t size : {v == 4 ? 64u : 84u, 200u}) {
      std::vector<uint8_t> f = generated_frame(v, size);
      ASSERT_TRUE(decode(f));
      for (uint32_t len = 0; len < f.size(); ++len)
        EXPECT_FALSE(decode_stamp(f.data(), len)) << "IPv" << v << " " << size << " B cut to " << len;
    }
  }
}

TEST(Stamp, RandomGarbageDecodesToNothing) {
  std::mt19937_64 rng(42);
  std::vector<uint8_t> buf(256);
  for (int i = 0; i < 200'000; ++i) {
    for (auto& b : buf) b = uint8_t(rng());
    EXPECT_FALSE(decode_stamp(buf.data(), uint32_t(rng() % buf.size())));
  }
}

// The UDP checksum of an IPv6 frame from scratch (RFC 8200 section 8.1): valid if it folds to 0.
bool ipv6_udp_checksum_valid(const std::vector<uint8_t>& f) {
  const uint8_t* ip = f.data() + 14;
  const uint32_t udp_len = load_be16(ip + 4);
  uint64_t sum = checksum_add(0, ip + 8, 32) + udp_len + net::kIpProtoUdp;
  sum = checksum_add(sum, ip + 40, udp_len);
  return checksum_finish(sum) == 0;
}

TEST(Stamp, ADepartureMovesTheLatencyOriginAndKeepsTheSendTime) {
  for (int v : {4, 6}) {
    std::vector<uint8_t> f = generated_frame(v, 128);
    const Stamp before = *decode(f);
    const StampPlace place = find_stamp(f.data(), uint32_t(f.size()));
    ASSERT_TRUE(mark_departure(f.data(), place, 0x1122334455667788ull)) << "IPv" << v;
    std::optional<Stamp> after = decode(f);
    ASSERT_TRUE(after) << "IPv" << v;
    EXPECT_EQ(after->flow_seq, before.flow_seq);
    EXPECT_EQ(after->send_time_ns, before.send_time_ns);
    EXPECT_EQ(after->departure_ns, 0x1122334455667788ull);
    EXPECT_EQ(after->latency_origin_ns(), 0x1122334455667788ull);
    EXPECT_EQ(before.latency_origin_ns(), before.send_time_ns);
  }
}

TEST(Stamp, ADepartureKeepsTheIpv6UdpChecksumValid) {
  std::vector<uint8_t> f = generated_frame(6, 200);
  ASSERT_TRUE(ipv6_udp_checksum_valid(f));
  for (uint64_t t : {0ull, 1ull, 0xffffffffffffffffull, 0x8000000000000001ull, 123456789012345ull}) {
    ASSERT_TRUE(mark_departure(f.data(), find_stamp(f.data(), uint32_t(f.size())), t));
    EXPECT_TRUE(ipv6_udp_checksum_valid(f)) << t;
  }
}

TEST(Stamp, ADepartureLeavesAnIpv4DatagramWithoutChecksumWithout) {
  std::vector<uint8_t> f = generated_frame(4, 128);
  ASSERT_EQ(load_be16(f.data() + 40), 0);
  ASSERT_TRUE(mark_departure(f.data(), find_stamp(f.data(), uint32_t(f.size())), 42));
  EXPECT_EQ(load_be16(f.data() + 40), 0);
}

TEST(Stamp, NoRoomForADepartureLeavesTheFrameAlone) {
  std::vector<uint8_t> f = generated_frame(4, 64);  // exactly a stamp's room
  const std::vector<uint8_t> before = f;
  EXPECT_FALSE(mark_departure(f.data(), find_stamp(f.data(), uint32_t(f.size())), 42));
  EXPECT_EQ(f, before);
  EXPECT_FALSE(mark_departure(f.data(), StampPlace{}, 42));
  // A 0x6e67 stamp whose extension does not fit is not a stamp.
  store_le16(f.data() + 42 + 16, kStampMagicDeparted);
  EXPECT_FALSE(decode(f));
}

// Valid headers with random damage reach every branch of the parser; the result may be
// anything, but the parser must stay inside the frame (run under -DGNF_SANITIZE=ON to check).
TEST(Stamp, DamagedFramesAreParsedWithinTheirBounds) {
  std::mt19937_64 rng(7);
  for (int v : {4, 6}) {
    std::vector<uint8_t> f = generated_frame(v, 100);
    for (int i = 0; i < 100'000; ++i) {
      std::vector<uint8_t> g(f.begin(), f.begin() + long(rng() % (f.size() + 1)));
      for (int k = 0; k < 3 && !g.empty(); ++k) g[rng() % g.size()] = uint8_t(rng());
      std::optional<Stamp> s = decode(g);
      if (s) {
        EXPECT_GE(g.size(), 60u);  // the smallest stamped frame
      }
    }
  }
}

}  // namespace
}  // namespace gnf::wire
