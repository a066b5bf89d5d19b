#include "nf/l3fwd/router.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nf {

namespace {

std::array<uint8_t, sizeof(NextHop)> key_of(const NextHop& hop) {
  std::array<uint8_t, sizeof(NextHop)> key;
  std::memcpy(key.data(), &hop, sizeof hop);
  return key;
}

// The network or broadcast address of an IPv4 network with more than two addresses.
bool network_edge(const IpPrefix& network, const IpAddress& address) {
  if (address.family != 4 || network.address.family != 4 || network.length > 30 || !network.contains(address))
    return false;
  const uint32_t host_bits = ~0u >> network.length;
  return (address.ipv4() & host_bits) == 0 || (address.ipv4() & host_bits) == host_bits;
}

}  // namespace

Router::Router(const RouterOptions& options, uint16_t ports)
    : ports_(ports),
      options_(options),
      lpm4_(options.lpm4_tbl8_groups),
      lpm6_(options.lpm6_groups),
      next_hops_(options.next_hops),
      next_hop_routes_(options.next_hops),
      neighbours_(options.neighbour_slots, options.neighbour_records) {
  if (options.next_hops == 0) throw UserError("router: next_hops must be at least 1");
  free_next_hops_.reserve(options.next_hops);
  for (uint32_t h = options.next_hops; h-- > 0;) free_next_hops_.push_back(h);
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
  const auto key = key_of(hop);
  if (auto it = next_hop_ids_.find(key); it != next_hop_ids_.end()) return it->second;
  if (free_next_hops_.empty()) next_hop_recycler_.reclaim(true);
  if (free_next_hops_.empty())
    throw UserError(fmt::format("router: all {} next hops are in use", next_hops_.size()));
  const uint32_t index = free_next_hops_.back();
  free_next_hops_.pop_back();
  next_hops_[index] = hop;  // no route points to it, and the grace of its last readers is over: plain stores
  if (mirror_) {
    const auto* words = reinterpret_cast<const uint32_t*>(&hop);
    for (uint32_t w = 0; w < sizeof hop / 4; ++w) records_log_.store(next_hop_region_, index * (sizeof hop / 4) + w, words[w]);
  }
  __atomic_thread_fence(__ATOMIC_RELEASE);
  next_hop_ids_.emplace(key, index);
  return index;
}

void Router::route_to(uint32_t next_hop) { ++next_hop_routes_[next_hop]; }

void Router::unroute(uint32_t next_hop) {
  if (next_hop_routes_[next_hop] > 0) --next_hop_routes_[next_hop];
  if (next_hop_routes_[next_hop] > 0) return;
  next_hop_ids_.erase(key_of(next_hops_[next_hop]));
  next_hop_recycler_.release(next_hop);
}

void Router::commit() {
  if (mirror_) {
    // Records first, in a replay that has finished before the entries that point to them start.
    mirror_->apply(records_log_);
    mirror_->apply(entries_log_);
    records_log_.clear();
    entries_log_.clear();
  }
  // Every reader can see the unlinking now: the grace of the groups and records it freed starts.
  lpm4_.published();
  lpm6_.published();
  neighbours_.published();
  next_hop_recycler_.published();
}

void Router::set_readers(sync::ReaderRegistry* readers) {
  std::lock_guard lock(mutex_);
  lpm4_.set_readers(readers);
  lpm6_.set_readers(readers);
  neighbours_.set_readers(readers);
  next_hop_recycler_.set_readers(readers);
}

void Router::add_route(const IpPrefix& prefix, const RouteTarget& target) {
  std::lock_guard lock(mutex_);
  const uint32_t index = next_hop_index(target);
  const bool v4 = prefix.address.family == 4;
  uint32_t replaced = 0;
  const bool replaces = v4 ? lpm4_.find(prefix.address.ipv4(), prefix.length, replaced)
                           : lpm6_.find(prefix.address.bytes, prefix.length, replaced);
  route_to(index);
  try {
    if (v4) lpm4_.add(prefix.address.ipv4(), prefix.length, index);
    else lpm6_.add(prefix.address.bytes, prefix.length, index);
  } catch (const UserError&) {
    unroute(index);  // the table is unchanged: a new next hop goes back
    commit();
    throw;
  }
  if (replaces) unroute(replaced);
  commit();
}

bool Router::remove_route(const IpPrefix& prefix) {
  std::lock_guard lock(mutex_);
  const bool v4 = prefix.address.family == 4;
  uint32_t next_hop = 0;
  const bool found = v4 ? lpm4_.find(prefix.address.ipv4(), prefix.length, next_hop)
                        : lpm6_.find(prefix.address.bytes, prefix.length, next_hop);
  const bool removed = v4 ? lpm4_.remove(prefix.address.ipv4(), prefix.length)
                          : lpm6_.remove(prefix.address.bytes, prefix.length);
  if (found && removed) unroute(next_hop);
  commit();
  return removed;
}

