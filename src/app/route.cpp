#include "app/route.h"

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "ctl/config.h"
#include "ctl/netlink_sync.h"
#include "nf/chain.h"
#include "util/error.h"

namespace gnf::app {

int run_route(const std::string& config_file, const std::vector<std::string>& addresses) {
  const ctl::Config config = ctl::load_config(config_file);
  ctl::validate(config);
  std::vector<nf::IpAddress> destinations;
  for (const std::string& text : addresses) {
    auto address = nf::parse_ip_address(text);
    if (!address) throw UserError(fmt::format("'{}' is no IPv4 or IPv6 address", text));
    destinations.push_back(*address);
  }
  // The chain alone: its elements' tables are what the data path would read, and building them
  // starts no port, ring or thread.
  nf::NfChain chain(config.nfs, ctl::nf_context(config));
  const std::optional<uint32_t> element = chain.router_element();
  if (!element) throw UserError(fmt::format("{}: the NF chain has no l3fwd: there is no router to ask", config.file));
  nf::Router& router = *chain.router(*element);
  std::unique_ptr<ctl::NetlinkSync> netlink;  // its constructor reads the namespace's tables
  if (config.netlink_netns)
    netlink = std::make_unique<ctl::NetlinkSync>(router, *config.netlink_netns, ctl::port_numbers(config));

  std::vector<std::string> port_names;
  for (const ctl::PortSpec& port : config.ports) port_names.push_back(port.nic.name);
  for (const nf::IpAddress& destination : destinations)
    std::fputs((nf::route_get_line(router, destination, port_names) + "\n").c_str(), stdout);
  return 0;
}

}  // namespace gnf::app
