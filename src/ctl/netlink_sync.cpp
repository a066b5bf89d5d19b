#include "ctl/netlink_sync.h"

#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "util/error.h"
#include "wire/netns.h"
#include "util/log.h"

namespace gnf::ctl {

namespace {

constexpr unsigned kGroups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE |
                             RTMGRP_IPV6_ROUTE | RTMGRP_NEIGH;

// The attributes of a message, by type (the last of each type wins; none are repeated here).
struct Attributes {
  std::array<const nlattr*, 64> by_type{};
  const nlattr* operator[](int type) const { return type < int(by_type.size()) ? by_type[type] : nullptr; }
};

int collect_attribute(const nlattr* attr, void* data) {
  auto* attrs = static_cast<Attributes*>(data);
  const int type = mnl_attr_get_type(attr);
  if (type < int(attrs->by_type.size())) attrs->by_type[type] = attr;
  return MNL_CB_OK;
}

std::optional<nf::IpAddress> address_from(const nlattr* attr, uint8_t family) {
  if (!attr) return std::nullopt;
  const size_t bytes = family == 4 ? 4 : 16;
  if (mnl_attr_get_payload_len(attr) != bytes) return std::nullopt;
  nf::IpAddress a;
  a.family = family;
  std::memcpy(a.bytes, mnl_attr_get_payload(attr), bytes);
  return a;
}

bool ipv6_link_local_or_multicast(const nf::IpAddress& a) {
  return a.family == 6 && (a.bytes[0] == 0xff || (a.bytes[0] == 0xfe && (a.bytes[1] & 0xc0) == 0x80));
}

// A route's prefix as a set key: family, length, address bytes.
using RouteKey = std::array<uint8_t, 18>;
RouteKey key_of(const nf::IpPrefix& p) {
  RouteKey k{p.address.family, p.length};
  std::memcpy(&k[2], p.address.bytes, 16);
  return k;
}

struct Socket {
  mnl_socket* nl = nullptr;
  ~Socket() {
    if (nl) mnl_socket_close(nl);
  }
};

}  // namespace

struct NetlinkSync::Impl {
  nf::Router& router;
  std::map<std::string, uint16_t> port_by_name;
  std::map<int, uint16_t> port_by_index;
  Counters& counters;
  std::string where;
  Socket events, dumps;
  std::thread thread;
  std::atomic<bool> stopping{false};
  // The routes taken from the kernel's table. Linux drops an interface's IPv4 routes when it goes
  // down or away without a RTM_DELROUTE for each (fib_sync_down_dev flushes them quietly), so after
  // a port interface's link changes the table is read again and what is no longer there removed.
  std::map<RouteKey, nf::IpPrefix> routes;
  std::set<RouteKey>* reread = nullptr;  // while reading it again: the routes found
  bool link_changed = false;

  Impl(nf::Router& r, std::map<std::string, uint16_t> ports, Counters& c) : router(r), port_by_name(std::move(ports)), counters(c) {}

  std::optional<uint16_t> port_of(int ifindex) const {
    auto it = port_by_index.find(ifindex);
    if (it == port_by_index.end()) return std::nullopt;
    return it->second;
  }

  static int on_message(const nlmsghdr* nlh, void* data) {
    auto* self = static_cast<Impl*>(data);
    try {
      self->handle(nlh);
    } catch (const UserError& e) {
      ++self->counters.errors;  // a full table: say so, keep syncing the rest
      spdlog::warn("netlink sync ({}): {}", self->where, e.what());
    }
    return MNL_CB_OK;
  }

  void handle(const nlmsghdr* nlh) {
    switch (nlh->nlmsg_type) {
      case RTM_NEWLINK:
      case RTM_DELLINK: return handle_link(nlh);
      case RTM_NEWADDR:
      case RTM_DELADDR: return handle_address(nlh);
      case RTM_NEWROUTE:
      case RTM_DELROUTE: return handle_route(nlh);
      case RTM_NEWNEIGH:
      case RTM_DELNEIGH: return handle_neighbour(nlh);
      default: ++counters.ignored;
    }
  }

  void handle_link(const nlmsghdr* nlh) {
    const auto* ifi = static_cast<const ifinfomsg*>(mnl_nlmsg_get_payload(nlh));
    Attributes attrs;
    mnl_attr_parse(nlh, sizeof *ifi, collect_attribute, &attrs);
    if (!attrs[IFLA_IFNAME]) return;
    auto it = port_by_name.find(mnl_attr_get_str(attrs[IFLA_IFNAME]));
    if (it == port_by_name.end()) return;
    if (nlh->nlmsg_type == RTM_NEWLINK) port_by_index[ifi->ifi_index] = it->second;
    else port_by_index.erase(ifi->ifi_index);
    link_changed = true;
  }

