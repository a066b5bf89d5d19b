#include "wire/link.h"

#include <fmt/format.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "util/error.h"
#include "wire/af_packet.h"
#include "wire/af_xdp.h"
#include "wire/bytes.h"
#include "wire/netns.h"

namespace gnf::wire {

const char* link_type_name(LinkOptions::Type type) {
  switch (type) {
    case LinkOptions::Type::Auto: return "auto";
    case LinkOptions::Type::AfPacket: return "af_packet";
    case LinkOptions::Type::AfXdp: return "af_xdp";
  }
  return "?";
}

Link::Link(std::string backend, const LinkOptions& options) : backend_(std::move(backend)), options_(options) {}

LinkCounters Link::link_counters() const {
  LinkCounters c;
  c.rx_frames = rx_stats_.frames.get();
  c.rx_bytes = rx_stats_.bytes.get();
  c.rx_dropped = kernel_rx_drops();
  c.rx_truncated = rx_stats_.truncated.get();
  c.rx_csum_completed = rx_stats_.csum_completed.get();
  c.rx_gso_frames = rx_stats_.gso_frames.get();
  c.rx_gso_segments = rx_stats_.gso_segments.get();
  c.rx_too_big = rx_stats_.too_big.get();
  c.rx_bad_offload = rx_stats_.bad_offload.get();
  c.tx_frames = tx_stats_.frames.get();
  c.tx_bytes = tx_stats_.bytes.get();
  c.tx_gso_frames = tx_stats_.gso_frames.get();
  c.tx_gso_segments = tx_stats_.gso_segments.get();
  c.tx_ring_full = tx_stats_.ring_full.get();
  c.tx_errors = tx_stats_.errors.get() + kernel_tx_errors();
  c.tx_send_errors = tx_stats_.send_errors.get();
  return c;
}

SourceCounters Link::counters() const {
  return {rx_stats_.frames.get(), rx_stats_.bytes.get(),
          rx_stats_.truncated.get() + rx_stats_.too_big.get() + rx_stats_.bad_offload.get()};
}

std::string Link::describe() const {
  std::string text = fmt::format("{} on {}: {}", backend_, link_where(options_), mode_);
  return chosen_because_.empty() ? text : fmt::format("{} ({})", text, chosen_because_);
}

std::string link_where(const LinkOptions& options) {
  return fmt::format("{} ({})", options.interface, netns_description(options.netns));
}

InterfaceInfo find_interface(const LinkOptions& options) {
  InterfaceInfo info;
  info.index = if_nametoindex(options.interface.c_str());
  if (info.index == 0)
    throw UserError(fmt::format("no interface '{}' in {} ({})", options.interface, netns_description(options.netns),
                                std::strerror(errno)));
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq req{};
  std::strncpy(req.ifr_name, options.interface.c_str(), IFNAMSIZ - 1);
  bool ok = fd >= 0 && ioctl(fd, SIOCGIFMTU, &req) == 0;
  int err = errno;
  if (ok) {
    info.mtu = uint32_t(req.ifr_mtu);
    ethtool_drvinfo drvinfo{};
    drvinfo.cmd = ETHTOOL_GDRVINFO;
    req.ifr_data = reinterpret_cast<char*>(&drvinfo);
    if (ioctl(fd, SIOCETHTOOL, &req) == 0) info.driver.assign(drvinfo.driver, strnlen(drvinfo.driver, sizeof(drvinfo.driver)));
  }
  if (fd >= 0) close(fd);
  if (!ok) throw UserError(fmt::format("{}: cannot read its MTU: {}", link_where(options), std::strerror(err)));
  return info;
}

bool fits_mtu(const uint8_t* frame, uint32_t len, uint32_t mtu) {
  constexpr uint32_t kEthHeader = 14, kTag = 4;
  uint32_t header = kEthHeader;
  if (len >= kEthHeader) {
    uint16_t type = load_be16(frame + 12);
    if (type == 0x8100 || type == 0x88a8) header += kTag;
  }
  return len <= header + mtu;
}

std::unique_ptr<Link> open_link(const LinkOptions& options, const std::function<void(const std::string&)>& fallback) {
  std::unique_ptr<Link> link;
  std::string why_not_xdp;
  auto netns = std::make_shared<const Netns>(options.netns);
  netns->run([&] {
    // First, so that a missing interface is that, not a reason to fall back.
    InterfaceInfo interface = find_interface(options);
    if (options.type == LinkOptions::Type::AfPacket) {
      link = open_af_packet(options, interface);
      return;
    }
    if (options.type == LinkOptions::Type::Auto && (interface.driver == "veth" || interface.driver == "tun")) {
      link = open_af_packet(options, interface);
      link->set_chosen_because(fmt::format("auto: a {} interface; AF_XDP would not see its checksum and "
                                           "segmentation offload metadata", interface.driver));
      return;
    }
    try {
      link = open_af_xdp(options, interface, netns);
    } catch (const UserError& e) {
      if (options.type == LinkOptions::Type::AfXdp) throw;
      why_not_xdp = e.what();
      link = open_af_packet(options, interface);
    }
  });
  if (!why_not_xdp.empty()) fallback(fmt::format("{}; using AF_PACKET instead", why_not_xdp));
  return link;
}

}  // namespace gnf::wire
