// A Linux network interface as a port's wire: frames the interface receives are the port's rx
// input (a Source), frames the port transmits go out of the interface (a Sink). Two backends,
// AF_XDP (af_xdp.h) and AF_PACKET (af_packet.h); "auto" takes AF_PACKET on a veth or tap (their
// frames come with offload metadata, partial checksums and 64 KB TSO super-frames, that only
// AF_PACKET reports), and elsewhere AF_XDP where it can be made, AF_PACKET otherwise. Both are non-blocking: the NIC-model thread polls them, next() says Later
// when the interface has nothing, and only the end of the run (stop_source) ends a link. The rx
// side (next) and the tx side (deliver, flush) share no ring, so the port's rx and tx may be
// polled from two threads.
//
// The port keeps its own MAC address, not the interface's: the interface is the link partner's
// side of the cable, the softnic port is the NIC at its other end.
#pragma once
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

#include "util/counter.h"
#include "wire/frame_size.h"
#include "wire/wire.h"

namespace gnf::wire {

struct LinkOptions {
  enum class Type { Auto, AfPacket, AfXdp } type = Type::Auto;
  std::string interface;
  std::string netns;  // a name under /run/netns; empty: gnf's own namespace
  // The largest frame the port takes or sends (without FCS): sizes the ring slots.
  uint32_t max_frame_bytes = kMaxStdFrameBytes;
};

const char* link_type_name(LinkOptions::Type type);

struct LinkCounters {
  uint64_t rx_frames = 0, rx_bytes = 0;  // handed to the port (bytes without FCS): frames and segments
  uint64_t rx_dropped = 0;               // the kernel dropped them on the way to gnf: the socket's ring was full
  uint64_t rx_truncated = 0;             // larger than a ring slot: cut short, not handed to the port
  uint64_t rx_csum_completed = 0;        // checksums left to the hardware that gnf filled in (kernel metadata)
  uint64_t rx_gso_frames = 0;            // TSO/GRO super-frames taken off the interface ...
  uint64_t rx_gso_segments = 0;          // ... and the segments gnf cut them into (wire/gso.h)
  uint64_t rx_too_big = 0;               // larger than the port's max_frame_bytes (or segments that would be): dropped
  uint64_t rx_bad_offload = 0;           // offload metadata gnf cannot act on (unknown GSO type, headers that disagree): dropped
  uint64_t tx_frames = 0, tx_bytes = 0;  // handed to the kernel to send (frames as the port sent them)
  uint64_t tx_gso_frames = 0;            // super-frames gnf made of consecutive TCP segments (wire/gso.h) ...
  uint64_t tx_gso_segments = 0;          // ... and the frames in them, which the kernel carries whole
  uint64_t tx_ring_full = 0;             // no free slot in the socket's tx ring: dropped
  uint64_t tx_errors = 0;                // unsendable: larger than the interface's MTU or a slot, or refused
  // send() calls that failed other than "try again" (e.g. the interface is down); their frames
  // stay queued and are retried each round, so a lasting failure shows up as tx_ring_full.
  uint64_t tx_send_errors = 0;

  // Every counter once, named as the JSON summary's `link` object names it.
  struct Field {
    const char* name;
    uint64_t LinkCounters::*member;
  };
  static constexpr Field kFields[] = {
      {"rx_frames", &LinkCounters::rx_frames},
      {"rx_bytes", &LinkCounters::rx_bytes},
      {"rx_dropped", &LinkCounters::rx_dropped},
      {"rx_truncated", &LinkCounters::rx_truncated},
      {"rx_csum_completed", &LinkCounters::rx_csum_completed},
      {"rx_gso_frames", &LinkCounters::rx_gso_frames},
      {"rx_gso_segments", &LinkCounters::rx_gso_segments},
      {"rx_too_big", &LinkCounters::rx_too_big},
      {"rx_bad_offload", &LinkCounters::rx_bad_offload},
      {"tx_frames", &LinkCounters::tx_frames},
      {"tx_bytes", &LinkCounters::tx_bytes},
      {"tx_gso_frames", &LinkCounters::tx_gso_frames},
      {"tx_gso_segments", &LinkCounters::tx_gso_segments},
      {"tx_ring_full", &LinkCounters::tx_ring_full},
      {"tx_errors", &LinkCounters::tx_errors},
      {"tx_send_errors", &LinkCounters::tx_send_errors},
  };
};
static_assert(std::size(LinkCounters::kFields) * sizeof(uint64_t) == sizeof(LinkCounters),
              "every link counter has a line in the table");

class Link : public Source, public Sink {
 public:
  const std::string& backend() const { return backend_; }  // "af_packet" or "af_xdp"
  const LinkOptions& options() const { return options_; }
  // What gnf counted and what the kernel reports dropping. Any thread.
  LinkCounters link_counters() const;

  void start(uint64_t) override {}
  // frames, bytes: rx_frames, rx_bytes; malformed: rx_truncated + rx_too_big + rx_bad_offload.
  SourceCounters counters() const override;
  // e.g. "af_xdp on veth-ga (network namespace 'ns1'): driver mode, copy"
  std::string describe() const override;
  // Why `auto` chose this backend, when it did not try the other; said in describe().
  void set_chosen_because(std::string why) { chosen_because_ = std::move(why); }
  // Hands on what the tx ring still holds.
  void finish() override { flush(); }

 protected:
  Link(std::string backend, const LinkOptions& options);
  // How the backend runs (for describe()), once it knows.
  void set_mode(std::string mode) { mode_ = std::move(mode); }
  // Frames the kernel dropped before the socket's rx ring, since the link was opened.
  virtual uint64_t kernel_rx_drops() const = 0;
  // Frames the kernel refused to send, since the link was opened (beyond those counted in tx_stats_).
  virtual uint64_t kernel_tx_errors() const { return 0; }

  struct {
    Counter frames, bytes, truncated, csum_completed, gso_frames, gso_segments, too_big, bad_offload;
  } rx_stats_;  // the rx NIC-model thread writes these
  struct {
    Counter frames, bytes, ring_full, errors, send_errors, gso_frames, gso_segments;
  } tx_stats_;  // the tx NIC-model thread writes these

 private:
  std::string backend_;
  LinkOptions options_;
  std::string mode_;
  std::string chosen_because_;
};

// Opens the link `options` describe, inside its network namespace. With Type::Auto, a veth or tap
// (driver "veth" or "tun") gets AF_PACKET; elsewhere an AF_XDP socket that cannot be made (no permission, gnf built without libxdp, the kernel refuses) gives
// an AF_PACKET one, and `fallback` is told why. Throws UserError naming the interface, its
// namespace, the backend and the kernel's reason.
std::unique_ptr<Link> open_link(const LinkOptions& options, const std::function<void(const std::string&)>& fallback);

// Inside the link's namespace: the interface's index, MTU and driver (ETHTOOL_GDRVINFO; empty if
// the interface does not say). Throws UserError if there is no such interface there.
struct InterfaceInfo {
  unsigned index = 0;
  uint32_t mtu = 0;
  std::string driver;
};
InterfaceInfo find_interface(const LinkOptions& options);
// "veth-ga (network namespace 'ns1')", for messages.
std::string link_where(const LinkOptions& options);
// Whether a frame fits the interface's MTU: the MTU counts the payload after the Ethernet header
// and, on a tagged frame, after its 802.1Q/802.1ad tag.
bool fits_mtu(const uint8_t* frame, uint32_t len, uint32_t mtu);

}  // namespace gnf::wire
