// Line-rate arithmetic. Times are kept in picoseconds: a 64 B frame at 100 Gbit/s occupies
// 6.72 ns on the line, and nanoseconds would round that away.
#pragma once
#include <cstdint>

#include "wire/frame_size.h"

namespace gnf::nic {

inline constexpr uint32_t kSupportedSpeedsGbps[] = {10, 25, 40, 100, 200, 400};

// Picoseconds one byte occupies the line: a whole number at every supported speed, so that pacing
// is a multiplication (the NIC model paces every frame it sends).
constexpr uint64_t line_ps_per_byte(uint32_t speed_gbps) { return 8 * 1000 / speed_gbps; }
constexpr bool divides_picoseconds(uint32_t speed_gbps) { return 8 * 1000 % speed_gbps == 0; }
static_assert([] {
  for (uint32_t s : kSupportedSpeedsGbps)
    if (!divides_picoseconds(s)) return false;
  return true;
}());

// Picoseconds a frame of `len` bytes (without FCS) occupies the line, including FCS, preamble and
// the minimum inter-frame gap: (len + 4 + 20) * 8 bits / speed.
constexpr uint64_t wire_time_ps(uint32_t len_without_fcs, uint32_t speed_gbps) {
  return wire::l1_bytes(len_without_fcs) * line_ps_per_byte(speed_gbps);
}

// One direction of a link: frames go on it back to back, never faster than the line rate.
class LineClock {
 public:
  explicit LineClock(uint32_t speed_gbps = 10) : speed_gbps_(speed_gbps), ps_per_byte_(line_ps_per_byte(speed_gbps)) {}
  void reset(uint64_t now_ps) { free_at_ps_ = now_ps; }

  // The frame starts no earlier than `earliest_ps` and no earlier than the line is free;
  // returns when its last bit is through.
  uint64_t transmit(uint32_t len_without_fcs, uint64_t earliest_ps) {
    uint64_t start = earliest_ps > free_at_ps_ ? earliest_ps : free_at_ps_;
    free_at_ps_ = start + wire::l1_bytes(len_without_fcs) * ps_per_byte_;
    return free_at_ps_;
  }
  uint64_t free_at_ps() const { return free_at_ps_; }
  uint32_t speed_gbps() const { return speed_gbps_; }

 private:
  uint32_t speed_gbps_;
  uint64_t ps_per_byte_;
  uint64_t free_at_ps_ = 0;
};

}  // namespace gnf::nic
