// `gnf route`: where the router a config describes sends packets to given addresses, one line each
// as `ip route get` prints it, without starting the data path. The tables are built as `gnf run`
// builds them (the ports' addresses, the l3fwd's route and neighbour files) and, with [netlink],
// filled from that namespace as it is now; then each address is looked up.
#pragma once
#include <string>
#include <vector>

namespace gnf::app {

// Prints one line per address to stdout (nf::route_get_line); returns the exit code, 0. Throws
// gnf::UserError for a bad config, a chain without an l3fwd, or an address that is none.
int run_route(const std::string& config_file, const std::vector<std::string>& addresses);

}  // namespace gnf::app
