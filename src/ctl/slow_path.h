// The router's slow path: what the l3fwd NF hands to the host, answered on the host.
//   - ARP (RFC 826): replies for the router's addresses (not for a network's network or broadcast
//     address, nor to a multicast sender MAC).
//   - ND (RFC 4861): neighbour advertisements for the router's addresses (global and link-local);
//     solicitations with a zero-length option are dropped (7.1.1).
//   - Learning (ARP senders, solicitations' source link-layer options, advertisements) takes only
//     senders on the port's link (Router::on_link) with a unicast MAC, changes only learnt entries
//     (never the permanent ones of the neighbours file or netlink), and adds an entry only for an
//     address being resolved; otherwise it updates known entries only. That is Linux's arp_accept=0
//     for unsolicited ARP and RFC 4861 7.2.5 for advertisements, and stricter than RFC 826 and RFC
//     4861 7.2.3, which add the sender of a request for the router's address: a flood of requests
//     from made-up senders then fills nothing. The table is bounded and evicts the least recently
//     confirmed learnt entry (nf/l3fwd/neighbour.h).
//   - ICMP / ICMPv6 echo replies for the router's addresses (RFC 792, RFC 4443).
//   - ICMP time exceeded when a TTL / hop limit would expire (so traceroute shows the router) and
//     destination unreachable without a route; rate-limited as Linux does (a token bucket).
//   - Options l3fwd does not pass: router alerts are forwarded (nothing here wants them, RFC 6398 3);
//     IPv4 record route and timestamp are filled in and forwarded, a malformed IPv4 option gets
//     parameter problem (RFC 1812 4.3.3.5, 5.3.13; ctl/ipv4_options.h); source routes are dropped
//     and counted (RFC 7126 4.3-4.4, Linux's accept_source_route=0). A Hop-by-Hop header that runs
//     past the packet or holds an option that runs past it gets parameter problem code 0 at the
//     offending byte, an unknown option whose type says so code 2 (RFC 8200 4.2-4.3, RFC 4443
//     3.4); one whose type says discard is dropped.
//   - Next hops without a neighbour entry: the packet is held (at most kHeldPerNeighbour per next
//     hop, kMaxPending next hops), an ARP request / neighbour solicitation goes out (again each
//     second, three times); once the answer is learnt the held packets are forwarded, and if none
//     comes they are dropped and the senders get ICMP host unreachable.
// Everything else sent to the router's own addresses (TCP, UDP, ICMP other than echo requests,
// ICMPv6 other than echo requests and ND; IPv6 to any link-local unicast address, which the kernel may
// have besides the router's) goes to the kernel when local delivery is on
// (deliver_locally(); ctl/kernel_taps.h), as do copies of the ARP replies and neighbour
// advertisements sent to the router (the answers to the kernel's own resolutions: the slow path
// answers requests and solicitations itself, so the kernel sees no other); what the kernel sends
// leaves through from_kernel(). Without local delivery it is counted as unhandled and dropped.
//
// One thread calls handle() and tick(); replies go out through `transmit` (driver/host_tx.h).
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ctl/frames.h"
#include "ctl/ipv4_options.h"
#include "nf/l3fwd/l3fwd.h"
#include "nf/l3fwd/router.h"

namespace gnf::ctl {

class SlowPath {
 public:
  using Transmit = std::function<bool(uint16_t port, const std::vector<uint8_t>& frame)>;
  // Hands a frame to the kernel as come in on `port`; false if it did not take it.
  using Deliver = std::function<bool(uint16_t port, const std::vector<uint8_t>& frame)>;
  // Milliseconds since the Unix epoch (UTC), for IPv4 timestamps (RFC 791: since midnight UT).
  using WallClock = std::function<uint64_t()>;
  static uint64_t system_milliseconds();
  static constexpr uint32_t kHeldPerNeighbour = 16;
  static constexpr uint32_t kMaxPending = 1024;
  static constexpr uint64_t kResolveRetryNs = 1'000'000'000;
  static constexpr uint32_t kResolveTries = 3;

  enum Counter {
    kArpReplies,
    kArpRequests,
    kNdAdvertisements,
    kNdSolicitations,
    kNeighboursLearnt,
    kEchoReplies,
    kTimeExceeded,
    kUnreachable,
    kTooBig,       // ICMP fragmentation needed (IPv4 with DF) / packet too big (IPv6) sent
    kFragmented,   // IPv4 packets without DF cut to the output port's MTU
    kOptionsForwarded,  // with options acted on here (router alert, record route, timestamp), forwarded
    kSourceRoutesDropped,  // IPv4 loose or strict source routes, dropped as Linux does by default
    kParameterProblem,
    kRateLimited,
    kHeld,
    kHeldForwarded,  // sent up for want of a neighbour and forwarded here: held till resolved, or resolved since
    kHeldDropped,
    kUnhandled,
    kMalformed,
    kTxFailed,
    kNeighboursRefused,
    kToKernel,        // local delivery: frames for the router's addresses handed to the kernel
    kFromKernel,      // and frames the kernel sent, out of their port (a failure counts as tx_failed)
    kTapWriteFailed,  // frames the kernel did not take (its TAP's queue full, the TAP down)
    kCounterCount
  };
  static constexpr const char* kCounterNames[kCounterCount] = {
      "arp_replies", "arp_requests", "nd_advertisements", "nd_solicitations", "neighbours_learnt",
      "echo_replies", "time_exceeded", "unreachable", "too_big", "fragmented", "options_forwarded",
      "source_routes_dropped", "parameter_problem", "rate_limited", "held", "held_forwarded",
      "held_dropped", "unhandled", "malformed", "tx_failed", "neighbours_refused", "to_kernel", "from_kernel",
      "tap_write_failed"};

