// Route and neighbour files, read into a Router. Errors name the file and line.
//
// Route file lines ('#' starts a comment; blank lines are skipped):
//   R198.18.0.0/24 0             DPDK l3fwd's format: out of port 0 to the port's fixed next-hop MAC
//   R2001:db8::/32 1             (02:00:00:00:00:<port>, DPDK l3fwd's default --eth-dest); IPv6 too
//   10.2.0.0/16 10.0.1.2         via a gateway, out of the port whose network holds the gateway
//   10.2.0.0/16 10.0.1.2 1       via a gateway on port 1
//   10.9.0.0/16 blackhole        dropped
// Neighbour file lines:
//   10.0.1.2 02:aa:bb:cc:dd:01   on the port whose network holds the address
//   10.0.1.2 02:aa:bb:cc:dd:01 0 on port 0
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "nf/l3fwd/router.h"

namespace gnf::nf {

// The destination MAC a DPDK-style port route uses: 02:00:00:00:00:<port>.
std::array<uint8_t, 6> port_route_mac(uint16_t port);

// Reads every line into `router`; returns the number of routes. Throws gnf::UserError
// "file:line: problem" on the first bad line (earlier lines stay added).
uint32_t load_route_file(const std::string& path, Router& router);
uint32_t load_neighbour_file(const std::string& path, Router& router);

}  // namespace gnf::nf
