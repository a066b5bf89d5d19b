// Frames leaving a port, written to a pcap file with nanosecond timestamps.
#pragma once
#include <cstdint>
#include <string>

#include "wire/wire.h"

struct pcap;
struct pcap_dumper;

namespace gnf::wire {

class PcapSink : public Sink {
 public:
  // Creates (truncates) `file`: Ethernet link type, snaplen 65535, nanosecond timestamps.
  // Throws UserError naming the file, with libpcap's message, if it cannot be created.
  explicit PcapSink(std::string file);
  ~PcapSink() override;
  PcapSink(const PcapSink&) = delete;
  PcapSink& operator=(const PcapSink&) = delete;

  // Records the frame, stamped with the wall-clock time that corresponds to `time_ns`.
  void deliver(const uint8_t* data, uint32_t len, uint64_t time_ns) override { record(data, len, len, time_ns); }
  // The same for a frame of `len` bytes of which the first `kept` are at `data` (a capture cut it).
  void record(const uint8_t* data, uint32_t kept, uint32_t len, uint64_t time_ns);
  // Flushes and closes the file; throws UserError if the data could not be written.
  void finish() override;

  uint64_t frames() const { return frames_; }

 private:
  std::string file_;
  pcap* pcap_ = nullptr;
  pcap_dumper* dumper_ = nullptr;
  // One reading of both clocks: frames carry CLOCK_MONOTONIC times, pcap readers expect
  // wall-clock ones. Reading them once keeps the gaps between records exact.
  uint64_t realtime_base_ns_ = 0;
  uint64_t monotonic_base_ns_ = 0;
  uint64_t frames_ = 0;
};

}  // namespace gnf::wire
