// A traffic generator: stamped UDP test traffic at a given rate, size mix and flow count.
//
// Frames are UDP/IPv4 or UDP/IPv6 from the RFC 2544 benchmarking ranges. Each carries a stamp
// (stamp.h) so that a MeasuringSink can compute latency, loss and reordering per flow.
// Frame i goes to flow i % flows and has size sizes[i % sizes.size()]; it is scheduled to start
// at start_ns plus the cumulative spacing of the frames before it.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wire/window.h"
#include "wire/wire.h"

namespace gnf::wire {

struct GeneratorOptions {
  int ip_version = 4;                    // 4 or 6
  std::vector<uint32_t> sizes = {64};    // frame sizes with FCS, cycled; IPv4 64..9018, IPv6 84..9018
  bool imix = false;                     // replaces `sizes` by simple IMIX: 7:4:1 of 64, 594, 1518 B
                                         // (84 B instead of 64 B for IPv6), interleaved
  uint32_t flows = 1;                    // 1..65536
  double rate_pps = 0;                   // at most one of rate_pps and rate_gbps_l1
  double rate_gbps_l1 = 0;               // layer-1 Gbit/s (preamble, IFG and FCS included)
  double line_gbps = 10;                 // rate when none is given, and the cap on any rate
  uint64_t count = 0;                    // frames to send in all; 0 = unlimited
  uint64_t duration_ns = 0;              // send frames scheduled before start + duration; 0 = unlimited
  std::array<uint8_t, 6> src_mac = {0x02, 0, 0, 0, 0, 0x01};
  std::array<uint8_t, 6> dst_mac = {0x02, 0, 0, 0, 0, 0x02};
  // Flow f uses base + f (IPv6: added to the last 32 bits).
  std::array<uint8_t, 4> src_ipv4 = {198, 18, 0, 1};
  std::array<uint8_t, 4> dst_ipv4 = {198, 19, 0, 1};
  std::array<uint8_t, 16> src_ipv6 = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  std::array<uint8_t, 16> dst_ipv6 = {0x20, 0x01, 0x0d, 0xb8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  uint16_t src_port_base = 1024;         // flow f uses src_port_base + f % 50000
  uint16_t dst_port = 5001;
};

class Generator : public Source {
 public:
  // Throws UserError for sizes out of range, a bad flow count or IP version, or bad rates.
  // A rate above line_gbps is clamped to it (describe() says so).
  explicit Generator(const GeneratorOptions& opts);

  void start(uint64_t start_ns) override;
  // Never allocates: the frame is a per-size template patched in place, valid until the next call.
  Next next(Frame& out) override;
  SourceCounters counters() const override;
  std::string describe() const override;

  // The options in force: IMIX expanded into `sizes`.
  const GeneratorOptions& options() const { return opts_; }
  // The schedule's mean rate over one size cycle, after clamping to the line rate.
  double rate_pps() const;
  double rate_gbps_l1() const;
  bool clamped() const { return clamped_; }

  // Frames sent so far, indexed by flow id; what MeasureReport::loss() compares against.
  const std::vector<uint64_t>& sent_per_flow() const { return sent_per_flow_; }

  // Also counts the frames whose scheduled send time falls inside `window`, per flow and per
  // second of the window (both empty without a window). Call before start().
  void set_window(const MeasuredWindow& window);
  const std::vector<uint64_t>& sent_in_window_per_flow() const { return window_per_flow_; }
  const std::vector<uint64_t>& sent_in_window_per_second() const { return window_per_second_; }

  // True once the whole schedule (count or duration) has been sent. Any thread may ask: a sender
  // that falls behind its schedule is still busy when its scheduled end has passed.
  bool finished() const { return finished_.load(std::memory_order_acquire); }

 private:
  // One prepared frame per distinct size. `sum` is the checksum of the constant part (IPv4
  // header checksum, or IPv6 UDP checksum with its pseudo-header), with the per-frame fields zero.
  struct Template {
    std::vector<uint8_t> bytes;
    uint64_t sum = 0;
  };

  Template make_template(uint32_t size) const;
  void patch(Template& t, uint32_t flow, uint64_t seq, uint64_t send_time_ns) const;

  GeneratorOptions opts_;
  bool clamped_ = false;
  // The part of the flow's addresses that grows with the flow id (IPv6: the last 32 bits).
  uint32_t src_ip_base_ = 0;
  uint32_t dst_ip_base_ = 0;
  // Spacing: frame i starts at i * ns_per_frame_ (pps), or at the line time of all frames
  // before it, cum_l1_bytes_ * ns_per_l1_byte_ (Gbit/s). Exactly one of the two is nonzero.
  double ns_per_frame_ = 0;
  double ns_per_l1_byte_ = 0;
  double mean_l1_bytes_ = 0;  // over one size cycle

  std::vector<Template> templates_;
  std::vector<uint32_t> cycle_;  // template index per position of the size cycle
  uint32_t cycle_pos_ = 0;
  uint32_t next_flow_ = 0;

  uint64_t start_ns_ = 0;
  uint64_t cum_l1_bytes_ = 0;
  SourceCounters counters_;
  std::vector<uint64_t> sent_per_flow_;
  std::optional<MeasuredWindow> window_;
  std::vector<uint64_t> window_per_flow_;
  std::vector<uint64_t> window_per_second_;
  std::atomic<bool> finished_{false};
};

}  // namespace gnf::wire
