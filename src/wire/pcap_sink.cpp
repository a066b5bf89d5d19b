#include "wire/pcap_sink.h"

#include <fmt/format.h>
#include <pcap/pcap.h>

#include <algorithm>
#include <ctime>
#include <utility>

#include "util/clock.h"
#include "util/error.h"

namespace gnf::wire {

namespace {

constexpr int kSnaplen = 65535;

uint64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

}  // namespace

PcapSink::PcapSink(std::string file) : file_(std::move(file)) {
  pcap_ = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, kSnaplen, PCAP_TSTAMP_PRECISION_NANO);
  if (!pcap_) throw UserError(fmt::format("pcap file {}: cannot create it: out of memory", file_));
  dumper_ = pcap_dump_open(pcap_, file_.c_str());
  if (!dumper_) {
    std::string why = pcap_geterr(pcap_);
    pcap_close(pcap_);
    throw UserError(fmt::format("pcap file {}: cannot create it: {}", file_, why));
  }
  realtime_base_ns_ = realtime_ns();
  monotonic_base_ns_ = now_ns();
}

PcapSink::~PcapSink() {
  if (dumper_) pcap_dump_close(dumper_);
  pcap_close(pcap_);
}

void PcapSink::deliver(const uint8_t* data, uint32_t len, uint64_t time_ns) {
  if (!dumper_) return;
  // Unsigned wrap-around makes this right for times before the base reading too.
  uint64_t wall_ns = realtime_base_ns_ + (time_ns - monotonic_base_ns_);
  pcap_pkthdr hdr{};
  hdr.ts.tv_sec = time_t(wall_ns / 1'000'000'000ull);
  hdr.ts.tv_usec = suseconds_t(wall_ns % 1'000'000'000ull);  // nanoseconds in a nanosecond file
  hdr.caplen = std::min<uint32_t>(len, kSnaplen);
  hdr.len = len;
  pcap_dump(reinterpret_cast<u_char*>(dumper_), &hdr, data);
  frames_++;
}

void PcapSink::finish() {
  if (!dumper_) return;
  bool flushed = pcap_dump_flush(dumper_) == 0;
  pcap_dump_close(dumper_);
  dumper_ = nullptr;
  if (!flushed) throw UserError(fmt::format("pcap file {}: writing it failed (disk full?)", file_));
}

}  // namespace gnf::wire
