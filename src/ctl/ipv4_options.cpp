#include "ctl/ipv4_options.h"

#include <array>
#include <cstring>
#include <optional>

#include "nf/l3fwd/l3fwd.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

namespace gnf::ctl {

namespace {

using View = nf::L3FwdView;
constexpr uint32_t kOptionsAt = 20;  // the options follow the fixed header
constexpr uint8_t kTimeOnly = 0, kTimeAndAddress = 1, kPrespecified = 3;

// One option's pointer (its third byte), as record route, source routes and timestamps check it:
// the offending byte if the option is too short for one or the pointer is below `lowest`.
std::optional<uint32_t> bad_pointer(const uint8_t* option, uint32_t at, uint8_t shortest, uint8_t lowest) {
  if (option[1] < shortest) return at + 1;
  if (option[2] < lowest) return at + 2;
  return std::nullopt;
}

// A timestamp option with room left (its pointer within its length) filled in, or the offending byte.
std::optional<uint32_t> stamp_time(uint8_t* option, uint32_t at, const OptionStamp& stamp) {
  const uint8_t flag = option[3] & 0xf;
  const uint32_t slot = option[2] - 1u, slot_bytes = flag == kTimeOnly ? 4 : 8;
  if (slot + 4 > option[1]) return at + 2;  // room, but not for a whole slot
  if (flag != kTimeOnly && flag != kTimeAndAddress && flag != kPrespecified) return std::nullopt;
  if (slot + slot_bytes > option[1]) return at + 2;
  if (flag == kPrespecified && !stamp.ours(wire::load_be32(option + slot))) return std::nullopt;
  if (flag == kTimeAndAddress) wire::store_be32(option + slot, stamp.timestamp_address);
  wire::store_be32(option + slot + slot_bytes - 4, stamp.milliseconds);
  option[2] = uint8_t(option[2] + slot_bytes);
  return std::nullopt;
}

// A timestamp option without room: the overflow counter (the high four bits of the fourth byte) up.
std::optional<uint32_t> count_overflow(uint8_t* option, uint32_t at) {
  if ((option[3] & 0xf) == kPrespecified) return std::nullopt;
  if (option[3] >> 4 == 15) return at + 3;
  option[3] = uint8_t(option[3] + 0x10);
  return std::nullopt;
}

}  // namespace

OptionVerdict act_on_ipv4_options(uint8_t* ip, const OptionStamp& stamp) {
  const uint32_t len = (ip[0] & 0xfu) * 4 - kOptionsAt;
  std::array<uint8_t, 40> o;  // acted on in a copy: a problem found later leaves the header as it was
  std::memcpy(o.data(), ip + kOptionsAt, len);
  bool record_route = false, timestamp = false, source_route = false;
  for (uint32_t i = 0; i < len;) {
    const uint8_t type = o[i];
    if (type == View::kIpv4OptionEnd) break;
    if (type == View::kIpv4OptionNop) {
      ++i;
      continue;
    }
    if (i + 1 >= len || o[i + 1] < 2 || i + o[i + 1] > len) return {OptionVerdict::kProblem, kOptionsAt + i};
    uint8_t* option = &o[i];
    bool* seen = type == View::kIpv4OptionRecordRoute ? &record_route
                 : type == View::kIpv4OptionTimestamp ? &timestamp
                 : type == View::kIpv4OptionLsrr || type == View::kIpv4OptionSsrr ? &source_route
                                                                                   : nullptr;
    std::optional<uint32_t> problem;
    if (seen && *seen) problem = i;  // each at most once
    else if (type == View::kIpv4OptionTimestamp) problem = bad_pointer(option, i, 4, 5);
    else if (seen) problem = bad_pointer(option, i, 3, 4);
    if (!problem && type == View::kIpv4OptionRecordRoute && option[2] <= option[1]) {
      if (option[2] + 3 > option[1]) problem = i + 2;  // room, but not for a whole address
      else {
        wire::store_be32(option + option[2] - 1, stamp.record_address);
        option[2] = uint8_t(option[2] + 4);
      }
    }
    if (!problem && type == View::kIpv4OptionTimestamp)
      problem = option[2] <= option[1] ? stamp_time(option, i, stamp) : count_overflow(option, i);
    if (problem) return {OptionVerdict::kProblem, kOptionsAt + *problem};
    if (seen) *seen = true;
    i += o[i + 1];
  }
  if (source_route) return {OptionVerdict::kSourceRoute};
  if (std::memcmp(ip + kOptionsAt, o.data(), len) != 0) {
    std::memcpy(ip + kOptionsAt, o.data(), len);
    wire::store_be16(ip + 10, 0);
    wire::store_be16(ip + 10, wire::checksum_finish(wire::checksum_add(0, ip, kOptionsAt + len)));
  }
  return {OptionVerdict::kForward};
}

void nop_uncopied_options(uint8_t* options, uint32_t len) {
  constexpr uint8_t kCopied = 0x80;
  for (uint32_t i = 0; i < len && options[i] != View::kIpv4OptionEnd;) {
    if (options[i] == View::kIpv4OptionNop) {
      ++i;
      continue;
    }
    const uint32_t size = i + 1 < len ? options[i + 1] : 0;
    if (size < 2 || i + size > len) return;
    if (!(options[i] & kCopied)) std::memset(options + i, View::kIpv4OptionNop, size);
    i += size;
  }
}

}  // namespace gnf::ctl
