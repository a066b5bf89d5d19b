// libFuzzer target: arbitrary bytes as a pcap (or pcapng) file, written to a scratch file of this
// process and replayed by wire::PcapSource with its original timing, twice (repeat = 2: the file
// is opened again for the second pass), every frame pulled until it is exhausted.
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - only gnf::UserError escapes, only when the file is opened, and its message names the file;
//    next() never throws and never says Later (a file is never "not yet");
//  - every frame has 0 < length <= kMaxRecordBytes (libpcap's largest snapshot length), and all
//    its bytes are readable until the next call (ASan checks the copy made of them);
//  - it is scheduled no earlier than the start time;
//  - the counters add up: frames == frames pulled, bytes == their lengths;
//  - the second pass is the first again: if the first had frames, the same frames (bytes) follow
//    once more, each shifted by one same span no shorter than its offset in the first pass, and
//    twice the malformed records are counted.
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "util/error.h"
#include "wire/pcap_source.h"
#include "wire/wire.h"

using namespace gnf;

namespace {

constexpr uint32_t kMaxRecordBytes = 262144;  // libpcap's MAXIMUM_SNAPLEN
constexpr uint64_t kStartNs = 1'000'000;

struct Pulled {
  std::string bytes;
  uint64_t time_ns;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchFile file(".pcap");
  file.write(data, size);

  wire::PcapSourceOptions options;
  options.file = file.path();
  options.timing = wire::PcapSourceOptions::Timing::Original;
  options.repeat = 2;
  std::optional<wire::PcapSource> source;
  try {
    source.emplace(options);
  } catch (const UserError& e) {
    const std::string_view message = fuzz::full_message(e);
    if (message.find(file.path()) == std::string_view::npos)
      fuzz::fail("a UserError that does not name the file", fuzz::printable(message));
    return 0;
  } catch (const std::exception& e) {
    fuzz::fail("an exception other than UserError at open", fuzz::printable(e.what()));
  }

  source->start(kStartNs);
  std::vector<Pulled> pulled;
  uint64_t bytes = 0;
  try {
    for (wire::Frame frame; ;) {
      const wire::Next next = source->next(frame);
      if (next == wire::Next::Exhausted) break;
      FUZZ_CHECK(next == wire::Next::Frame, "a pcap file said Later");
      FUZZ_CHECK(frame.len > 0 && frame.len <= kMaxRecordBytes, "a frame of no bytes or too many");
      FUZZ_CHECK(frame.data != nullptr, "a frame without data");
      FUZZ_CHECK(frame.time_ns >= kStartNs, "a frame scheduled before the start");
      pulled.push_back(Pulled{std::string(reinterpret_cast<const char*>(frame.data), frame.len), frame.time_ns});
      bytes += frame.len;
    }
  } catch (const std::exception& e) {
    fuzz::fail("an exception from next()", fuzz::printable(e.what()));
  }

  const wire::SourceCounters counters = source->counters();
  FUZZ_CHECK_EQ(counters.frames, pulled.size(), "counters().frames != frames pulled");
  FUZZ_CHECK_EQ(counters.bytes, bytes, "counters().bytes != bytes pulled");
  if (pulled.empty()) return 0;  // a file without frames is read once
  FUZZ_CHECK_EQ(pulled.size() % 2, 0, "the two passes differ in their frames");
  FUZZ_CHECK_EQ(counters.malformed % 2, 0, "the two passes differ in their malformed records");
  const size_t half = pulled.size() / 2;
  const uint64_t span = pulled[half].time_ns - pulled[0].time_ns;
  for (size_t i = 0; i < half; ++i) {
    const Pulled &first = pulled[i], &second = pulled[half + i];
    FUZZ_CHECK(first.bytes == second.bytes, "the second pass sent other bytes");
    FUZZ_CHECK_EQ(second.time_ns - first.time_ns, span, "the second pass is not shifted by one span");
    FUZZ_CHECK(first.time_ns - kStartNs <= span, "a frame of the first pass lies beyond the span");
  }
  return 0;
}
