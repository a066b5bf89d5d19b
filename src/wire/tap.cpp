#include "wire/tap.h"

#include <fcntl.h>
#include <netinet/in.h>  // before the kernel's headers, which then leave in6_addr to it
#include <linux/if.h>
#include <linux/ipv6.h>
#include <linux/if_tun.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "util/error.h"
#include "wire/netns.h"

namespace gnf::wire {

namespace {

std::string why_not_attached(int error, const std::string& name) {
  switch (error) {
    case EINVAL:
      return fmt::format("an interface '{}' exists and is not a TAP (make it with `ip tuntap add dev {} mode tap`, or "
                         "delete it and gnf makes one)", name, name);
    case EBUSY:
      return "another process holds this TAP (gnf needs it to itself)";
    case EPERM:
      return "not allowed: it takes CAP_NET_ADMIN (run as root)";
    default:
      return std::strerror(error);
  }
}

// Gives the interface `ifr` names the IPv6 address `address`/64 unless it has it (EEXIST); a kernel
// without IPv6 has nothing to give.
std::string add_link_local(ifreq& ifr, const std::array<uint8_t, 16>& address) {
  const int sock = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return errno == EAFNOSUPPORT ? "" : fmt::format("no IPv6 socket: {}", std::strerror(errno));
  in6_ifreq req{};
  std::memcpy(&req.ifr6_addr, address.data(), address.size());
  req.ifr6_prefixlen = 64;
  bool added = ioctl(sock, SIOCGIFINDEX, &ifr) == 0;
  if (added) {
    req.ifr6_ifindex = ifr.ifr_ifindex;
    added = ioctl(sock, SIOCSIFADDR, &req) == 0 || errno == EEXIST;
  }
  const int error = errno;
  close(sock);
  return added ? "" : fmt::format("cannot give it its IPv6 link-local address: {}", std::strerror(error));
}

// Makes (or finds) the TAP `name` in the calling thread's namespace and applies `settings`: its
// descriptor, or -1 and why in `problem`.
int attach(const std::string& name, const TapSettings& settings, std::string& problem) {
  // The descriptor's namespace is the one it was opened in: the device is made (or found) there.
  const int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    problem = fmt::format("cannot open /dev/net/tun: {} (the kernel's tun module: `modprobe tun`)",
                          std::strerror(errno));
    return -1;
  }
  int sock = -1;
  auto failed = [&](std::string why) {
    problem = std::move(why);
    if (sock >= 0) close(sock);
    close(fd);
    return -1;
  };
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, name.data(), name.size());
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  if (ioctl(fd, TUNSETIFF, &ifr) != 0) return failed(why_not_attached(errno, name));
  // The port's MAC: what the kernel sends leaves by the port as the port's own. A TAP takes a new
  // address while up (IFF_LIVE_ADDR_CHANGE).
  ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
  std::memcpy(ifr.ifr_hwaddr.sa_data, settings.mac.data(), settings.mac.size());
  if (ioctl(fd, SIOCSIFHWADDR, &ifr) != 0) return failed(fmt::format("cannot set its MAC: {}", std::strerror(errno)));
  sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return failed(fmt::format("no socket to configure it with: {}", std::strerror(errno)));
  ifr.ifr_mtu = int(settings.mtu);
  if (settings.mtu && ioctl(sock, SIOCSIFMTU, &ifr) != 0)
    return failed(fmt::format("cannot set its MTU to {}: {}", settings.mtu, std::strerror(errno)));
  if (ioctl(sock, SIOCGIFFLAGS, &ifr) != 0)
    return failed(fmt::format("cannot read its flags: {}", std::strerror(errno)));
  ifr.ifr_flags |= IFF_UP;
  if (ioctl(sock, SIOCSIFFLAGS, &ifr) != 0) return failed(fmt::format("cannot set it up: {}", std::strerror(errno)));
  close(sock);
  sock = -1;
  constexpr std::array<uint8_t, 16> kNone{};
  if (settings.ipv6_link_local != kNone)
    if (std::string why = add_link_local(ifr, settings.ipv6_link_local); !why.empty()) return failed(why);
  return fd;
}

}  // namespace

Tap::Tap(const std::string& name, const std::string& netns, const TapSettings& settings) : name_(name) {
  const Netns ns(netns);
  std::string problem = "an interface name has 1 to 15 characters";
  if (!name_.empty() && name_.size() < IFNAMSIZ) ns.run([&] { fd_ = attach(name_, settings, problem); });
  if (fd_ < 0) throw UserError(fmt::format("TAP '{}' in {}: {}", name_, ns.description(), problem));
}

Tap::~Tap() {
  if (fd_ >= 0) close(fd_);
}

std::optional<size_t> Tap::read(uint8_t* buf, size_t size) {
  const ssize_t n = ::read(fd_, buf, size);
  if (n <= 0) return std::nullopt;  // EAGAIN: nothing now (a TAP never ends, and errors are not per frame)
  return size_t(n);
}

bool Tap::write(const uint8_t* frame, size_t size) { return ::write(fd_, frame, size) == ssize_t(size); }

}  // namespace gnf::wire
