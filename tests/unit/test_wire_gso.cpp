// Segmenting TSO/GRO super-frames as a NIC does (wire/gso.h), and reading the kernel's
// virtio_net_hdr. tests/e2e/test_gso_oracle.py checks the same against scapy's segments.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "wire/bytes.h"
#include "wire/checksum.h"
#include "wire/gso.h"

namespace gnf::wire {
namespace {

constexpr uint8_t kTcp = 6, kUdp = 17;
constexpr uint8_t kFin = 0x01, kPsh = 0x08, kAck = 0x10, kCwr = 0x80;

struct Super {
  std::vector<uint8_t> frame;
  uint32_t l3, l4, headers;
  bool v6;
  uint8_t proto;
};

// A super-frame as a stack with TSO/USO hands it to a veth: one IP packet of `payload` bytes
// (up to 64 KB), its checksum field holding a stale value (GRO) or the pseudo-header's sum.
Super super_frame(bool v6, uint8_t proto, uint32_t payload, bool tagged = false, uint8_t flags = kAck | kPsh | kFin) {
  Super s;
  s.v6 = v6;
  s.proto = proto;
  s.l3 = tagged ? 18 : 14;
  s.l4 = s.l3 + (v6 ? 40 : 20);
  s.headers = s.l4 + (proto == kTcp ? 32 : 8);  // TCP with 12 bytes of options (a timestamp)
  std::vector<uint8_t>& f = s.frame;
  f.assign(s.headers + payload, 0);
  for (size_t i = 0; i < 12; ++i) f[i] = uint8_t(0x10 + i);
  if (tagged) {
    store_be16(&f[12], 0x8100);
    store_be16(&f[14], 7);
  }
  store_be16(&f[s.l3 - 2], v6 ? 0x86dd : 0x0800);
  uint8_t* ip = &f[s.l3];
  if (v6) {
    ip[0] = 0x60;
    store_be16(ip + 4, uint16_t(f.size() - s.l4));
    ip[6] = proto;
    ip[7] = 64;
    for (int i = 0; i < 32; ++i) ip[8 + i] = uint8_t(0x20 + 7 * i);
  } else {
    ip[0] = 0x45;
    store_be16(ip + 2, uint16_t(f.size() - s.l3));
    store_be16(ip + 4, 0xfffe);  // the identification wraps within the super-frame
    ip[6] = 0x40;                // DF
    ip[8] = 64;
    ip[9] = proto;
    store_be32(ip + 12, 0x0a000002);
    store_be32(ip + 16, 0x0a000102);
  }
  uint8_t* l4 = &f[s.l4];
  store_be16(l4, 40000);
  store_be16(l4 + 2, 5201);
  if (proto == kTcp) {
    store_be32(l4 + 4, 0xfffff000);  // the sequence number wraps too
    store_be32(l4 + 8, 12345);
    l4[12] = 8 << 4;
    l4[13] = flags;
    store_be16(l4 + 14, 502);
    l4[20] = 1, l4[21] = 1, l4[22] = 8, l4[23] = 10;  // NOP NOP timestamp
  } else {
    store_be16(l4 + 4, uint16_t(f.size() - s.l4));
  }
  store_be16(l4 + (proto == kTcp ? 16 : 6), 0x1234);
  for (uint32_t i = 0; i < payload; ++i) f[s.headers + i] = uint8_t(i * 131 + i / 251);
  return s;
}

VnetHeader gso_header(const Super& s, uint16_t gso_size, bool needs_csum = true) {
  VnetHeader v;
  v.needs_csum = needs_csum;
  v.gso = s.proto == kUdp ? VnetHeader::Gso::UdpL4 : s.v6 ? VnetHeader::Gso::TcpV6 : VnetHeader::Gso::TcpV4;
  v.gso_size = gso_size;
  v.hdr_len = uint16_t(s.headers);
  v.csum_start = uint16_t(s.l4);
  v.csum_offset = s.proto == kTcp ? 16 : 6;
  return v;
}

bool l4_checksum_verifies(const uint8_t* f, uint32_t len, const Super& s) {
  const uint8_t* ip = f + s.l3;
  uint64_t sum = s.v6 ? checksum_add(0, ip + 8, 32) : checksum_add(0, ip + 12, 8);
  sum += s.proto + (len - s.l4);
  return checksum_finish(checksum_add(sum, f + s.l4, len - s.l4)) == 0;
}

TEST(Gso, ATcpSuperFrameIsCutIntoMssSegmentsAsTsoWould) {
  for (bool v6 : {false, true})
    for (bool tagged : {false, true}) {
      Super s = super_frame(v6, kTcp, 10000, tagged);
      GsoSegments out;
      ASSERT_EQ(gso_segment(s.frame.data(), uint32_t(s.frame.size()), gso_header(s, 1448), out), GsoResult::Ok);
      ASSERT_EQ(out.frames.size(), 7u);  // 6 x 1448 + 1312
      std::vector<uint8_t> payload;
      for (size_t i = 0; i < out.frames.size(); ++i) {
        SCOPED_TRACE(testing::Message() << "v6 " << v6 << " tagged " << tagged << " segment " << i);
        const uint8_t* f = out.bytes.data() + out.frames[i].offset;
        uint32_t len = out.frames[i].len;
        uint32_t chunk = i < 6 ? 1448 : 1312;
        ASSERT_EQ(len, s.headers + chunk);
        EXPECT_EQ(std::memcmp(f, s.frame.data(), s.l3), 0);  // Ethernet header and tag as they were
        const uint8_t* ip = f + s.l3;
        if (v6) {
          EXPECT_EQ(load_be16(ip + 4), len - s.l4);
        } else {
          EXPECT_EQ(load_be16(ip + 2), len - s.l3);
          EXPECT_EQ(load_be16(ip + 4), uint16_t(0xfffe + i));
          EXPECT_EQ(checksum_finish(checksum_add(0, ip, 20)), 0);
        }
        const uint8_t* tcp = f + s.l4;
        EXPECT_EQ(load_be32(tcp + 4), uint32_t(0xfffff000u + i * 1448));
        EXPECT_EQ(load_be32(tcp + 8), 12345u);
        EXPECT_EQ(tcp[13], i < 6 ? kAck : kAck | kPsh | kFin);
        EXPECT_EQ(std::memcmp(tcp + 20, s.frame.data() + s.l4 + 20, 12), 0);  // options copied
        EXPECT_TRUE(l4_checksum_verifies(f, len, s));
        payload.insert(payload.end(), f + s.headers, f + len);
      }
      EXPECT_EQ(payload, std::vector<uint8_t>(s.frame.begin() + s.headers, s.frame.end()));
    }
}

TEST(Gso, CwrStaysOnTheFirstSegmentOnly) {
  Super s = super_frame(false, kTcp, 3000, false, kAck | kCwr);
  GsoSegments out;
  ASSERT_EQ(gso_segment(s.frame.data(), uint32_t(s.frame.size()), gso_header(s, 1000), out), GsoResult::Ok);
  ASSERT_EQ(out.frames.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(out.bytes[out.frames[i].offset + s.l4 + 13], i ? kAck : kAck | kCwr) << i;
}

TEST(Gso, AUdpSuperFrameIsCutIntoDatagramsWithTheirOwnLengthAndChecksum) {
  for (bool v6 : {false, true}) {
    Super s = super_frame(v6, kUdp, 4000);
    GsoSegments out;
    ASSERT_EQ(gso_segment(s.frame.data(), uint32_t(s.frame.size()), gso_header(s, 1400), out), GsoResult::Ok);
    ASSERT_EQ(out.frames.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      const uint8_t* f = out.bytes.data() + out.frames[i].offset;
      uint32_t len = out.frames[i].len;
      EXPECT_EQ(len, s.headers + (i < 2 ? 1400 : 1200)) << i;
      EXPECT_EQ(load_be16(f + s.l4 + 4), len - s.l4) << i;
      EXPECT_TRUE(l4_checksum_verifies(f, len, s)) << i;
    }
  }
}

TEST(Gso, WithoutChecksumMetadataTheHeadersSayWhereTransportStarts) {
  // A GRO'd frame from a NIC that checked the checksums (DATA_VALID, not NEEDS_CSUM).
  Super s = super_frame(true, kTcp, 3000);
  GsoSegments out;
  ASSERT_EQ(gso_segment(s.frame.data(), uint32_t(s.frame.size()), gso_header(s, 1448, false), out), GsoResult::Ok);
  ASSERT_EQ(out.frames.size(), 3u);
  for (auto span : out.frames) EXPECT_TRUE(l4_checksum_verifies(out.bytes.data() + span.offset, span.len, s));
}

TEST(Gso, ASuperFrameOfOneSegmentGetsItsChecksumOnly) {
  Super s = super_frame(false, kTcp, 500);
  GsoSegments out;
  ASSERT_EQ(gso_segment(s.frame.data(), uint32_t(s.frame.size()), gso_header(s, 1448), out), GsoResult::Ok);
  ASSERT_EQ(out.frames.size(), 1u);
  EXPECT_EQ(out.frames[0].len, s.frame.size());
  EXPECT_TRUE(l4_checksum_verifies(out.bytes.data(), out.frames[0].len, s));
}

TEST(Gso, ShortSegmentsHaveRoomToBePaddedToTheEthernetMinimum) {
  Super s = super_frame(false, kUdp, 3);
  GsoSegments out;
  ASSERT_EQ(gso_segment(s.frame.data(), uint32_t(s.frame.size()), gso_header(s, 1), out), GsoResult::Ok);
  ASSERT_EQ(out.frames.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(out.frames[i].offset, 60 * i);
  EXPECT_EQ(out.bytes.size(), 180u);
}

TEST(Gso, MetadataThatDisagreesWithTheFrameIsRefused) {
  Super tcp4 = super_frame(false, kTcp, 3000);
  auto result = [](const Super& s, VnetHeader v, uint32_t len = 0) {
    GsoSegments out;
    return gso_segment(s.frame.data(), len ? len : uint32_t(s.frame.size()), v, out);
  };
  VnetHeader v = gso_header(tcp4, 1448);
  EXPECT_EQ(result(tcp4, v), GsoResult::Ok);
  VnetHeader bad = v;
  bad.gso_size = 0;
  EXPECT_EQ(result(tcp4, bad), GsoResult::Malformed);
  bad = v;
  bad.gso = VnetHeader::Gso::TcpV6;  // an IPv4 packet
  EXPECT_EQ(result(tcp4, bad), GsoResult::Malformed);
  bad = v;
  bad.gso = VnetHeader::Gso::UdpL4;  // a TCP segment
  EXPECT_EQ(result(tcp4, bad), GsoResult::Malformed);
  bad = v;
  bad.csum_start = uint16_t(tcp4.l4 + 4);
  EXPECT_EQ(result(tcp4, bad), GsoResult::Malformed);
  bad = v;
  bad.gso = VnetHeader::Gso::None;
  EXPECT_EQ(result(tcp4, bad), GsoResult::Malformed);
  EXPECT_EQ(result(tcp4, v, uint32_t(tcp4.frame.size() - 1)), GsoResult::Malformed);  // shorter than IP says
  EXPECT_EQ(result(tcp4, v, 40), GsoResult::Malformed);
  Super odd = tcp4;
  odd.frame[tcp4.l4 + 12] = 4 << 4;  // a TCP header of 16 bytes
  EXPECT_EQ(result(odd, v), GsoResult::Malformed);
  bad = v;
  bad.gso_size = 1;  // 3000 segments
  EXPECT_EQ(result(tcp4, bad), GsoResult::TooMany);
}

// The segments of `s` (cut at `mss`), each a frame of its own.
std::vector<std::vector<uint8_t>> segments_of(const Super& s, uint16_t mss) {
  GsoSegments out;
  EXPECT_EQ(gso_segment(s.frame.data(), uint32_t(s.frame.size()), gso_header(s, mss), out), GsoResult::Ok);
  std::vector<std::vector<uint8_t>> frames;
  for (auto span : out.frames)
    frames.emplace_back(out.bytes.begin() + span.offset, out.bytes.begin() + span.offset + span.len);
  return frames;
}

TEST(SuperFrameBuilder, ConsecutiveSegmentsBecomeTheSuperFrameTheyWereCutFrom) {
  for (bool v6 : {false, true})
    for (bool tagged : {false, true}) {
      SCOPED_TRACE(testing::Message() << "v6 " << v6 << " tagged " << tagged);
      Super s = super_frame(v6, kTcp, 10000, tagged, kAck | kPsh);
      SuperFrameBuilder builder(65600);
      for (const auto& seg : segments_of(s, 1448)) ASSERT_TRUE(builder.add(seg.data(), uint32_t(seg.size())));
      EXPECT_EQ(builder.segments(), 7u);
      std::vector<uint8_t> out(VnetHeader::kBytes + 65600);
      uint32_t n = builder.finish(out.data());
      EXPECT_EQ(builder.segments(), 0u);
      ASSERT_EQ(n, VnetHeader::kBytes + s.frame.size());
      VnetHeader v;
      ASSERT_TRUE(parse_vnet_header(out.data(), v));
      EXPECT_TRUE(v.needs_csum);
      EXPECT_EQ(v.gso, v6 ? VnetHeader::Gso::TcpV6 : VnetHeader::Gso::TcpV4);
      EXPECT_EQ(v.gso_size, 1448);
      EXPECT_EQ(v.hdr_len, s.headers);
      EXPECT_EQ(v.csum_start, s.l4);
      EXPECT_EQ(v.csum_offset, 16);
      std::vector<uint8_t> rebuilt(out.begin() + VnetHeader::kBytes, out.begin() + n);
      // The same bytes but the checksums: IPv4's whole, TCP's the pseudo-header's sum (partial).
      std::vector<uint8_t> expected = s.frame;
      std::memcpy(&expected[s.l4 + 16], &rebuilt[s.l4 + 16], 2);
      if (!v6) std::memcpy(&expected[s.l3 + 10], &rebuilt[s.l3 + 10], 2);
      EXPECT_EQ(rebuilt, expected);
      if (!v6) EXPECT_EQ(checksum_finish(checksum_add(0, &rebuilt[s.l3], 20)), 0);
      // Cut again (as the kernel does, or the receiving stack takes it whole): the same segments.
      Super again = s;
      again.frame = rebuilt;
      EXPECT_EQ(segments_of(again, 1448), segments_of(s, 1448));
    }
}

TEST(SuperFrameBuilder, OnlyWhatContinuesTheSuperFrameIsTaken) {
  Super s = super_frame(false, kTcp, 5000, false, kAck);
  auto segs = segments_of(s, 1000);  // 5 of 1000
  auto add = [](SuperFrameBuilder& b, const std::vector<uint8_t>& f) { return b.add(f.data(), uint32_t(f.size())); };
  SuperFrameBuilder b(65600);
  ASSERT_TRUE(add(b, segs[0]));
  EXPECT_FALSE(add(b, segs[2]));  // a gap in the sequence
  EXPECT_FALSE(add(b, segs[0]));  // the same again
  auto bad = segs[1];
  bad.back() ^= 1;  // its checksum no longer verifies
  EXPECT_FALSE(add(b, bad));
  auto other_flow = segs[1];
  store_be16(&other_flow[s.l4], 40001);
  store_be16(&other_flow[s.l4 + 16], 0);
  store_be16(&other_flow[s.l4 + 16], checksum_finish(checksum_add(checksum_add(0, &other_flow[s.l3 + 12], 8) + 6 +
                                                                      (other_flow.size() - s.l4),
                                                                  &other_flow[s.l4], other_flow.size() - s.l4)));
  EXPECT_FALSE(add(b, other_flow));
  EXPECT_TRUE(add(b, segs[1]));
  EXPECT_EQ(b.segments(), 2u);
  b.clear();

  Super fin = super_frame(false, kTcp, 3000, false, kAck | kFin);
  auto fins = segments_of(fin, 1000);
  EXPECT_TRUE(add(b, fins[0]) && add(b, fins[1]));
  EXPECT_FALSE(add(b, fins[2]));  // FIN: sent as it is
  b.clear();

  Super psh = super_frame(false, kTcp, 3000, false, kAck);
  auto pshs = segments_of(psh, 1000);
  pshs[1][s.l4 + 13] |= kPsh;
  store_be16(&pshs[1][s.l4 + 16], uint16_t(load_be16(&pshs[1][s.l4 + 16]) - kPsh));  // RFC 1624 by hand: +8 in the word
  ASSERT_TRUE(add(b, pshs[0]));
  EXPECT_TRUE(add(b, pshs[1]));   // PSH ends the super-frame ...
  EXPECT_FALSE(add(b, pshs[2]));  // ... so the next starts another
  std::vector<uint8_t> out(VnetHeader::kBytes + 65600);
  uint32_t n = b.finish(out.data());
  EXPECT_EQ(n, VnetHeader::kBytes + s.headers + 2000);
  EXPECT_EQ(out[VnetHeader::kBytes + s.l4 + 13], kAck | kPsh);

  // One segment goes as it came, with a header that asks for nothing.
  ASSERT_TRUE(add(b, segs[4]));
  n = b.finish(out.data());
  EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.begin() + VnetHeader::kBytes), std::vector<uint8_t>(VnetHeader::kBytes, 0));
  EXPECT_EQ(std::vector<uint8_t>(out.begin() + VnetHeader::kBytes, out.begin() + n), segs[4]);
  // Not TCP with a payload: never taken.
  std::vector<uint8_t> arp(60, 0);
  store_be16(&arp[12], 0x0806);
  EXPECT_FALSE(add(b, arp));
}

TEST(Gso, TheKernelsVirtioNetHdrIsRead) {
  // flags NEEDS_CSUM, gso TCPV4 with the ECN bit, hdr_len 66, gso_size 1448, csum 34 + 16 (host order).
  uint8_t raw[VnetHeader::kBytes] = {1, 0x81};
  uint16_t fields[4] = {66, 1448, 34, 16};
  std::memcpy(raw + 2, fields, sizeof(fields));
  VnetHeader v;
  ASSERT_TRUE(parse_vnet_header(raw, v));
  EXPECT_TRUE(v.needs_csum);
  EXPECT_EQ(v.gso, VnetHeader::Gso::TcpV4);
  EXPECT_EQ(v.hdr_len, 66);
  EXPECT_EQ(v.gso_size, 1448);
  EXPECT_EQ(v.csum_start, 34);
  EXPECT_EQ(v.csum_offset, 16);
  for (uint8_t type : {4, 5}) {
    raw[1] = type;
    EXPECT_TRUE(parse_vnet_header(raw, v)) << int(type);
  }
  raw[1] = 3;  // VIRTIO_NET_HDR_GSO_UDP: UFO, IP fragments, not segments
  EXPECT_FALSE(parse_vnet_header(raw, v));
  raw[1] = 0x42;
  EXPECT_FALSE(parse_vnet_header(raw, v));
}

}  // namespace
}  // namespace gnf::wire