  // `view` is the l3fwd element over the router's host tables: the slow path asks it why a packet
  // came up and forwards held packets with it.
  // `reader`: the slow path's reader slot (sync/readers.h), or null when the tables never change.
  SlowPath(nf::Router& router, const nf::L3FwdView& view, sync::ReaderSlot* reader, std::vector<Mac> port_macs,
           Transmit transmit, WallClock milliseconds = system_milliseconds);

  // A frame an NF sent up, and why (nf::HostReason): TTL expired, no route and no neighbour are
  // acted on as said; Unspecified asks the router again (an NF that does not say).
  void handle(uint16_t port, std::vector<uint8_t> frame, uint64_t now_ns,
              nf::HostReason reason = nf::HostReason::Unspecified);
  // Retries resolutions and gives up on old ones; call every few milliseconds.
  void tick(uint64_t now_ns);

  // Local delivery: what is for the router and not answered here goes to `to_kernel` (see above).
  void deliver_locally(Deliver to_kernel) { to_kernel_ = std::move(to_kernel); }
  // A frame the kernel sent out of `port`'s TAP: it leaves by `port`, as the slow path's replies do.
  void from_kernel(uint16_t port, std::vector<uint8_t> frame);

  std::array<uint64_t, kCounterCount> counters() const { return counters_; }

 private:
  struct Pending {
    uint16_t port;
    nf::IpAddress address;
    std::deque<std::pair<uint16_t, std::vector<uint8_t>>> held;  // (input port, frame)
    uint64_t last_request_ns = 0;
    uint32_t tries = 0;
  };

  nf::L3FwdView::Counter classify(const nf::L3FwdView& view, uint16_t port, std::vector<uint8_t>& frame,
                                  uint16_t& out_port);
  void handle_arp(uint16_t port, const std::vector<uint8_t>& frame);
  void handle_ipv4(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns, nf::HostReason reason);
  void handle_ipv6(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns, nf::HostReason reason);
  bool handle_icmpv6_local(uint16_t port, const std::vector<uint8_t>& frame);
  // Why the NF punted a packet not for the router, and what to do about it.
  void handle_transit(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns, nf::HostReason reason);
  // Runs l3fwd (`view`: by default the one that passes options acted on) on a copy of `frame`: a
  // frame it forwards now (its next hop resolved since the NF looked, or a held one) leaves
  // (nullopt); otherwise why it would send it up.
  std::optional<nf::HostReason> forward_or_reason(uint16_t in_port, const std::vector<uint8_t>& frame,
                                                  const nf::L3FwdView& view);
  std::optional<nf::HostReason> forward_or_reason(uint16_t in_port, const std::vector<uint8_t>& frame) {
    return forward_or_reason(in_port, frame, view_);
  }
  void hold(uint16_t in_port, std::vector<uint8_t> frame, uint64_t now_ns);
  // Learns `address` at `mac` as the rules above say (neighbours_refused counts what is not taken).
  void learn(uint16_t port, const nf::IpAddress& address, const Mac& mac);
  void solicit(Pending& pending, uint64_t now_ns);
  // ICMP(v6) error about `frame` back to its sender, from the router's address on `port`. `rest`:
  // the ICMP header's second word: the next hop's MTU for fragmentation needed (RFC 1191) and packet
  // too big (RFC 4443 3.2), the pointer for parameter problem.
  void send_error(uint16_t port, const std::vector<uint8_t>& frame, uint8_t type, uint8_t code, uint64_t now_ns,
                  uint32_t rest = 0);
  // A transit packet with options l3fwd does not pass (the list above).
  void options(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns);
  // What the router writes into the IPv4 options of the packet at `ip`, come in on `in_port`.
  OptionStamp option_stamp(uint16_t in_port, const uint8_t* ip) const;
  // A packet larger than its output port's MTU: an ICMP error, or (IPv4 without DF) fragments
  // forwarded or held as the packet would have been.
  void too_big(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns);
  bool rate_allows(uint64_t now_ns);
  bool our_address(uint16_t port, const nf::IpAddress& address) const;
  bool send(uint16_t port, const std::vector<uint8_t>& frame);
  // To the kernel, counted; false (nothing counted) without local delivery.
  bool to_kernel(uint16_t port, const std::vector<uint8_t>& frame);

  nf::Router& router_;
  nf::L3FwdView view_;     // passes the options the slow path has acted on
  nf::L3FwdView nf_view_;  // as the NF runs it, for frames sent up without a reason
  sync::ReaderSlot* reader_;
  std::vector<Mac> port_macs_;
  Transmit transmit_;
  Deliver to_kernel_;
  WallClock milliseconds_;
  std::map<std::pair<uint16_t, std::array<uint8_t, 17>>, Pending> pending_;
  double tokens_ = 50;
  uint64_t tokens_ns_ = 0;
  std::array<uint64_t, kCounterCount> counters_{};
};

}  // namespace gnf::ctl
