#include "app/control_plane.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "ctl/kernel_taps.h"
#include "ctl/netlink_sync.h"
#include "ctl/slow_path.h"
#include "util/error.h"
#include "util/net_headers.h"

namespace gnf::app {

namespace {

class RouterHost final : public path::HostHandler {
 public:
  RouterHost(const ctl::Config& config, const path::HostAccess& access) {
    const uint32_t element = *access.chain.router_element();
    nf::Router& router = *access.chain.router(element);
    const nf::NfChainView& view = access.chain.view();
    slow_path_ = std::make_unique<ctl::SlowPath>(router, view.elements[element].l3fwd,
                                                 view.readers ? view.readers + nf::kSlowPathReader : nullptr,
                                                 macs_of(access), access.transmit);
    if (config.local_delivery_tap) {  // before the sync, which then finds the port interfaces the TAPs are
      std::vector<ctl::KernelTaps::Port> ports;
      for (const nic::PortOptions& port : access.ports)
        ports.push_back({port.name, port.mac, port.max_frame_bytes - net::kEthHeaderBytes});
      taps_ = std::make_unique<ctl::KernelTaps>(*config.netlink_netns, ports);
      slow_path_->deliver_locally([this](uint16_t port, const std::vector<uint8_t>& frame) {
        return taps_->deliver(port, frame);
      });
    }
    if (config.netlink_netns)
      netlink_ = std::make_unique<ctl::NetlinkSync>(router, *config.netlink_netns, ctl::port_numbers(config));
  }

  void start() override {
    if (netlink_) netlink_->start();
  }
  void stop() override {
    if (netlink_) netlink_->stop();
  }
  void stop_sources() override { from_kernel_ = false; }  // what the kernel sends now stays in its TAPs

  void handle(std::vector<driver::HostFrame> frames, uint64_t now_ns) override {
    for (auto& f : frames) slow_path_->handle(f.port, std::move(f.bytes), now_ns, f.reason);
    if (taps_ && from_kernel_)
      taps_->drain([&](uint16_t port, std::vector<uint8_t> frame) { slow_path_->from_kernel(port, std::move(frame)); });
    slow_path_->tick(now_ns);
  }

  void add_counters(path::Snapshot& s) const override {
    if (netlink_) {
      const ctl::NetlinkSync::Counters& n = netlink_->counters();
      s.netlink = {{"routes_added", n.routes_added}, {"routes_removed", n.routes_removed}, {"addresses", n.addresses},
                   {"neighbours", n.neighbours},     {"ignored", n.ignored},               {"errors", n.errors}};
    }
    const auto counters = slow_path_->counters();
    for (int c = 0; c < ctl::SlowPath::kCounterCount; ++c)
      s.slow_path.emplace_back(ctl::SlowPath::kCounterNames[c], counters[c]);
  }

 private:
  static std::vector<ctl::Mac> macs_of(const path::HostAccess& access) {
    std::vector<ctl::Mac> macs;
    for (const nic::PortOptions& port : access.ports) macs.push_back(port.mac);
    return macs;
  }

  std::unique_ptr<ctl::SlowPath> slow_path_;
  std::unique_ptr<ctl::KernelTaps> taps_;
  bool from_kernel_ = true;  // the exception thread's, under the path's lock
  std::unique_ptr<ctl::NetlinkSync> netlink_;
};

}  // namespace

path::AttachHost control_plane(const ctl::Config& config) {
  ctl::validate(config);  // [netlink] without an l3fwd among the rest
  return [config](const path::HostAccess& access) { return std::make_unique<RouterHost>(config, access); };
}

}  // namespace gnf::app
