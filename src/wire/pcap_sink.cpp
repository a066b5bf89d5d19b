#include "wire/pcap_sink.h"

#include <fmt/format.h>
#include <pcap/pcap.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
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

void PcapSink::record(const uint8_t* data, uint32_t kept, uint32_t len, uint64_t time_ns) {
  if (!dumper_) return;
  // Unsigned wrap-around makes this right for times before the base reading too.
  uint64_t wall_ns = realtime_base_ns_ + (time_ns - monotonic_base_ns_);
  pcap_pkthdr hdr{};
  hdr.ts.tv_sec = time_t(wall_ns / 1'000'000'000ull);
  hdr.ts.tv_usec = suseconds_t(wall_ns % 1'000'000'000ull);  // nanoseconds in a nanosecond file
  hdr.caplen = std::min<uint32_t>({kept, len, kSnaplen});
  hdr.len = len;
  pcap_dump(reinterpret_cast<u_char*>(dumper_), &hdr, data);
  frames_++;
}

void PcapSink::finish() {
  if (!dumper_) return;
  // pcap_dump() writes through stdio and says nothing when a write fails: a failure while the
  // run went on is in the stream's error flag, and the flush reports the rest.
  FILE* file = pcap_dump_file(dumper_);
  const bool flushed = pcap_dump_flush(dumper_) == 0;
  const int error = errno;
  const bool written = flushed && !std::ferror(file);
  pcap_dump_close(dumper_);
  dumper_ = nullptr;
  if (!written)
    throw UserError(fmt::format("pcap file {}: writing it failed ({}); {} frames were to go into it", file_,
                                flushed ? "a write during the run was refused: is the disk full?" : std::strerror(error),
                                frames_));
}

}  // namespace gnf::wire
