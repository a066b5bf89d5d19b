#include "path/port_capture.h"

#include <charconv>
#include <chrono>

#include <fmt/format.h>

#include "util/error.h"
#include "util/log.h"
#include "util/poll_thread.h"

namespace gnf::path {

namespace {

// How long the writer sleeps when the rings were empty: a ring holds some 8 MiB of frames (a few
// ms of a 10 GbE line), so it looks often enough to keep up with a loaded port.
constexpr auto kWriterIdle = std::chrono::microseconds(200);
// A poll that loaded a ring before the capture was stopped may still push a batch into it: the
// writer looks again after this long (a poll takes microseconds).
constexpr auto kStragglerWait = std::chrono::milliseconds(2);
// Frames a ring gives the writer at a time, so that one busy side does not starve the others.
constexpr uint64_t kDrainBatch = 1024;

}  // namespace

PortCapture::PortCapture(nic::Port& port, const std::string& file, bool rx, bool tx, uint64_t max)
    : port_(port.options().name), file_(file), max_(max), sink_(file) {
  for (uint32_t g = 0; g < port.group_count(); ++g) {
    nic::QueueGroup& group = port.group(g);
    for (nic::CaptureSide side : {nic::CaptureSide::Rx, nic::CaptureSide::Tx}) {
      if (!(side == nic::CaptureSide::Rx ? rx : tx)) continue;
      nic::CaptureRing& ring = group.capture_ring(side);
      ring.discard();  // what an earlier capture's last poll left
      taps_.push_back({&group, side, &ring, ring.dropped()});
    }
  }
  writer_ = std::thread(&PortCapture::write_loop, this);
  for (const Tap& t : taps_) t.group->set_capture(t.side, true);
}

PortCapture::~PortCapture() {
  if (stopped_) return;
  try {
    stop();
  } catch (const UserError&) {  // nobody asked for this capture's counts: its file is what it is
  }
}

void PortCapture::detach() {
  for (const Tap& t : taps_) t.group->set_capture(t.side, false);
}

bool PortCapture::drain() {
  bool any = false;
  for (const Tap& t : taps_) {
    std::atomic<uint64_t>& written = t.side == nic::CaptureSide::Rx ? rx_frames_ : tx_frames_;
    any |= t.ring->drain([&](const nic::CapturedFrame& f) {
      if (max_ && frames() >= max_) return;  // read and thrown away: the capture is complete
      sink_.record(f.data, f.kept, f.len, f.time_ns);
      written.fetch_add(1, std::memory_order_relaxed);
    }, kDrainBatch) != 0;
  }
  if (max_ && frames() >= max_ && !reached_max_.exchange(true)) detach();
  return any;
}

void PortCapture::write_loop() {
  name_thread("gnf-pcap");
  while (running_.load(std::memory_order_acquire))
    if (!drain()) std::this_thread::sleep_for(kWriterIdle);
}

CaptureResult PortCapture::stop() {
  stopped_ = true;
  detach();
  std::this_thread::sleep_for(kStragglerWait);
  running_.store(false, std::memory_order_release);
  writer_.join();
  while (drain()) {
  }
  CaptureResult result{port_, file_, rx_frames_.load(), tx_frames_.load(), 0, reached_max_.load()};
  for (const Tap& t : taps_) result.capture_dropped += t.ring->dropped() - t.dropped_before;
  sink_.finish();
  return result;
}

PortCaptures::~PortCaptures() {
  for (auto& [port, capture] : running_) {
    try {
      const CaptureResult r = capture->stop();
      spdlog::info("pcap: {}: {} frames written to {} as gnf stopped, {} dropped by the capture", r.port,
                   r.rx_frames + r.tx_frames, r.file, r.capture_dropped);
    } catch (const UserError& e) {
      spdlog::error("pcap: {}", e.what());
    }
  }
}

std::optional<size_t> PortCaptures::find_port(const std::string& name_or_number) const {
  for (size_t i = 0; i < ports_.size(); ++i)
    if (ports_[i]->options().name == name_or_number) return i;
  size_t number = 0;
  const char* end = name_or_number.data() + name_or_number.size();
  auto [at, error] = std::from_chars(name_or_number.data(), end, number);
  if (error == std::errc() && at == end && !name_or_number.empty() && number < ports_.size()) return number;
  return std::nullopt;
}

void PortCaptures::start(size_t port, const std::string& file, bool rx, bool tx, uint64_t max) {
  const std::string& name = ports_.at(port)->options().name;
  if (running_.count(port))
    throw UserError(fmt::format("{} is being captured already: pcap stop {} first", name, name));
  running_[port] = std::make_unique<PortCapture>(*ports_[port], file, rx, tx, max);
}

CaptureResult PortCaptures::stop(size_t port) {
  const std::string& name = ports_.at(port)->options().name;
  auto it = running_.find(port);
  if (it == running_.end()) throw UserError(fmt::format("{} is not being captured (pcap start {} FILE)", name, name));
  std::unique_ptr<PortCapture> capture = std::move(it->second);
  running_.erase(it);
  return capture->stop();
}

}  // namespace gnf::path
