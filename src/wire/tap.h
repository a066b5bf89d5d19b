// A Linux TAP device (Documentation/networking/tuntap.rst): an Ethernet interface whose other
// side is a file descriptor. What the kernel sends out of the interface is read here, a frame per
// read(); what is written here the kernel receives as if it had come in on the interface.
// IFF_NO_PI: bare frames, without the 4-byte packet-information header; no vnet header either, so
// the kernel segments and checksums what it sends (the device offers no offloads) and checks what
// it receives (CHECKSUM_NONE).
//
// gnf's router delivers its own traffic through TAPs (ctl/kernel_taps.h). The device is made in a
// network namespace (the one a socket is made in owns it), or an existing one of that name taken
// over: a persistent TAP (`ip tuntap add dev NAME mode tap`) keeps its addresses and routes when
// gnf ends; one gnf made goes with its descriptor.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace gnf::wire {

// What the interface gets, whether gnf made it or found it.
struct TapSettings {
  std::array<uint8_t, 6> mac{};
  uint32_t mtu = 0;  // the IP MTU; 0 leaves the interface's
  // An IPv6 link-local address it gets unless it has it (all zero: none). The kernel makes one from
  // the MAC only when the link comes up, and not again when the MAC changes: a TAP made and up
  // before it was given `mac` has another.
  std::array<uint8_t, 16> ipv6_link_local{};
};

class Tap {
 public:
  // Opens /dev/net/tun in namespace `netns` ("" = gnf's own) and attaches to the TAP `name`, making
  // it when there is none; applies `settings` and sets it up. Non-blocking. Throws UserError naming
  // the interface and namespace: no /dev/net/tun, `name` an interface of another kind, a TAP another
  // process holds, or no right to (CAP_NET_ADMIN).
  Tap(const std::string& name, const std::string& netns, const TapSettings& settings);
  ~Tap();
  Tap(const Tap&) = delete;
  Tap& operator=(const Tap&) = delete;

  // One frame the kernel sent, into `buf` (`size` bytes of room): its length, or nullopt when
  // there is none now. A frame longer than `size` comes back cut (read(2) on a TAP does that).
  std::optional<size_t> read(uint8_t* buf, size_t size);
  // Hands the kernel one frame as received on the interface; false if it did not take it (its
  // queue full, the interface down, a frame it refuses).
  bool write(const uint8_t* frame, size_t size);

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  int fd_ = -1;
};

}  // namespace gnf::wire
