#include "wire/pcap_source.h"

#include <fmt/format.h>
#include <pcap/pcap.h>

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "wire/frame_size.h"

namespace gnf::wire {

namespace {


const char* timing_name(PcapSourceOptions::Timing t) {
  switch (t) {
    case PcapSourceOptions::Timing::Original: return "original";
    case PcapSourceOptions::Timing::Rate: return "rate";
    case PcapSourceOptions::Timing::Max: return "max";
  }
  return "?";
}

}  // namespace

PcapSource::PcapSource(const PcapSourceOptions& opts) : opts_(opts) {
  const std::string& file = opts_.file;
  bool pps = opts_.rate_pps > 0, gbps = opts_.rate_gbps_l1 > 0;
  if (opts_.repeat == 0) throw UserError(fmt::format("pcap source {}: repeat must be at least 1", file));
  if (opts_.rate_pps < 0 || opts_.rate_gbps_l1 < 0)
    throw UserError(fmt::format("pcap source {}: rates must not be negative", file));
  if (opts_.timing == PcapSourceOptions::Timing::Rate && pps == gbps)
    throw UserError(fmt::format("pcap source {}: timing 'rate' needs exactly one of rate_pps and rate_gbps_l1", file));
  if (opts_.timing != PcapSourceOptions::Timing::Rate && (pps || gbps))
    throw UserError(fmt::format("pcap source {}: a rate is given but timing is '{}', not 'rate'", file,
                                timing_name(opts_.timing)));
  open();
}

PcapSource::~PcapSource() {
  if (pcap_) pcap_close(pcap_);
}

void PcapSource::open() {
  char errbuf[PCAP_ERRBUF_SIZE] = "";
  pcap_ = pcap_open_offline_with_tstamp_precision(opts_.file.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!pcap_) throw UserError(fmt::format("pcap file {}: cannot read it: {}", opts_.file, errbuf));
  int link = pcap_datalink(pcap_);
  if (link != DLT_EN10MB) {
    const char* name = pcap_datalink_val_to_name(link);
    pcap_close(pcap_);
    pcap_ = nullptr;
    throw UserError(fmt::format("pcap file {}: link type {} ({}) is not Ethernet (EN10MB); only Ethernet "
                                "frames can be sent into a port",
                                opts_.file, link, name ? name : "unknown"));
  }
}

void PcapSource::start(uint64_t start_ns) { start_ns_ = start_ns; }

Next PcapSource::next(Frame& out) {
  while (pcap_) {
    pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    int rc = pcap_next_ex(pcap_, &hdr, &data);
    if (rc == 1) {
      // Opened with nanosecond precision, so tv_usec holds nanoseconds. The file's seconds are an
      // unsigned 32-bit field that libpcap hands over as a signed time_t: read it back as the file
      // has it (0xffffffff is 2106, not -1 s).
      const uint64_t record_ns =
          uint64_t(uint32_t(hdr->ts.tv_sec)) * 1'000'000'000ull + uint64_t(uint32_t(hdr->ts.tv_usec));
      if (!have_first_) {
        have_first_ = true;
        first_record_ns_ = record_ns;
      }
      if (pass_ == 0 && record_ns > first_record_ns_) span_ns_ = std::max(span_ns_, record_ns - first_record_ns_);
      // A record captured short cannot be replayed as it was sent, and one of no bytes is no frame
      // (no wire carries one). Runts and giants are frames the wire did carry: they go to the port,
      // whose MAC counts and drops them as a real one would.
      if (hdr->caplen < hdr->len || hdr->len == 0) {
        counters_.malformed++;
        continue;
      }
      out = Frame{data, hdr->len, schedule(record_ns)};
      counters_.frames++;
      counters_.bytes += hdr->len;
      sent_l1_bytes_ += l1_bytes(hdr->len);
      return Next::Frame;
    }
    // PCAP_ERROR is a record libpcap could not read (e.g. cut off at the end of the file); it
    // cannot find the next record after one, so the pass ends there. Otherwise: end of file.
    if (rc == PCAP_ERROR) counters_.malformed++;
    pcap_close(pcap_);
    pcap_ = nullptr;
    // A file without a single sendable frame is not worth reopening `repeat` times.
    if (++pass_ < opts_.repeat && counters_.frames > 0) open();
  }
  return Next::Exhausted;
}

uint64_t PcapSource::schedule(uint64_t record_ns) const {
  switch (opts_.timing) {
    case PcapSourceOptions::Timing::Max:
      return 0;
    case PcapSourceOptions::Timing::Rate: {
      // From the frame index or the cumulative bytes, never by adding rounded steps, so nothing drifts.
      double offset = opts_.rate_pps > 0 ? double(counters_.frames) * 1e9 / opts_.rate_pps
                                         : double(sent_l1_bytes_) * 8 / opts_.rate_gbps_l1;
      return start_ns_ + uint64_t(std::llround(offset));
    }
    case PcapSourceOptions::Timing::Original:
      // A record stamped before the first one (files need not be sorted) goes out at once.
      const uint64_t offset = record_ns > first_record_ns_ ? record_ns - first_record_ns_ : 0;
      // A file spanning a century, repeated, runs past 2^64 ns: such frames wait forever rather
      // than wrap round to before the start.
      const unsigned __int128 at = (unsigned __int128)start_ns_ + (unsigned __int128)pass_ * span_ns_ + offset;
      return at > UINT64_MAX ? UINT64_MAX : uint64_t(at);
  }
  return 0;
}

std::string PcapSource::describe() const {
  std::string s = fmt::format("pcap {} (timing {}", opts_.file, timing_name(opts_.timing));
  if (opts_.rate_pps > 0) s += fmt::format(" at {} pps", opts_.rate_pps);
  if (opts_.rate_gbps_l1 > 0) s += fmt::format(" at {} Gbit/s L1", opts_.rate_gbps_l1);
  if (opts_.repeat > 1) s += fmt::format(", {} times", opts_.repeat);
  return s + ")";
}

}  // namespace gnf::wire
