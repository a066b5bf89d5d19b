// The AF_XDP backend of a link (libxdp): an XDP socket on queue 0 of the interface, with a UMEM
// of 4 KiB frames shared by its fill, rx, tx and completion rings, and libxdp's default XDP program
// redirecting what arrives on that queue to it. Native (driver) XDP where the driver has it,
// zero-copy where the driver offers it; otherwise generic (skb) mode, which every interface has.
// Frames on other rx queues of a multi-queue NIC never reach gnf (`ethtool -L IF combined 1`).
#pragma once
#include <memory>

#include "wire/link.h"
#include "wire/netns.h"

namespace gnf::wire {

// Call inside `netns`, the interface's namespace (open_link does), with what find_interface()
// said of it; the link keeps `netns` to detach the XDP program there at the end. Throws UserError
// naming the interface and the step that failed with the kernel's reason, or saying that this gnf
// was built without libxdp.
std::unique_ptr<Link> open_af_xdp(const LinkOptions& options, const InterfaceInfo& interface,
                                  std::shared_ptr<const Netns> netns);

// Whether this gnf was built with libxdp (CMake found it).
bool af_xdp_built();

}  // namespace gnf::wire
