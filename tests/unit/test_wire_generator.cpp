// Generator: sizes, headers and checksums, stamps, flows, rates, IMIX and stopping rules.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "util/error.h"
#include "wire/generator.h"
#include "wire/stamp.h"

namespace gnf::wire {
namespace {

struct Out {
  std::vector<uint8_t> bytes;
  uint64_t time_ns;
};

std::vector<Out> take(Generator& g, size_t n, uint64_t start_ns = 0) {
  g.start(start_ns);
  std::vector<Out> out;
  Frame fr;
  while (out.size() < n && g.next(fr) == wire::Next::Frame) out.push_back({std::vector<uint8_t>(fr.data, fr.data + fr.len), fr.time_ns});
  return out;
}

uint32_t be16(const std::vector<uint8_t>& b, size_t off) { return uint32_t(b[off]) << 8 | b[off + 1]; }
uint32_t be32(const std::vector<uint8_t>& b, size_t off) { return be16(b, off) << 16 | be16(b, off + 2); }

// RFC 1071, written plainly and independently of the generator's incremental version:
// the one's-complement sum over data that includes its checksum field is 0xffff when valid.
uint32_t ones_complement_sum(const std::vector<uint8_t>& b) {
  uint32_t sum = 0;
  for (size_t i = 0; i < b.size(); i += 2) {
    sum += uint32_t(b[i]) << 8 | (i + 1 < b.size() ? b[i + 1] : 0);
    sum = (sum & 0xffff) + (sum >> 16);
  }
  return sum;
}

bool ipv4_header_checksum_ok(const std::vector<uint8_t>& f) {
  return ones_complement_sum({f.begin() + 14, f.begin() + 34}) == 0xffff;
}

bool ipv6_udp_checksum_ok(const std::vector<uint8_t>& f) {
  uint32_t udp_len = be16(f, 18);  // IPv6 payload length
  std::vector<uint8_t> pseudo(f.begin() + 22, f.begin() + 54);  // source and destination address
  for (uint8_t b : {uint8_t(0), uint8_t(0), uint8_t(udp_len >> 8), uint8_t(udp_len), uint8_t(0), uint8_t(0),
                    uint8_t(0), uint8_t(17)})
    pseudo.push_back(b);
  pseudo.insert(pseudo.end(), f.begin() + 54, f.end());
  return be16(f, 60) != 0 && ones_complement_sum(pseudo) == 0xffff;
}

TEST(Generator, FramesHaveTheRequestedSizesWithoutFcs) {
  Generator g({.sizes = {64, 65, 128, 1518, 9018}});
  std::vector<Out> out = take(g, 10);
  std::vector<uint32_t> want = {60, 61, 124, 1514, 9014};
  ASSERT_EQ(out.size(), 10u);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].bytes.size(), want[i % 5]);
}

TEST(Generator, Ipv4HeaderIsValidWithChecksumAndZeroUdpChecksum) {
  Generator g({.sizes = {64, 333, 1518}, .flows = 100});
  for (const Out& o : take(g, 600)) {
    const auto& f = o.bytes;
    EXPECT_EQ(be16(f, 12), 0x0800u);
    EXPECT_EQ(f[14], 0x45);
    EXPECT_EQ(be16(f, 16), f.size() - 14);  // total length
    EXPECT_EQ(f[23], 17);                  // UDP
    EXPECT_TRUE(ipv4_header_checksum_ok(f));
    EXPECT_EQ(be16(f, 38), f.size() - 34);  // UDP length
    EXPECT_EQ(be16(f, 40), 0u);             // no UDP checksum
  }
}

TEST(Generator, Ipv6UdpChecksumIsValidForEveryFlowAndSize) {
  Generator g({.ip_version = 6, .sizes = {84, 85, 1518, 9017}, .flows = 70});
  for (const Out& o : take(g, 700)) {
    const auto& f = o.bytes;
    EXPECT_EQ(be16(f, 12), 0x86ddu);
    EXPECT_EQ(f[14] >> 4, 6);
    EXPECT_EQ(be16(f, 18), f.size() - 54);  // payload length
    EXPECT_EQ(f[20], 17);
    EXPECT_TRUE(ipv6_udp_checksum_ok(f));
  }
}

