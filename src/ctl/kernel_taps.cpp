#include "ctl/kernel_taps.h"

#include <poll.h>

namespace gnf::ctl {

KernelTaps::KernelTaps(const std::string& netns, const std::vector<std::string>& names, const std::vector<Mac>& macs)
    : buf_(kMaxFrame) {
  for (size_t p = 0; p < names.size(); ++p) taps_.push_back(std::make_unique<wire::Tap>(names[p], netns, macs[p]));
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
