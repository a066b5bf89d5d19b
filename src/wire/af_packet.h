// The AF_PACKET backend of a link: one SOCK_RAW socket bound to the interface for every protocol
// (ETH_P_ALL), with memory-mapped rx and tx rings (PACKET_MMAP, TPACKET_V2), the qdisc bypassed on
// transmit, and the interface in promiscuous mode while the socket is open. Works on any interface
// with CAP_NET_RAW; costs a copy per frame into the kernel's skb on each side.
#pragma once
#include <memory>

#include "wire/link.h"

namespace gnf::wire {

// Call inside the interface's network namespace (open_link does), with what find_interface() said
// of it. Throws UserError naming the interface and the step the kernel refused, with its reason.
std::unique_ptr<Link> open_af_packet(const LinkOptions& options, const InterfaceInfo& interface);

}  // namespace gnf::wire