  void handle_address(const nlmsghdr* nlh) {
    const auto* ifa = static_cast<const ifaddrmsg*>(mnl_nlmsg_get_payload(nlh));
    const uint8_t family = ifa->ifa_family == AF_INET ? 4 : ifa->ifa_family == AF_INET6 ? 6 : 0;
    auto port = port_of(int(ifa->ifa_index));
    if (!family || !port) return void(++counters.ignored);
    Attributes attrs;
    mnl_attr_parse(nlh, sizeof *ifa, collect_attribute, &attrs);
    auto address = address_from(family == 4 && attrs[IFA_LOCAL] ? attrs[IFA_LOCAL] : attrs[IFA_ADDRESS], family);
    if (!address || ipv6_link_local_or_multicast(*address)) return void(++counters.ignored);
    const nf::IpPrefix network = nf::network_of(*address, ifa->ifa_prefixlen);
    if (nlh->nlmsg_type == RTM_NEWADDR) {
      if (!router.is_local(*address)) router.add_address(*port, *address, network);
    } else {
      router.remove_address(*port, *address, network);
    }
    ++counters.addresses;
  }

  void handle_route(const nlmsghdr* nlh) {
    const auto* rtm = static_cast<const rtmsg*>(mnl_nlmsg_get_payload(nlh));
    const uint8_t family = rtm->rtm_family == AF_INET ? 4 : rtm->rtm_family == AF_INET6 ? 6 : 0;
    Attributes attrs;
    mnl_attr_parse(nlh, sizeof *rtm, collect_attribute, &attrs);
    const uint32_t table = attrs[RTA_TABLE] ? mnl_attr_get_u32(attrs[RTA_TABLE]) : rtm->rtm_table;
    if (!family || table != RT_TABLE_MAIN) return void(++counters.ignored);
    nf::IpAddress destination;
    destination.family = family;
    if (attrs[RTA_DST]) destination = *address_from(attrs[RTA_DST], family);
    const nf::IpPrefix prefix = nf::network_of(destination, rtm->rtm_dst_len);
    if (ipv6_link_local_or_multicast(destination)) return void(++counters.ignored);
    nf::RouteTarget target;
    if (rtm->rtm_type == RTN_BLACKHOLE || rtm->rtm_type == RTN_UNREACHABLE || rtm->rtm_type == RTN_PROHIBIT) {
      target.kind = nf::NextHopKind::Blackhole;
    } else if (rtm->rtm_type == RTN_UNICAST && attrs[RTA_OIF] && port_of(int(mnl_attr_get_u32(attrs[RTA_OIF])))) {
      target.port = *port_of(int(mnl_attr_get_u32(attrs[RTA_OIF])));
      auto gateway = address_from(attrs[RTA_GATEWAY], family);
      target.kind = gateway ? nf::NextHopKind::Gateway : nf::NextHopKind::Connected;
      if (gateway) target.gateway = *gateway;
    } else {
      return void(++counters.ignored);  // local, broadcast, multipath, or out of no gnf port
    }
    if (nlh->nlmsg_type == RTM_DELROUTE) {
      routes.erase(key_of(prefix));
      if (router.remove_route(prefix)) ++counters.routes_removed;
      return;
    }
    router.add_route(prefix, target);
    routes[key_of(prefix)] = prefix;
    if (reread) reread->insert(key_of(prefix));
    ++counters.routes_added;
  }

  void handle_neighbour(const nlmsghdr* nlh) {
    const auto* ndm = static_cast<const ndmsg*>(mnl_nlmsg_get_payload(nlh));
    const uint8_t family = ndm->ndm_family == AF_INET ? 4 : ndm->ndm_family == AF_INET6 ? 6 : 0;
    auto port = port_of(ndm->ndm_ifindex);
    if (!family || !port) return void(++counters.ignored);
    Attributes attrs;
    mnl_attr_parse(nlh, sizeof *ndm, collect_attribute, &attrs);
    auto address = address_from(attrs[NDA_DST], family);
    const bool multicast = address && (family == 4 ? address->bytes[0] >= 224 : address->bytes[0] == 0xff);
    if (!address || multicast) return void(++counters.ignored);  // the kernel's multicast mappings
    const nlattr* lladdr = attrs[NDA_LLADDR];
    const bool usable = ndm->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT | NUD_NOARP);
    if (nlh->nlmsg_type == RTM_NEWNEIGH && usable && lladdr && mnl_attr_get_payload_len(lladdr) == 6) {
      std::array<uint8_t, 6> mac;
      std::memcpy(mac.data(), mnl_attr_get_payload(lladdr), 6);
      router.set_neighbour(*port, *address, mac);
    } else {
      router.remove_neighbour(*port, *address);
    }
    ++counters.neighbours;
  }

