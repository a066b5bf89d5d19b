#include "nf/l3fwd/router.h"

#include <cstring>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nf {

Router::Router(const RouterOptions& options, uint16_t ports)
    : ports_(ports),
      options_(options),
      lpm4_(options.lpm4_tbl8_groups),
      lpm6_(options.lpm6_groups),
      next_hops_(options.next_hops),
      neighbours_(options.neighbour_slots, options.neighbour_records) {
  if (options.next_hops == 0) throw UserError("router: next_hops must be at least 1");
}

Router::~Router() = default;

uint32_t Router::next_hop_index(const RouteTarget& target) {
  if (target.port >= ports_ && target.kind != NextHopKind::Local && target.kind != NextHopKind::Blackhole)
    throw UserError(fmt::format("router: port {} does not exist (there are {})", target.port, ports_));
  NextHop hop{};
  hop.kind = target.kind;
  hop.port = target.kind == NextHopKind::Local || target.kind == NextHopKind::Blackhole ? 0 : target.port;
  if (target.kind == NextHopKind::Gateway) {
    hop.family = target.gateway.family;
    std::memcpy(hop.gateway, target.gateway.bytes, 16);
  }
  if (target.kind == NextHopKind::Port) std::memcpy(hop.mac, target.mac.data(), 6);
  std::array<uint8_t, sizeof(NextHop)> key;
  std::memcpy(key.data(), &hop, sizeof hop);
  if (auto it = next_hop_ids_.find(key); it != next_hop_ids_.end()) return it->second;
  if (next_hops_used_ == next_hops_.size())
    throw UserError(fmt::format("router: all {} next hops are in use", next_hops_.size()));
  const uint32_t index = next_hops_used_++;
  next_hops_[index] = hop;  // unpublished until a route points to it: plain stores
  if (mirror_) {
    const auto* words = reinterpret_cast<const uint32_t*>(&hop);
    for (uint32_t w = 0; w < sizeof hop / 4; ++w) records_log_.store(next_hop_region_, index * (sizeof hop / 4) + w, words[w]);
  }
  __atomic_thread_fence(__ATOMIC_RELEASE);
  next_hop_ids_.emplace(key, index);
  return index;
}

void Router::commit() {
  if (mirror_) {
    // Records first, in a replay that has finished before the entries that point to them start.
    mirror_->apply(records_log_);
    mirror_->apply(entries_log_);
    records_log_.clear();
    entries_log_.clear();
  }
  // Every reader can see the unlinking now: the grace of the groups it freed starts.
  lpm4_.published();
  lpm6_.published();
}

void Router::set_readers(sync::ReaderRegistry* readers) {
  std::lock_guard lock(mutex_);
  lpm4_.set_readers(readers);
  lpm6_.set_readers(readers);
}

void Router::add_route(const IpPrefix& prefix, const RouteTarget& target) {
  std::lock_guard lock(mutex_);
  const uint32_t index = next_hop_index(target);
  if (prefix.address.family == 4) lpm4_.add(prefix.address.ipv4(), prefix.length, index);
  else lpm6_.add(prefix.address.bytes, prefix.length, index);
  commit();
}

bool Router::remove_route(const IpPrefix& prefix) {
  std::lock_guard lock(mutex_);
  const bool removed = prefix.address.family == 4 ? lpm4_.remove(prefix.address.ipv4(), prefix.length)
                                                  : lpm6_.remove(prefix.address.bytes, prefix.length);
  commit();
  return removed;
}

void Router::add_address(uint16_t port, const IpAddress& address, const IpPrefix& network) {
  if (port >= ports_) throw UserError(fmt::format("router: port {} does not exist (there are {})", port, ports_));
  RouteTarget local, connected;
  local.kind = NextHopKind::Local;
  connected.kind = NextHopKind::Connected;
  connected.port = port;
  add_route(IpPrefix{address, uint8_t(address.bits())}, local);
  add_route(network, connected);
  std::lock_guard lock(mutex_);
  addresses_.push_back(Address{port, address, network});
}

void Router::remove_address(uint16_t port, const IpAddress& address, const IpPrefix& network) {
  {
    std::lock_guard lock(mutex_);
    std::erase_if(addresses_, [&](const Address& a) {
      return a.port == port && a.address == address && a.network.length == network.length &&
             a.network.address == network.address;
    });
  }
  remove_route(IpPrefix{address, uint8_t(address.bits())});
  // The connected route stays while another address of the router lies in the same network.
  std::unique_lock lock(mutex_);
  for (const Address& a : addresses_)
    if (a.network.length == network.length && a.network.address == network.address) return;
  lock.unlock();
  remove_route(network);
}

void Router::set_neighbour(uint16_t port, const IpAddress& address, const std::array<uint8_t, 6>& mac) {
  std::lock_guard lock(mutex_);
  if (port >= ports_) throw UserError(fmt::format("router: port {} does not exist (there are {})", port, ports_));
  neighbours_.set(port, address.family, address.bytes, mac);
  commit();
}

bool Router::remove_neighbour(uint16_t port, const IpAddress& address) {
  std::lock_guard lock(mutex_);
  const bool removed = neighbours_.remove(port, address.family, address.bytes);
  commit();
  return removed;
}

