// Routes, addresses and neighbours from a Linux network namespace, kept in the router's tables as
// they change: `ip route add 10.9.0.0/16 via 10.0.1.2 dev east` in that namespace configures gnf, as
// the Keio paper's router took its routes from the kernel.
//
// The namespace is gnf's control namespace: one interface per gnf port, with the port's name
// (dummy interfaces do: `ip link add east type dummy`), carrying the router's addresses and the
// routes out of it. gnf's data ports are elsewhere (softnic ports on links, generators, pcaps), so
// the kernel there never sees the traffic and never answers for the router, except what local
// delivery hands it through the port interfaces when they are gnf's TAPs (ctl/kernel_taps.h).
//
// What is taken (rtnetlink, RFC 3549, through libmnl):
//   - addresses (RTM_NEWADDR / DELADDR) on port interfaces, except IPv6 link-local ones (the router
//     answers for its own, made from the port's MAC);
//   - routes of the main table (RTM_NEWROUTE / DELROUTE) out of a port interface: unicast via a
//     gateway, unicast on-link (connected), blackhole / unreachable / prohibit (dropped); IPv6
//     link-local and multicast routes, which the kernel makes per interface, are skipped;
//   - neighbours (RTM_NEWNEIGH / DELNEIGH) on port interfaces with a link-layer address.
// Everything else is counted as ignored. Linux drops the IPv4 routes of an interface that goes
// down (or away) without a message for each, so any link change of a port interface makes gnf
// read the route table again and remove the routes that are gone; so do lost events (ENOBUFS).
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "nf/l3fwd/router.h"

namespace gnf::ctl {

class NetlinkSync {
 public:
  struct Counters {
    std::atomic<uint64_t> routes_added{0}, routes_removed{0}, addresses{0}, neighbours{0}, ignored{0}, errors{0};
  };

  // Opens the socket in namespace `netns` ("" = gnf's own), reads what is there now into `router`
  // and returns; start() follows changes. `ports` maps interface names to port numbers. Throws
  // UserError when the namespace or the socket cannot be opened.
  NetlinkSync(nf::Router& router, const std::string& netns, std::map<std::string, uint16_t> ports);
  ~NetlinkSync();

  void start();
  void stop();
  const Counters& counters() const { return counters_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Counters counters_;
};

}  // namespace gnf::ctl
