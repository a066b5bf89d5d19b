// What every shard of a generator shares, read-only once made: the frame of each size as a
// template, when frame i of the schedule is sent, and how frame i is written.
//
// Frame i belongs to flow i % flows and has size sizes[i % sizes.size()]. It is sent at the
// schedule's start plus i * (1 / rate) for a frame rate, or plus the layer-1 bytes of frames 0..i-1
// divided by a bit rate. Both are one multiplication in fixed point (no division, no rounding
// that adds up): a sender producing 100+ Mpps across several threads computes each send time
// on its own from the frame's index or byte count.
#pragma once
#include <cstdint>
#include <vector>

#include "wire/generator_options.h"

namespace gnf::wire {

class GeneratorPlan {
 public:
  // Throws UserError for sizes out of range, a bad flow count or IP version, or bad rates.
  explicit GeneratorPlan(const GeneratorOptions& options);

  // The options in force: IMIX expanded into `sizes`.
  const GeneratorOptions& options() const { return opts_; }
  bool clamped() const { return clamped_; }
  double rate_pps() const;
  double rate_gbps_l1() const;

  uint32_t flows() const { return opts_.flows; }
  // The size cycle: frame i has template cycle(i % cycle_length()).
  uint32_t cycle_length() const { return uint32_t(cycle_.size()); }
  uint32_t template_at(uint32_t cycle_position) const { return cycle_[cycle_position]; }
  uint32_t frame_len(uint32_t template_index) const { return uint32_t(templates_[template_index].bytes.size()); }
  // Layer-1 bytes of one whole size cycle.
  uint64_t cycle_l1_bytes() const { return cycle_l1_bytes_; }
  uint32_t largest_frame_len() const;

  // When frame `index`, preceded by `l1_bytes_before` layer-1 bytes, is sent, in ns after the start.
  uint64_t send_offset_ns(uint64_t index, uint64_t l1_bytes_before) const {
    const uint64_t units = by_bytes_ ? l1_bytes_before : index;
    return uint64_t(((unsigned __int128)units * ns_per_unit_ + (unsigned __int128)(uint64_t(1) << (shift_ - 1))) >>
                    shift_);
  }
  // Whether two frames of the schedule can overlap on a line of the generator's speed: never for a
  // bit rate (at most the line rate), and for a frame rate only when some frame takes longer on the
  // line than the spacing. Without overlaps every frame arrives one wire time after it is sent,
  // whatever was sent before it, so parts of the schedule can be sent by separate threads.
  bool frames_may_overlap() const;

  // Writes frame `template_index` of flow `flow`, sequence number `seq`, sent at `send_ns`.
  void write(uint8_t* dst, uint32_t template_index, uint32_t flow, uint64_t seq, uint64_t send_ns) const;

 private:
  // One prepared frame per distinct size. `sum` is the checksum of the constant part (IPv4 header
  // checksum, or IPv6 UDP checksum with its pseudo-header), with the per-frame fields zero.
  struct Template {
    std::vector<uint8_t> bytes;
    uint64_t sum = 0;
  };
  Template make_template(uint32_t size) const;

  GeneratorOptions opts_;
  bool clamped_ = false;
  double mean_l1_bytes_ = 0;  // over one size cycle
  double ns_per_frame_ = 0;   // the schedule as given: exactly one of the two is nonzero
  double ns_per_l1_byte_ = 0;
  // The same in fixed point: ns = units * ns_per_unit_ / 2^shift_, units = frame index or bytes.
  bool by_bytes_ = false;
  uint64_t ns_per_unit_ = 0;
  unsigned shift_ = 0;
  // The part of the flow's addresses that grows with the flow id (IPv6: the last 32 bits).
  uint32_t src_ip_base_ = 0;
  uint32_t dst_ip_base_ = 0;
  std::vector<Template> templates_;
  std::vector<uint32_t> cycle_;
  uint64_t cycle_l1_bytes_ = 0;
};

}  // namespace gnf::wire