TEST(Generator, StampCarriesFlowSequenceAndScheduledTime) {
  for (int v : {4, 6}) {
    Generator g({.ip_version = v, .sizes = {128}, .flows = 3, .rate_pps = 1e6});
    std::vector<Out> out = take(g, 30, 5000);
    ASSERT_EQ(out.size(), 30u);
    for (size_t i = 0; i < out.size(); ++i) {
      std::optional<Stamp> s = decode_stamp(out[i].bytes.data(), uint32_t(out[i].bytes.size()));
      ASSERT_TRUE(s) << "frame " << i;
      EXPECT_EQ(s->flow(), i % 3);
      EXPECT_EQ(s->seq(), i / 3);
      EXPECT_EQ(s->send_time_ns, out[i].time_ns);
      EXPECT_EQ(out[i].time_ns, 5000 + 1000 * i);
    }
    EXPECT_EQ(g.sent_per_flow(), (std::vector<uint64_t>{10, 10, 10}));
  }
}

TEST(Generator, FlowsGoRoundRobinWithTheirOwnAddressesAndPorts) {
  Generator g({.flows = 4, .src_port_base = 2000, .dst_port = 7});
  std::vector<Out> out = take(g, 8);
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t f = uint32_t(i % 4);
    EXPECT_EQ(be32(out[i].bytes, 26), (198u << 24 | 18u << 16 | 1u) + f);  // 198.18.0.1 + f
    EXPECT_EQ(be32(out[i].bytes, 30), (198u << 24 | 19u << 16 | 1u) + f);  // 198.19.0.1 + f
    EXPECT_EQ(be16(out[i].bytes, 34), 2000 + f);
    EXPECT_EQ(be16(out[i].bytes, 36), 7u);
  }
  Generator g6({.ip_version = 6, .sizes = {84}, .flows = 2});
  std::vector<Out> out6 = take(g6, 2);
  EXPECT_EQ(be32(out6[1].bytes, 22 + 12), 2u);  // 2001:db8:1::1 + 1
  EXPECT_EQ(be32(out6[1].bytes, 38 + 12), 2u);
  EXPECT_EQ(be16(out6[1].bytes, 22 + 4), 1u);   // the prefix stays
}

TEST(Generator, SourcePortsWrapEvery50000Flows) {
  Generator g({.flows = 50001});
  std::vector<Out> out = take(g, 50001);
  EXPECT_EQ(be16(out[50000].bytes, 34), 1024u);
}

TEST(Generator, SmallFramesAt10GbpsAreSpaced67Point2nsOnAverage) {
  Generator g(GeneratorOptions{});  // 64 B at the default 10 Gbit/s line rate
  std::vector<Out> out = take(g, 1001, 100);
  EXPECT_EQ(out[0].time_ns, 100u);
  EXPECT_EQ(out[1000].time_ns - out[0].time_ns, 67200u);
  for (size_t i = 1; i < out.size(); ++i) {
    uint64_t gap = out[i].time_ns - out[i - 1].time_ns;
    EXPECT_TRUE(gap == 67 || gap == 68) << gap;
  }
}

TEST(Generator, GbpsRateSpacesByThePreviousFramesLayer1Bytes) {
  Generator g({.sizes = {64, 1518}, .rate_gbps_l1 = 1});
  std::vector<Out> out = take(g, 3);
  EXPECT_EQ(out[1].time_ns, 672u);           // 84 B * 8 / 1 Gbit/s
  EXPECT_EQ(out[2].time_ns, 672u + 12304u);  // + 1538 B * 8
}

TEST(Generator, RateAboveLineRateIsClampedToIt) {
  Generator fast({.rate_gbps_l1 = 40});
  Generator pps({.rate_pps = 100e6});
  std::vector<Out> a = take(fast, 1001), b = take(pps, 1001);
  EXPECT_EQ(a[1000].time_ns, 67200u);
  EXPECT_EQ(b[1000].time_ns, 67200u);
  EXPECT_NE(fast.describe().find("clamped"), std::string::npos);
}