std::optional<uint16_t> Router::connected_port(const IpAddress& address) const {
  std::lock_guard lock(mutex_);
  const Address* best = nullptr;
  for (const Address& a : addresses_)
    if (a.network.contains(address) && (!best || a.network.length > best->network.length)) best = &a;
  if (!best) return std::nullopt;
  return best->port;
}

std::optional<IpAddress> Router::address_on(uint16_t port, uint8_t family) const {
  std::lock_guard lock(mutex_);
  for (const Address& a : addresses_)
    if (a.port == port && a.address.family == family) return a.address;
  return std::nullopt;
}

bool Router::is_local(const IpAddress& address) const {
  std::lock_guard lock(mutex_);
  for (const Address& a : addresses_)
    if (a.address == address) return true;
  return false;
}

std::optional<Router::Lookup> Router::lookup(const IpAddress& destination) const {
  std::lock_guard lock(mutex_);
  uint32_t index;
  const bool found = destination.family == 4 ? lpm4_lookup(lpm4_.view(), destination.ipv4(), index)
                                             : lpm6_lookup(lpm6_.view(), destination.bytes, index);
  if (!found || index >= next_hops_used_) return std::nullopt;
  const NextHop& hop = next_hops_[index];
  Lookup out{hop.kind, hop.port, destination};
  if (hop.kind == NextHopKind::Gateway) {
    out.neighbour.family = hop.family;
    std::memcpy(out.neighbour.bytes, hop.gateway, 16);
  }
  return out;
}

L3FwdTables Router::host_tables() const {
  return L3FwdTables{lpm4_.view(), lpm6_.view(), NextHopView{next_hops_.data(), uint32_t(next_hops_.size())},
                     neighbours_.view()};
}

L3FwdTables Router::device_tables() {
  std::lock_guard lock(mutex_);
  if (mirror_) return device_tables_;
  auto mirror = std::make_unique<sync::DeviceMirror>();
  const uint32_t tbl24 = mirror->add_region(lpm4_.tbl24_words(), kLpm4Tbl24Entries);
  const uint32_t tbl8 = mirror->add_region(lpm4_.tbl8_words(), lpm4_.tbl8_word_count());
  const uint32_t tbl24_6 = mirror->add_region(lpm6_.tbl24_words(), kLpm6Tbl24Entries);
  const uint32_t tbl8_6 = mirror->add_region(lpm6_.tbl8_words(), lpm6_.tbl8_word_count());
  next_hop_region_ = mirror->add_region(reinterpret_cast<const uint32_t*>(next_hops_.data()),
                                        next_hops_.size() * sizeof(NextHop) / 4);
  const uint32_t slots = mirror->add_region(neighbours_.slot_words(), neighbours_.slot_word_count());
  const uint32_t records = mirror->add_region(neighbours_.record_words(), neighbours_.record_word_count());
  lpm4_.record_stores(&entries_log_, tbl24, tbl8);
  lpm6_.record_stores(&entries_log_, tbl24_6, tbl8_6);
  neighbours_.record_stores(&records_log_, records, &entries_log_, slots);
  L3FwdTables t = host_tables();
  t.lpm4.tbl24 = mirror->device(tbl24);
  t.lpm4.tbl8 = mirror->device(tbl8);
  t.lpm6.tbl24 = mirror->device(tbl24_6);
  t.lpm6.tbl8 = mirror->device(tbl8_6);
  t.next_hops.records = reinterpret_cast<const NextHop*>(mirror->device(next_hop_region_));
  t.neighbours.slots = mirror->device(slots);
  t.neighbours.records = reinterpret_cast<const NeighbourRecord*>(mirror->device(records));
  mirror_ = std::move(mirror);
  device_tables_ = t;
  return t;
}

Router::Usage Router::usage() const {
  std::lock_guard lock(mutex_);
  Usage u{};
  u.ipv4_routes = lpm4_.rule_count();
  u.ipv6_routes = lpm6_.rule_count();
  u.lpm4_groups = lpm4_.tbl8_groups_used();
  u.lpm6_groups = lpm6_.tbl8_groups_used();
  u.next_hops = next_hops_used_;
  u.neighbours = neighbours_.size();
  u.host_bytes_touched_max = size_t(kLpm4Tbl24Entries) * 4 + size_t(u.lpm4_groups) * kLpm4GroupEntries * 4 +
                             size_t(kLpm6Tbl24Entries) * 4 + size_t(u.lpm6_groups) * kLpm6GroupEntries * 4;
  u.device_bytes = mirror_ ? mirror_->device_bytes() : 0;
  return u;
}

std::string route_get_line(const Router& router, const IpAddress& destination,
                           const std::vector<std::string>& port_names) {
  const std::string address = destination.str();
  const std::optional<Router::Lookup> hop = router.lookup(destination);
  if (!hop) return "unreachable " + address;
  const std::string port = hop->port < port_names.size() ? port_names[hop->port] : fmt::format("port{}", hop->port);
  switch (hop->kind) {
    case NextHopKind::Local: return "local " + address;
    case NextHopKind::Blackhole: return "blackhole " + address;
    case NextHopKind::Gateway: return fmt::format("{} via {} dev {}", address, hop->neighbour.str(), port);
    case NextHopKind::Connected:
    case NextHopKind::Port: break;
  }
  return fmt::format("{} dev {}", address, port);
}

}  // namespace gnf::nf
