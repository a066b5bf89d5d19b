// Local delivery through the kernel ([router] local_delivery = "tap"), as the Keio router handed
// its own traffic to the kernel through a TAP device: one TAP per port in the [netlink] namespace,
// named as the port's interface there and with the port's MAC, so that the kernel holds the
// router's addresses and routes on the very interfaces it sends through. The slow path writes what
// comes for the router's addresses and is not its own to answer (TCP, UDP, ICMP other than echo
// requests, the answers to the kernel's ARP and ND; ctl/slow_path.h) into the port's TAP; what the kernel sends out
// of a TAP leaves by its port. Daemons (sshd, a BGP or BFD speaker) then run in that namespace as
// on any Linux router.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ctl/frames.h"
#include "wire/tap.h"

namespace gnf::ctl {

class KernelTaps {
 public:
  struct Port {
    std::string name;
    Mac mac;
    uint32_t mtu;  // the IP MTU: the port's largest frame less the Ethernet header, as l3fwd's
  };
  // A TAP for each port in namespace `netns`, with the port's name, MAC and MTU and the link-local
  // address the router answers for on it (ctl/frames.h); throws UserError (wire/tap.h).
  KernelTaps(const std::string& netns, const std::vector<Port>& ports);

  // The kernel receives `frame` as come in on `port`'s interface; false if it did not take it.
  bool deliver(uint16_t port, const std::vector<uint8_t>& frame);
  // Hands what the kernel has sent since the last call, a frame at a time with its port, to `send`:
  // at most kBatch per TAP, so that a busy kernel does not hold the slow path up. Never waits.
  template <typename Send>
  void drain(Send&& send);

  static constexpr uint32_t kBatch = 64;
  static constexpr size_t kMaxFrame = 65536;  // more than any MTU a TAP has; a longer frame comes cut

 private:
  // The ports whose TAPs have something to read now (poll(2) with no timeout).
  std::vector<uint16_t> readable();

  std::vector<std::unique_ptr<wire::Tap>> taps_;
  std::vector<uint8_t> buf_;
};

template <typename Send>
void KernelTaps::drain(Send&& send) {
  for (uint16_t port : readable()) {
    for (uint32_t n = 0; n < kBatch; ++n) {
      const std::optional<size_t> size = taps_[port]->read(buf_.data(), buf_.size());
      if (!size) break;
      send(port, std::vector<uint8_t>(buf_.begin(), buf_.begin() + long(*size)));
    }
  }
}

}  // namespace gnf::ctl