TEST(Generator, ReportsItsRateInFramesAndLayerOneBits) {
  // 64 B and 1518 B alternate: 84 and 1538 B on the line, 811 B on average.
  Generator by_bits({.sizes = {64, 1518}, .rate_gbps_l1 = 8.11, .line_gbps = 10});
  EXPECT_DOUBLE_EQ(by_bits.rate_gbps_l1(), 8.11);
  EXPECT_NEAR(by_bits.rate_pps(), 1.25e6, 1e-3);
  Generator by_frames({.sizes = {64, 1518}, .rate_pps = 1e6, .line_gbps = 10});
  EXPECT_DOUBLE_EQ(by_frames.rate_pps(), 1e6);
  EXPECT_NEAR(by_frames.rate_gbps_l1(), 6.488, 1e-9);
  EXPECT_FALSE(by_frames.clamped());
  Generator line({.line_gbps = 100});  // no rate: 64 B at line rate, 148.8 Mpps
  EXPECT_DOUBLE_EQ(line.rate_gbps_l1(), 100);
  EXPECT_NEAR(line.rate_pps(), 100e9 / (84 * 8), 1e-3);
  Generator over({.rate_pps = 2e7, .line_gbps = 10});  // above 14.88 Mpps: clamped
  EXPECT_TRUE(over.clamped());
  EXPECT_DOUBLE_EQ(over.rate_gbps_l1(), 10);
  EXPECT_EQ(Generator({.imix = true}).options().sizes.size(), 12u);  // IMIX expanded
}

TEST(Generator, ImixSendsSmallMediumLargeAt7To4To1) {
  for (int v : {4, 6}) {
    Generator g({.ip_version = v, .imix = true});
    std::map<size_t, int> n;
    for (const Out& o : take(g, 1200)) n[o.bytes.size() + 4]++;
    size_t small = v == 4 ? 64 : 84;
    EXPECT_EQ(n, (std::map<size_t, int>{{small, 700}, {594, 400}, {1518, 100}}));
  }
}

TEST(Generator, CountStopsTheGenerator) {
  Generator g({.flows = 3, .count = 10});
  EXPECT_EQ(take(g, 100).size(), 10u);
  Frame fr;
  EXPECT_EQ(g.next(fr), wire::Next::Exhausted);
  EXPECT_EQ(g.counters().frames, 10u);
  EXPECT_EQ(g.counters().bytes, 600u);
  EXPECT_EQ(g.sent_per_flow(), (std::vector<uint64_t>{4, 3, 3}));
}

TEST(Generator, DurationStopsTheGeneratorBeforeTheFirstFrameScheduledAtOrAfterIt) {
  Generator g({.rate_pps = 1e6, .duration_ns = 10'000});
  std::vector<Out> out = take(g, 100, 1'000'000);
  ASSERT_EQ(out.size(), 10u);
  EXPECT_EQ(out.back().time_ns, 1'009'000u);
}

TEST(Generator, OutOfRangeOptionsThrowUserError) {
  EXPECT_THROW(Generator({.sizes = {63}}), UserError);
  EXPECT_THROW(Generator({.sizes = {9019}}), UserError);
  EXPECT_THROW(Generator({.sizes = {}}), UserError);
  EXPECT_THROW(Generator({.ip_version = 6, .sizes = {83}}), UserError);
  EXPECT_NO_THROW(Generator({.ip_version = 6, .sizes = {84, 9018}}));
  EXPECT_THROW(Generator({.ip_version = 5}), UserError);
  EXPECT_THROW(Generator({.flows = 0}), UserError);
  EXPECT_THROW(Generator({.flows = 65537}), UserError);
  EXPECT_THROW(Generator({.rate_pps = 1, .rate_gbps_l1 = 1}), UserError);
  EXPECT_THROW(Generator({.line_gbps = 0}), UserError);
}

TEST(Generator, TooSmallIpv6SizeMessageSaysWhatFits) {
  try {
    Generator g({.ip_version = 6, .sizes = {64}});
    FAIL() << "no exception";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("84"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gnf::wire