  // Asks for a whole table (RTM_GETLINK, ...) and applies the answer.
  void dump(uint16_t type) {
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE * 4);
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    const uint32_t seq = nlh->nlmsg_seq = uint32_t(type);
    auto* gen = static_cast<rtgenmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(rtgenmsg)));
    gen->rtgen_family = AF_UNSPEC;
    if (mnl_socket_sendto(dumps.nl, nlh, nlh->nlmsg_len) < 0)
      throw UserError(fmt::format("netlink sync ({}): cannot ask for a dump: {}", where, std::strerror(errno)));
    const unsigned portid = mnl_socket_get_portid(dumps.nl);
    for (;;) {
      const ssize_t n = mnl_socket_recvfrom(dumps.nl, buf.data(), buf.size());
      if (n < 0) throw UserError(fmt::format("netlink sync ({}): dump failed: {}", where, std::strerror(errno)));
      const int r = mnl_cb_run(buf.data(), size_t(n), seq, portid, on_message, this);
      if (r == MNL_CB_STOP) return;
      if (r < 0) throw UserError(fmt::format("netlink sync ({}): dump failed: {}", where, std::strerror(errno)));
    }
  }

  // Reads the route table again: what is there is added (again), what gnf has from before and is
  // not there any more is removed.
  void reread_routes() {
    std::set<RouteKey> found;
    reread = &found;
    try {
      dump(RTM_GETROUTE);
    } catch (...) {
      reread = nullptr;
      throw;
    }
    reread = nullptr;
    for (auto it = routes.begin(); it != routes.end();) {
      if (found.count(it->first)) {
        ++it;
        continue;
      }
      if (router.remove_route(it->second)) ++counters.routes_removed;
      it = routes.erase(it);
    }
  }

  void follow() {
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE * 4);
    pollfd pfd{mnl_socket_get_fd(events.nl), POLLIN, 0};
    while (!stopping.load(std::memory_order_relaxed)) {
      if (poll(&pfd, 1, 100) <= 0) continue;
      const ssize_t n = mnl_socket_recvfrom(events.nl, buf.data(), buf.size());
      const bool lost = n < 0 && errno == ENOBUFS;  // the kernel dropped events: read everything again
      if (n < 0) ++counters.errors;
      if (n > 0) mnl_cb_run(buf.data(), size_t(n), 0, 0, on_message, this);
      if (!lost && !std::exchange(link_changed, false)) continue;
      try {
        if (lost) {
          dump(RTM_GETLINK);
          dump(RTM_GETADDR);
        }
        reread_routes();
        if (lost) dump(RTM_GETNEIGH);
      } catch (const UserError& e) {
        ++counters.errors;
        spdlog::warn("netlink sync ({}): {}", where, e.what());
      }
      link_changed = false;  // the dumps' own links
    }
  }
};

NetlinkSync::NetlinkSync(nf::Router& router, const std::string& netns, std::map<std::string, uint16_t> ports)
    : impl_(std::make_unique<Impl>(router, std::move(ports), counters_)) {
  wire::Netns ns(netns);
  impl_->where = ns.description();
  // Both sockets are made in the namespace and stay in it. Events first, so none is missed between
  // the dumps and following.
  ns.run([&] {
    for (Socket* s : {&impl_->events, &impl_->dumps}) {
      s->nl = mnl_socket_open(NETLINK_ROUTE);
      if (!s->nl || mnl_socket_bind(s->nl, s == &impl_->events ? kGroups : 0, MNL_SOCKET_AUTOPID) < 0)
        throw UserError(fmt::format("netlink sync ({}): cannot open a routing socket: {}", impl_->where,
                                    std::strerror(errno)));
    }
  });
  for (uint16_t type : {RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE, RTM_GETNEIGH}) impl_->dump(type);
  impl_->link_changed = false;
}

NetlinkSync::~NetlinkSync() { stop(); }

void NetlinkSync::start() {
  if (!impl_->thread.joinable()) impl_->thread = std::thread([this] { impl_->follow(); });
}

void NetlinkSync::stop() {
  impl_->stopping = true;
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace gnf::ctl