std::vector<uint32_t> Router::martian_sources_of(const std::vector<Address>& addresses) {
  std::vector<uint32_t> sources;
  for (const Address& a : addresses) {
    if (a.address.family != 4) continue;
    sources.push_back(a.address.ipv4());
    if (a.network.length <= 30) sources.push_back(a.network.address.ipv4() | (~0u >> a.network.length));
  }
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  return sources;
}

void Router::add_address(uint16_t port, const IpAddress& address, const IpPrefix& network) {
  if (port >= ports_) throw UserError(fmt::format("router: port {} does not exist (there are {})", port, ports_));
  {
    std::lock_guard lock(mutex_);
    std::vector<Address> after = addresses_;
    after.push_back(Address{port, address, network});
    if (martian_sources_of(after).size() > kMaxMartianSources)
      throw UserError(fmt::format("router: no room for {}: its IPv4 addresses and their networks' broadcast "
                                  "addresses are {} at most",
                                  address.str(), kMaxMartianSources));
  }
  RouteTarget local, connected;
  local.kind = NextHopKind::Local;
  connected.kind = NextHopKind::Connected;
  connected.port = port;
  add_route(IpPrefix{address, uint8_t(address.bits())}, local);
  add_route(network, connected);
  std::lock_guard lock(mutex_);
  addresses_.push_back(Address{port, address, network});
  martian_sources_.set(martian_sources_of(addresses_));
  commit();
}

void Router::remove_address(uint16_t port, const IpAddress& address, const IpPrefix& network) {
  {
    std::lock_guard lock(mutex_);
    std::erase_if(addresses_, [&](const Address& a) {
      return a.port == port && a.address == address && a.network.length == network.length &&
             a.network.address == network.address;
    });
    martian_sources_.set(martian_sources_of(addresses_));
    commit();
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
  if (neighbours_.set(port, address.family, address.bytes, mac, NeighbourTable::Kind::Permanent) ==
      NeighbourTable::Outcome::NoRoom) {
    throw UserError(fmt::format("neighbour table: no room for {} ({} neighbours, {} of {} records in use)",
                                address.str(), neighbours_.size(), neighbours_.records_in_use(),
                                options_.neighbour_records));
  }
  commit();
}

NeighbourTable::Outcome Router::learn_neighbour(uint16_t port, const IpAddress& address,
                                                const std::array<uint8_t, 6>& mac, bool create) {
  std::lock_guard lock(mutex_);
  if (port >= ports_) return NeighbourTable::Outcome::Refused;
  const auto outcome = neighbours_.set(port, address.family, address.bytes, mac, NeighbourTable::Kind::Learnt, create);
  if (outcome == NeighbourTable::Outcome::Stored) commit();
  return outcome;
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

bool Router::on_link(uint16_t port, const IpAddress& address) const {
  if (address.family == 6 && address.bytes[0] == 0xfe && (address.bytes[1] & 0xc0) == 0x80) return true;
  std::lock_guard lock(mutex_);
  bool inside = false;
  for (const Address& a : addresses_) {
    if (a.address == address || network_edge(a.network, address)) return false;
    inside |= a.port == port && a.network.contains(address);
  }
  return inside;
}

bool Router::network_or_broadcast(uint16_t port, const IpAddress& address) const {
  std::lock_guard lock(mutex_);
  for (const Address& a : addresses_)
    if (a.port == port && network_edge(a.network, address)) return true;
  return false;
}

std::optional<Router::Lookup> Router::lookup(const IpAddress& destination) const {
  std::lock_guard lock(mutex_);
  uint32_t index;
  const bool found = destination.family == 4 ? lpm4_lookup(lpm4_.view(), destination.ipv4(), index)
                                             : lpm6_lookup(lpm6_.view(), destination.bytes, index);
  if (!found || index >= next_hops_.size()) return std::nullopt;
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
                     neighbours_.view(), martian_sources_.words()};
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
  const uint32_t martians = mirror->add_region(martian_sources_.words(), martian_sources_.word_count());
  lpm4_.record_stores(&entries_log_, tbl24, tbl8);
  lpm6_.record_stores(&entries_log_, tbl24_6, tbl8_6);
  neighbours_.record_stores(&records_log_, records, &entries_log_, slots);
  martian_sources_.record_stores(&records_log_, &entries_log_, martians);
  L3FwdTables t = host_tables();
  t.lpm4.tbl24 = mirror->device(tbl24);
  t.lpm4.tbl8 = mirror->device(tbl8);
  t.lpm6.tbl24 = mirror->device(tbl24_6);
  t.lpm6.tbl8 = mirror->device(tbl8_6);
  t.next_hops.records = reinterpret_cast<const NextHop*>(mirror->device(next_hop_region_));
  t.neighbours.slots = mirror->device(slots);
  t.neighbours.records = reinterpret_cast<const NeighbourRecord*>(mirror->device(records));
  t.martian_sources = mirror->device(martians);
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
  u.next_hops = uint32_t(next_hop_ids_.size());
  u.neighbours = neighbours_.size();
  u.next_hop_records = uint32_t(next_hops_.size() - free_next_hops_.size());
  u.neighbour_records = neighbours_.records_in_use();
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
  const std::string port = port_label(hop->port, port_names);
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
