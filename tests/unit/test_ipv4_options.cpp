// IPv4 options as the router's slow path acts on them in transit (ctl/ipv4_options.h): record route
// and timestamp filled in (RFC 1812 5.3.13.5-6, RFC 791), source routes left to drop, malformed
// options a parameter problem at the offending byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ctl/ipv4_options.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

namespace gnf {
namespace {

using ctl::OptionVerdict;

constexpr uint32_t kOut = 0x0a000101, kIn = 0x0a000001, kNow = 12'345'678;  // 10.0.1.1, 10.0.0.1
const ctl::OptionStamp kStamp{kOut, kIn, kNow, [](uint32_t a) { return a == kOut || a == kIn; }};

// An IPv4 header (20 bytes) with `options` behind it, padded with end-of-list to a multiple of 4,
// its checksum right.
std::vector<uint8_t> header_with(std::vector<uint8_t> options) {
  options.resize((options.size() + 3) / 4 * 4, 0);
  const uint8_t bytes = uint8_t(20 + options.size());
  std::vector<uint8_t> ip = {uint8_t(0x40 | bytes / 4), 0, 0, bytes, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 5, 198, 19, 0, 9};
  ip.resize(bytes);
  std::copy(options.begin(), options.end(), ip.begin() + 20);
  wire::store_be16(&ip[10], wire::checksum_finish(wire::checksum_add(0, ip.data(), ip.size())));
  return ip;
}

bool checksum_right(const std::vector<uint8_t>& ip) {
  return wire::checksum_finish(wire::checksum_add(0, ip.data(), ip.size())) == 0;
}

TEST(Ipv4Options, RecordRouteTakesTheOutputAddressUntilFull) {
  std::vector<uint8_t> ip = header_with({1, 7, 11, 4, 0, 0, 0, 0, 0, 0, 0, 0});  // NOP, two slots
  ASSERT_EQ(act_on_ipv4_options(ip.data(), kStamp).kind, OptionVerdict::kForward);
  EXPECT_EQ(ip[23], 8);
  EXPECT_EQ(wire::load_be32(&ip[24]), kOut);
  EXPECT_TRUE(checksum_right(ip));
  ASSERT_EQ(act_on_ipv4_options(ip.data(), kStamp).kind, OptionVerdict::kForward);
  EXPECT_EQ(ip[23], 12);
  EXPECT_EQ(wire::load_be32(&ip[28]), kOut);
  const std::vector<uint8_t> full = ip;  // RFC 791: no room left, forwarded unchanged
  ASSERT_EQ(act_on_ipv4_options(ip.data(), kStamp).kind, OptionVerdict::kForward);
  EXPECT_EQ(ip, full);
}

TEST(Ipv4Options, TimestampsByFlag) {
  std::vector<uint8_t> only = header_with({68, 12, 5, 0x00, 0, 0, 0, 0, 0, 0, 0, 0});
  ASSERT_EQ(act_on_ipv4_options(only.data(), kStamp).kind, OptionVerdict::kForward);
  EXPECT_EQ(only[22], 9);
  EXPECT_EQ(wire::load_be32(&only[24]), kNow);
  EXPECT_TRUE(checksum_right(only));

  std::vector<uint8_t> with_address = header_with({68, 12, 5, 0x01, 0, 0, 0, 0, 0, 0, 0, 0});
  ASSERT_EQ(act_on_ipv4_options(with_address.data(), kStamp).kind, OptionVerdict::kForward);
  EXPECT_EQ(with_address[22], 13);
  EXPECT_EQ(wire::load_be32(&with_address[24]), kIn);
  EXPECT_EQ(wire::load_be32(&with_address[28]), kNow);

  // Prespecified: stamped only where the address is the router's, else left for the one it names.
  std::vector<uint8_t> theirs = header_with({68, 20, 5, 0x03, 192, 0, 2, 7, 0, 0, 0, 0, 10, 0, 1, 1, 0, 0, 0, 0});
  const std::vector<uint8_t> before = theirs;
  ASSERT_EQ(act_on_ipv4_options(theirs.data(), kStamp).kind, OptionVerdict::kForward);
  EXPECT_EQ(theirs, before);
  std::vector<uint8_t> ours = header_with({68, 20, 5, 0x03, 10, 0, 1, 1, 0, 0, 0, 0, 192, 0, 2, 7, 0, 0, 0, 0});
  ASSERT_EQ(act_on_ipv4_options(ours.data(), kStamp).kind, OptionVerdict::kForward);
  EXPECT_EQ(ours[22], 13);
  EXPECT_EQ(wire::load_be32(&ours[28]), kNow);
  EXPECT_TRUE(checksum_right(ours));
}

TEST(Ipv4Options, AFullTimestampCountsItsOverflowUntilTheCounterWraps) {
  std::vector<uint8_t> ip = header_with({68, 8, 9, 0xe0, 0, 0, 0, 1});  // full, overflow 14, flag 0
  ASSERT_EQ(act_on_ipv4_options(ip.data(), kStamp).kind, OptionVerdict::kForward);
  EXPECT_EQ(ip[23], 0xf0);
  EXPECT_TRUE(checksum_right(ip));
  const std::vector<uint8_t> at_15 = ip;
  const OptionVerdict wraps = act_on_ipv4_options(ip.data(), kStamp);
  EXPECT_EQ(wraps.kind, OptionVerdict::kProblem);
  EXPECT_EQ(wraps.pointer, 23u);  // the overflow and flag byte
  EXPECT_EQ(ip, at_15);
  std::vector<uint8_t> prespecified = header_with({68, 12, 13, 0x03, 10, 0, 1, 1, 0, 0, 0, 1});
  const std::vector<uint8_t> before = prespecified;  // every prespecified router had its turn: nothing counts
  ASSERT_EQ(act_on_ipv4_options(prespecified.data(), kStamp).kind, OptionVerdict::kForward);
  EXPECT_EQ(prespecified, before);
}

TEST(Ipv4Options, MalformedOptionsPointAtTheOffendingByte) {
  struct Case {
    const char* what;
    std::vector<uint8_t> options;
    uint32_t pointer;
  };
  const std::vector<Case> cases = {
      {"length past the options", {1, 0x1e, 16, 0}, 21},
      {"record route pointer below 4", {7, 7, 3, 0, 0, 0, 0}, 22},
      {"record route room for part of an address", {7, 9, 8, 0, 0, 0, 0, 0, 0}, 22},
      {"record route twice", {7, 3, 4, 7, 3, 4}, 23},
      {"timestamp shorter than 4", {68, 3, 5}, 21},
      {"timestamp pointer below 5", {68, 8, 4, 0, 0, 0, 0, 0}, 22},
      {"timestamp with address, room for half", {68, 8, 5, 1, 0, 0, 0, 0}, 22},
      {"source route pointer below 4", {131, 7, 2, 0, 0, 0, 0}, 22},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> ip = header_with(c.options);
    const std::vector<uint8_t> before = ip;
    const OptionVerdict v = act_on_ipv4_options(ip.data(), kStamp);
    EXPECT_EQ(v.kind, OptionVerdict::kProblem) << c.what;
    EXPECT_EQ(v.pointer, c.pointer) << c.what;
    EXPECT_EQ(ip, before) << c.what;
  }
}

TEST(Ipv4Options, SourceRoutesAreLeftToDropAfterTheRestIsChecked) {
  std::vector<uint8_t> lsrr = header_with({131, 7, 4, 10, 0, 1, 2});
  EXPECT_EQ(act_on_ipv4_options(lsrr.data(), kStamp).kind, OptionVerdict::kSourceRoute);
  std::vector<uint8_t> ssrr = header_with({137, 7, 4, 10, 0, 1, 2});
  EXPECT_EQ(act_on_ipv4_options(ssrr.data(), kStamp).kind, OptionVerdict::kSourceRoute);
  // As Linux: a malformed option anywhere is a parameter problem, a source route before it or not.
  std::vector<uint8_t> then_bad = header_with({131, 7, 4, 10, 0, 1, 2, 7, 3, 1});
  EXPECT_EQ(act_on_ipv4_options(then_bad.data(), kStamp).kind, OptionVerdict::kProblem);
}

TEST(Ipv4Options, UncopiedOptionsBecomeNoOperations) {
  std::vector<uint8_t> options = {0x07, 3, 4, 0x83, 3, 4, 0x44, 4, 5, 0, 1, 0};  // RR, LSRR, TS, NOP, end
  ctl::nop_uncopied_options(options.data(), uint32_t(options.size()));
  EXPECT_EQ(options, (std::vector<uint8_t>{1, 1, 1, 0x83, 3, 4, 1, 1, 1, 1, 1, 0}));
}

}  // namespace
}  // namespace gnf
