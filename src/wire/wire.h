// The wire: where frames come from and go to outside the NIC.
//
// Frames on the wire are Ethernet frames without the FCS (as pcap files hold them and as the
// 82599 delivers them with CRC stripping on). Sizes quoted to users ("64 B frames") include the
// 4-byte FCS, as RFC 2544 does; see frame_size.h for the conversions.
#pragma once
#include <cstdint>
#include <string>

namespace gnf::wire {

struct Frame {
  const uint8_t* data = nullptr;  // valid until the next call to Source::next()
  uint32_t len = 0;               // bytes without FCS
  // Earliest time (CLOCK_MONOTONIC ns) the first bit may go on the line; 0 = as soon as the
  // line is free. The NIC port adds line-rate pacing on top.
  uint64_t time_ns = 0;
};

struct SourceCounters {
  uint64_t frames = 0;     // handed to the NIC
  uint64_t bytes = 0;      // their bytes (without FCS)
  uint64_t malformed = 0;  // records the source could not turn into a frame (e.g. truncated pcap records)
};

// What Source::next() found. Files and the generator have a frame or are done; a live source (a
// Linux interface) may have nothing now and a frame a microsecond later, and is never done on its
// own: the run ends it (duration, Ctrl-C), and the port then stops asking.
enum class Next {
  Frame,      // `out` holds the next frame
  Later,      // nothing yet: ask again on a later poll
  Exhausted,  // nothing ever again
};

// A link partner that transmits frames into a NIC port.
class Source {
 public:
  virtual ~Source() = default;
  // Called once, right before traffic starts; schedules are relative to start_ns.
  virtual void start(uint64_t start_ns) = 0;
  // The next frame, if there is one now; once it returns Exhausted it is never called again.
  virtual Next next(Frame& out) = 0;
  virtual SourceCounters counters() const = 0;
  virtual std::string describe() const = 0;
};

// A link partner that receives frames from a NIC port.
class Sink {
 public:
  virtual ~Sink() = default;
  // `time_ns` is when the last bit of the frame left the port (CLOCK_MONOTONIC ns).
  virtual void deliver(const uint8_t* data, uint32_t len, uint64_t time_ns) = 0;
  // The end of each of the port's transmit rounds, whether it delivered frames or not: a sink
  // that batches (a socket's tx ring) hands on what it holds, one system call per round rather
  // than per frame, and retries what the kernel could not take yet. Cheap when there is nothing.
  virtual void flush() {}
  // Flush files; no deliver() follows.
  virtual void finish() {}
};

}  // namespace gnf::wire
