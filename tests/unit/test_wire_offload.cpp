// Finishing frames a local stack left to NIC offloads: runts padded, TCP/UDP checksums filled in.
#include <gtest/gtest.h>

#include <vector>

#include "wire/bytes.h"
#include "wire/checksum.h"
#include "wire/offload.h"

namespace gnf::wire {
namespace {

constexpr uint8_t kTcp = 6, kUdp = 17;

// The pseudo-header's sum (RFC 768, RFC 8200 section 8.1) of the segment at `l4`.
uint64_t pseudo_sum(const std::vector<uint8_t>& f, size_t l3, bool v6, uint8_t proto, uint32_t l4_len) {
  uint64_t sum = v6 ? checksum_add(0, f.data() + l3 + 8, 32) : checksum_add(0, f.data() + l3 + 12, 8);
  return sum + proto + l4_len;
}

// An Ethernet frame (optionally 802.1Q-tagged) with IPv4 or IPv6 and a TCP or UDP segment of
// `payload` bytes whose checksum field holds only the pseudo-header's sum, as checksum offload
// leaves it (CHECKSUM_PARTIAL).
std::vector<uint8_t> partial_frame(bool v6, uint8_t proto, uint32_t payload, bool tagged = false) {
  size_t l3 = tagged ? 18 : 14;
  uint32_t l4_len = (proto == kTcp ? 20 : 8) + payload;
  std::vector<uint8_t> f(l3 + (v6 ? 40 : 20) + l4_len);
  for (size_t i = 0; i < 12; ++i) f[i] = uint8_t(0x10 + i);
  if (tagged) {
    store_be16(&f[12], 0x8100);
    store_be16(&f[14], 42);
  }
  store_be16(&f[l3 - 2], v6 ? 0x86dd : 0x0800);
  uint8_t* ip = &f[l3];
  if (v6) {
    ip[0] = 0x60;
    store_be16(ip + 4, uint16_t(l4_len));
    ip[6] = proto;
    ip[7] = 64;
    for (int i = 0; i < 32; ++i) ip[8 + i] = uint8_t(0x20 + 7 * i);
  } else {
    ip[0] = 0x45;
    store_be16(ip + 2, uint16_t(20 + l4_len));
    ip[8] = 64;
    ip[9] = proto;
    store_be32(ip + 12, 0x0a000001);
    store_be32(ip + 16, 0x0a000002);
  }
  size_t l4 = l3 + (v6 ? 40 : 20);
  store_be16(&f[l4], 40000);
  store_be16(&f[l4 + 2], 7777);
  if (proto == kUdp) store_be16(&f[l4 + 4], uint16_t(l4_len));
  if (proto == kTcp) f[l4 + 12] = 5 << 4;
  for (uint32_t i = 0; i < payload; ++i) f[f.size() - payload + i] = uint8_t(i * 31 + 7);
  uint16_t field = proto == kTcp ? 16 : 6;
  // Folded but not complemented: what the stack writes for the hardware to finish.
  store_be16(&f[l4 + field], uint16_t(~checksum_finish(pseudo_sum(f, l3, v6, proto, l4_len))));
  return f;
}

// A receiver's check: pseudo-header plus segment, checksum included, sums to all ones.
bool checksum_verifies(const std::vector<uint8_t>& f, bool v6, uint8_t proto, bool tagged = false) {
  size_t l3 = tagged ? 18 : 14, l4 = l3 + (v6 ? 40 : 20);
  uint32_t l4_len = uint32_t(f.size() - l4);
  return checksum_finish(checksum_add(pseudo_sum(f, l3, v6, proto, l4_len), f.data() + l4, l4_len)) == 0;
}

TEST(Offload, AShortFrameIsPaddedWithZerosToTheEthernetMinimum) {
  std::vector<uint8_t> f(60, 0xee);
  std::fill(f.begin(), f.begin() + 42, 0x11);
  EXPECT_EQ(pad_to_minimum(f.data(), 42), 60u);
  for (size_t i = 42; i < 60; ++i) EXPECT_EQ(f[i], 0) << i;
  EXPECT_EQ(pad_to_minimum(f.data(), 60), 60u);
  EXPECT_EQ(pad_to_minimum(f.data(), 1514), 1514u);  // left alone
}

TEST(Offload, PartialChecksumsOfTcpAndUdpOverIpv4AndIpv6AreCompletedWhereTheKernelSays) {
  for (bool v6 : {false, true})
    for (uint8_t proto : {kTcp, kUdp})
      for (uint32_t payload : {0u, 1u, 18u, 1001u}) {
        std::vector<uint8_t> f = partial_frame(v6, proto, payload);
        ASSERT_FALSE(checksum_verifies(f, v6, proto));
        ASSERT_TRUE(complete_checksum_at(f.data(), uint32_t(f.size()), v6 ? 54 : 34, proto == kTcp ? 16 : 6));
        EXPECT_TRUE(checksum_verifies(f, v6, proto)) << "v6 " << v6 << " proto " << int(proto) << " " << payload;
      }
}

TEST(Offload, ATaggedFrameIsCompletedBehindItsTag) {
  std::vector<uint8_t> f = partial_frame(false, kUdp, 100, true);
  ASSERT_TRUE(complete_checksum_at(f.data(), uint32_t(f.size()), 38, 6));
  EXPECT_TRUE(checksum_verifies(f, false, kUdp, true));
}

TEST(Offload, AUdpChecksumOfZeroIsSentAsAllOnes) {
  // Some value of the last payload word makes the sum come out 0: it is written as 0xffff.
  for (uint32_t word = 0; word <= 0xffff; ++word) {
    std::vector<uint8_t> f = partial_frame(false, kUdp, 2);
    store_be16(&f[f.size() - 2], uint16_t(word));
    store_be16(&f[40], uint16_t(~checksum_finish(pseudo_sum(f, 14, false, kUdp, 10))));
    ASSERT_TRUE(complete_checksum_at(f.data(), uint32_t(f.size()), 34, 6));
    EXPECT_NE(load_be16(&f[40]), 0);
    if (load_be16(&f[40]) == 0xffff && checksum_verifies(f, false, kUdp)) return;
  }
  FAIL() << "no payload word gave a zero sum";
}

TEST(Offload, AFieldOutsideTheFrameOrNotTcpOrUdpIsLeftAlone) {
  std::vector<uint8_t> f = partial_frame(false, kTcp, 100);
  std::vector<uint8_t> before = f;
  uint32_t len = uint32_t(f.size());
  EXPECT_FALSE(complete_checksum_at(f.data(), len, len, 16));
  EXPECT_FALSE(complete_checksum_at(f.data(), len, len - 17, 16));
  EXPECT_FALSE(complete_checksum_at(f.data(), len, 34, 0xffff));
  EXPECT_FALSE(complete_checksum_at(f.data(), len, 0xffff, 16));
  EXPECT_FALSE(complete_checksum_at(f.data(), len, 34, 8));  // SCTP's CRC32c is not ours to compute
  EXPECT_EQ(f, before);
  EXPECT_TRUE(complete_checksum_at(f.data(), len, len - 18, 16));  // the field's last bytes are the frame's
}

}  // namespace
}  // namespace gnf::wire
