#include "ctl/kernel_taps.h"

#include <poll.h>

#include <algorithm>

namespace gnf::ctl {

KernelTaps::KernelTaps(const std::string& netns, const std::vector<Port>& ports) : buf_(kMaxFrame) {
  for (const Port& port : ports) {
    wire::TapSettings settings{port.mac, port.mtu, {}};
    // The kernel then owns the link-local address the slow path answers neighbour discovery for.
    std::copy_n(link_local_address(port.mac).bytes, 16, settings.ipv6_link_local.begin());
    taps_.push_back(std::make_unique<wire::Tap>(port.name, netns, settings));
  }
}

bool KernelTaps::deliver(uint16_t port, const std::vector<uint8_t>& frame) {
  return port < taps_.size() && taps_[port]->write(frame.data(), frame.size());
}

std::vector<uint16_t> KernelTaps::readable() {
  std::vector<pollfd> fds;
  for (const auto& tap : taps_) fds.push_back({tap->fd(), POLLIN, 0});
  std::vector<uint16_t> ports;
  if (poll(fds.data(), fds.size(), 0) <= 0) return ports;
  for (size_t p = 0; p < fds.size(); ++p)
    if (fds[p].revents & POLLIN) ports.push_back(uint16_t(p));
  return ports;
}

}  // namespace gnf::ctl
