// Frames from a pcap (or pcapng) file, replayed with their original timing, at a given rate, or
// as fast as the port takes them.
#pragma once
#include <cstdint>
#include <string>

#include "wire/wire.h"

struct pcap;

namespace gnf::wire {

struct PcapSourceOptions {
  std::string file;
  enum class Timing {
    Original,  // keep the gaps between the file's timestamps
    Rate,      // evenly spaced at rate_pps, or back to back at rate_gbps_l1
    Max,       // time_ns = 0: as fast as the port's line rate allows
  };
  Timing timing = Timing::Max;
  double rate_pps = 0;      // Rate timing only; give exactly one of the two
  double rate_gbps_l1 = 0;  // layer-1 Gbit/s, preamble, IFG and FCS included (frame_size.h)
  uint32_t repeat = 1;      // replay the file this many times (at least once)
};

class PcapSource : public Source {
 public:
  // Opens the file with nanosecond timestamps. Throws UserError naming the file if it cannot be
  // read (with libpcap's message), if its link type is not Ethernet, or if the options are bad.
  explicit PcapSource(const PcapSourceOptions& opts);
  ~PcapSource() override;
  PcapSource(const PcapSource&) = delete;
  PcapSource& operator=(const PcapSource&) = delete;

  void start(uint64_t start_ns) override;
  // Records that cannot be sent as they were (captured shorter than they were on the wire, of no
  // bytes, or unreadable) are counted in counters().malformed and skipped; an unreadable record ends the
  // current pass over the file. Runts and giants are delivered: the port's MAC judges them.
  Next next(Frame& out) override;
  SourceCounters counters() const override { return counters_; }
  std::string describe() const override;

 private:
  void open();
  uint64_t schedule(uint64_t record_ns) const;

  PcapSourceOptions opts_;
  pcap* pcap_ = nullptr;
  uint32_t pass_ = 0;  // 0-based repetition being read
  uint64_t start_ns_ = 0;
  // Original timing: the first record's timestamp and the largest offset from it in the first
  // pass; repetition r is shifted by r times that span.
  bool have_first_ = false;
  uint64_t first_record_ns_ = 0;
  uint64_t span_ns_ = 0;
  // Rate timing: layer-1 bytes handed out before the current frame.
  uint64_t sent_l1_bytes_ = 0;
  SourceCounters counters_;
};

}  // namespace gnf::wire
