// Captures of a running path's ports into pcap files (`gnf ctl pcap start|stop`, as `vppctl pcap
// trace`): the frames a port stores for its rx rings and sends on its line, seen on the softnic
// port's wire side (nic/queue_group.h), the one place every path (cpu, staged, bypass) passes.
//
// The data path only copies: each queue group's NIC-model thread pushes frame copies into a ring
// per side (nic/capture_ring.h) and never waits; a frame the ring has no room for is counted
// (capture_dropped). A writer thread per capture, gnf-pcap, drains the rings into the file
// (wire/pcap_sink.h, libpcap's writer).
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "nic/port.h"
#include "wire/pcap_sink.h"

namespace gnf::path {

struct CaptureResult {
  std::string port;
  std::string file;
  uint64_t rx_frames = 0;  // written to the file, by side
  uint64_t tx_frames = 0;
  uint64_t capture_dropped = 0;  // frames the rings had no room for
  bool reached_max = false;      // it stopped itself at `max` frames
};

// One port's capture, while it runs.
class PortCapture {
 public:
  // Starts copying `port`'s frames of the sides asked for into `file` (created or truncated), at
  // most `max` of them (0: no limit). Throws UserError when the file cannot be created.
  PortCapture(nic::Port& port, const std::string& file, bool rx, bool tx, uint64_t max);
  // Stops it as stop() does, if it was not stopped.
  ~PortCapture();
  PortCapture(const PortCapture&) = delete;
  PortCapture& operator=(const PortCapture&) = delete;

  // Stops copying, writes what the rings still hold and closes the file. Throws UserError when
  // the file could not be written; the counts are then lost with it.
  CaptureResult stop();
  // What it has written so far (any thread).
  uint64_t frames() const { return rx_frames_.load() + tx_frames_.load(); }

 private:
  struct Tap {
    nic::QueueGroup* group;
    nic::CaptureSide side;
    nic::CaptureRing* ring;
    uint64_t dropped_before;  // the ring's count when the capture started
  };
  // The writer thread: drains the rings until stopped.
  void write_loop();
  // Drains every ring once; what is beyond `max_` is read and thrown away. True if anything came.
  bool drain();
  void detach();

  std::string port_;
  std::string file_;
  uint64_t max_;
  std::vector<Tap> taps_;
  wire::PcapSink sink_;
  std::atomic<uint64_t> rx_frames_{0}, tx_frames_{0};
  std::atomic<bool> reached_max_{false};
  std::atomic<bool> running_{true};
  bool stopped_ = false;
  std::thread writer_;
};

// The captures of a path's ports, one at most per port. One control thread calls it.
class PortCaptures {
 public:
  explicit PortCaptures(std::vector<nic::Port*> ports) : ports_(std::move(ports)) {}
  // Stops every capture still running (their files are complete).
  ~PortCaptures();

  // The port a name ("port0", as the config names it) or a number names, or nullopt.
  std::optional<size_t> find_port(const std::string& name_or_number) const;
  const std::vector<nic::Port*>& ports() const { return ports_; }

  // Throws UserError when the port has a capture running or the file cannot be created.
  void start(size_t port, const std::string& file, bool rx, bool tx, uint64_t max);
  // Throws UserError when the port has no capture, or its file could not be written.
  CaptureResult stop(size_t port);

 private:
  std::vector<nic::Port*> ports_;
  std::map<size_t, std::unique_ptr<PortCapture>> running_;
};

}  // namespace gnf::path
