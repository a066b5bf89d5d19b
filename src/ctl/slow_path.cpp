#include "ctl/slow_path.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "util/error.h"
#include "wire/bytes.h"
#include "wire/checksum.h"

namespace gnf::ctl {

using wire::load_be16;

namespace {

constexpr Mac kBroadcast = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
constexpr double kIcmpPerSecond = 1000, kIcmpBurst = 50;  // Linux: icmp_ratelimit 1 ms, burst 50

Mac mac_at(const uint8_t* p) {
  Mac m;
  std::memcpy(m.data(), p, 6);
  return m;
}

nf::IpAddress address_at(const uint8_t* p, uint8_t family) {
  nf::IpAddress a;
  a.family = family;
  std::memcpy(a.bytes, p, family == 4 ? 4 : 16);
  return a;
}

std::array<uint8_t, 17> key_of(const nf::IpAddress& a) {
  std::array<uint8_t, 17> k{};
  k[0] = a.family;
  std::memcpy(&k[1], a.bytes, 16);
  return k;
}

bool is_multicast_or_broadcast_ipv4(const uint8_t* a) { return a[0] >= 224; }
bool is_link_local_ipv6(const nf::IpAddress& a) { return a.bytes[0] == 0xfe && (a.bytes[1] & 0xc0) == 0x80; }

// RFC 8200 4.2-4.3, RFC 4443 3.4: the parameter problem a Hop-by-Hop header (the first after the
// IPv6 header: l3fwd drops it anywhere else) calls for, if any: code 0 at a header that runs past
// the payload or an option that runs past the header, code 2 at an unknown option whose type's two
// high bits are 10 or 11 (the latter not to a multicast destination: never in transit here).
struct HopByHopProblem {
  uint8_t code;
  uint32_t pointer;  // from the IPv6 header's first byte
};
std::optional<HopByHopProblem> hop_by_hop_problem(const uint8_t* ip) {
  constexpr uint32_t kOptionsAt = 42;  // behind the next header and length bytes
  const uint32_t payload = load_be16(ip + 4);
  if (payload < 2) return HopByHopProblem{0, 4};  // not even the header's length: the payload length is wrong
  const uint32_t size = (ip[41] + 1u) * 8;
  if (size > payload) return HopByHopProblem{0, 41};
  const uint32_t len = size - 2;
  const uint32_t stop = nf::L3FwdView::options_stop(ip + kOptionsAt, len, true);
  // Options padded beyond the limit call for no error: l3fwd drops such a packet, silently as Linux does.
  if (stop == len || stop == nf::L3FwdView::kBadPadding) return std::nullopt;
  const uint8_t* option = ip + kOptionsAt + stop;
  if (stop + 1 >= len) return HopByHopProblem{0, kOptionsAt + stop};  // a type without a length
  if (stop + 2 + option[1] > len) return HopByHopProblem{0, kOptionsAt + stop + 1};
  if (option[0] >> 6 >= 2) return HopByHopProblem{2, kOptionsAt + stop};
  return std::nullopt;  // 01: discarded silently
}

}  // namespace

SlowPath::SlowPath(nf::Router& router, const nf::L3FwdView& view, sync::ReaderSlot* reader, std::vector<Mac> port_macs,
                   Transmit transmit, WallClock milliseconds)
    : router_(router),
      view_(view),
      nf_view_(view),
      reader_(reader),
      port_macs_(std::move(port_macs)),
      transmit_(std::move(transmit)),
      milliseconds_(std::move(milliseconds)) {
  view_.options_acted_on = true;  // what comes here with options has had them acted on (options())
  nf_view_.options_acted_on = false;
}

uint64_t SlowPath::system_milliseconds() {
  using namespace std::chrono;
  return uint64_t(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count());
}

// The counter the NF moves for this frame, which it processes (forwarding rewrites it). The slow
// path reads the tables as a plane does: as a reader, for the grace periods of sync/readers.h.
nf::L3FwdView::Counter SlowPath::classify(const nf::L3FwdView& view, uint16_t port, std::vector<uint8_t>& frame,
                                          uint16_t& out_port) {
  nf::PacketRef ref{frame.data(), uint32_t(frame.size()), 0, port, port, nf::Verdict::Forward, nf::HostReason::Unspecified};
  nf::PacketBatch batch{&ref, 1};
  nf::NfCounters counters{};
  if (reader_) sync::reader_enter(reader_);
  view.process(batch, counters);
  if (reader_) sync::reader_leave(reader_);
  out_port = ref.out_port;
  for (int c = 0; c < nf::L3FwdView::kCounterCount; ++c)
    if (counters.value[c]) return nf::L3FwdView::Counter(c);
  return nf::L3FwdView::kDropBadHeader;
}

bool SlowPath::send(uint16_t port, const std::vector<uint8_t>& frame) {
  if (port < port_macs_.size() && transmit_(port, frame)) return true;
  ++counters_[kTxFailed];
  return false;
}

bool SlowPath::to_kernel(uint16_t port, const std::vector<uint8_t>& frame) {
  if (!to_kernel_) return false;
  ++counters_[to_kernel_(port, frame) ? kToKernel : kTapWriteFailed];
  return true;
}

void SlowPath::from_kernel(uint16_t port, std::vector<uint8_t> frame) {
  if (frame.size() < 14) return void(++counters_[kMalformed]);
  if (frame.size() < 60) frame.resize(60, 0);  // the kernel's ARP is 42 bytes: padded as a NIC would
  if (send(port, frame)) ++counters_[kFromKernel];
}

bool SlowPath::our_address(uint16_t port, const nf::IpAddress& address) const {
  if (router_.is_local(address)) return true;
  return address.family == 6 && port < port_macs_.size() && address == link_local_address(port_macs_[port]);
}

void SlowPath::handle(uint16_t port, std::vector<uint8_t> frame, uint64_t now_ns, nf::HostReason reason) {
  if (frame.size() < 14 || port >= port_macs_.size()) {
    ++counters_[kMalformed];
    return;
  }
  const uint16_t type = load_be16(&frame[12]);
  if (type == kEtherTypeArp) handle_arp(port, frame);
  else if (type == 0x0800) handle_ipv4(port, frame, now_ns, reason);
  else if (type == 0x86dd) handle_ipv6(port, frame, now_ns, reason);
  else ++counters_[kUnhandled];
}

void SlowPath::handle_arp(uint16_t port, const std::vector<uint8_t>& frame) {
  const uint8_t* a = frame.data() + 14;
  if (frame.size() < 42 || load_be16(a) != 1 || load_be16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4) {
    ++counters_[kMalformed];
    return;
  }
  const uint16_t op = load_be16(a + 6);
  const Mac sender_mac = mac_at(a + 8);
  const nf::IpAddress sender = address_at(a + 14, 4), target = address_at(a + 24, 4);
  // No station has a multicast or broadcast MAC (RFC 1812 3.3.2): nothing to answer or learn.
  if ((sender_mac[0] & 1) || (frame[6] & 1)) {
    ++counters_[kMalformed];
    return;
  }
  const bool probe = sender.ipv4() == 0;  // RFC 5227: answered, nothing to learn
  if (our_address(port, target) && !router_.network_or_broadcast(port, target)) {
    if (!probe) learn(port, sender, sender_mac);
    if (op == 1) {
      send(port, arp_frame(2, sender_mac, port_macs_[port], target, sender_mac, sender));
      ++counters_[kArpReplies];
    } else if (op == 2) {
      to_kernel(port, frame);  // perhaps the answer to the kernel's own request
    }
    return;
  }
  // Someone else's ARP: it may update what the table has, or answer what is being resolved.
  if (probe) ++counters_[kUnhandled];
  else learn(port, sender, sender_mac);
}

void SlowPath::handle_ipv4(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns, nf::HostReason reason) {
  const uint8_t* ip = frame.data() + 14;
  const uint32_t ihl = frame.size() >= 34 ? (ip[0] & 0xfu) * 4 : 0;
  if (ihl < 20 || ip[0] >> 4 != 4 || 14 + ihl > frame.size() || load_be16(ip + 2) < ihl ||
      14u + load_be16(ip + 2) > frame.size() || wire::checksum_finish(wire::checksum_add(0, ip, ihl)) != 0) {
    ++counters_[kMalformed];
    return;
  }
  const nf::IpAddress src = address_at(ip + 12, 4), dst = address_at(ip + 16, 4);
  if (our_address(port, dst)) {
    const uint32_t total = load_be16(ip + 2);
    const uint8_t* icmp = ip + ihl;
    // An echo request whole (not a fragment: gnf does not reassemble) and with a right checksum.
    const bool fragment = (load_be16(ip + 6) & 0x3fff) != 0;
    if (ip[9] == kIpProtoIcmp && total >= ihl + 8 && icmp[0] == 8 && icmp[1] == 0 && !fragment &&
        wire::checksum_finish(wire::checksum_add(0, icmp, total - ihl)) == 0) {
      std::vector<uint8_t> reply(icmp, ip + total);
      reply[0] = 0;  // echo reply; identifier, sequence and data stay
      send(port, icmpv4_frame(mac_at(&frame[6]), port_macs_[port], dst, src, std::move(reply)));
      ++counters_[kEchoReplies];
    } else if (!to_kernel(port, frame)) {
      ++counters_[kUnhandled];
    }
    return;
  }
  if (is_multicast_or_broadcast_ipv4(ip + 16)) {
    ++counters_[kUnhandled];
    return;
  }
  handle_transit(port, frame, now_ns, reason);
}

void SlowPath::handle_ipv6(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns, nf::HostReason reason) {
  const uint8_t* ip = frame.data() + 14;
  if (frame.size() < 54 || ip[0] >> 4 != 6 || 54u + load_be16(ip + 4) > frame.size()) {
    ++counters_[kMalformed];
    return;
  }
  if (ip[6] == kIpProtoIcmpv6 && load_be16(ip + 4) >= 8 && handle_icmpv6_local(port, frame)) return;
  const nf::IpAddress dst = address_at(ip + 24, 6);
  const bool link_local = is_link_local_ipv6(dst);
  // Link-local unicast to the port's MAC is for the router whatever the address: the kernel may have
  // one of its own beside the router's (wire/tap.h), and drops what is not its own.
  if ((our_address(port, dst) || link_local) && to_kernel(port, frame)) return;
  if (our_address(port, dst) || dst.bytes[0] == 0xff || link_local) {
    ++counters_[kUnhandled];
    return;
  }
  handle_transit(port, frame, now_ns, reason);
}

bool SlowPath::handle_icmpv6_local(uint16_t port, const std::vector<uint8_t>& frame) {
  const uint8_t* ip = frame.data() + 14;
  const uint8_t* icmp = ip + 40;
  const uint32_t len = load_be16(ip + 4);
  const nf::IpAddress src = address_at(ip + 8, 6), dst = address_at(ip + 24, 6);
  const uint8_t type = icmp[0];
  if (icmpv6_checksum(src, dst, icmp, len) != 0) {  // RFC 4443 2.3: dropped, never answered
    ++counters_[kMalformed];
    return true;
  }
  // The link-layer address option (type 1 source, 2 target) among the options from `at`.
  auto option_mac = [&](uint32_t at, uint8_t option) -> std::optional<Mac> {
    while (at + 8 <= len && icmp[at + 1] != 0) {
      if (icmp[at] == option) return mac_at(icmp + at + 2);
      at += icmp[at + 1] * 8u;
    }
    return std::nullopt;
  };
  // RFC 4861 7.1.1 / 7.1.2: every option has a length, and the last one ends with the message.
  auto options_valid = [&](uint32_t at) {
    while (at < len) {
      if (at + 2 > len || icmp[at + 1] == 0 || at + icmp[at + 1] * 8u > len) return false;
      at += icmp[at + 1] * 8u;
    }
    return true;
  };
  if (type == 135 || type == 136) {  // neighbour solicitation / advertisement
    // RFC 4861 7.1.1: only from the link itself, and whole.
    if (ip[7] != 255 || len < 24 || icmp[1] != 0 || !options_valid(24)) {
      ++counters_[kMalformed];
      return true;
    }
    const nf::IpAddress target = address_at(icmp + 8, 6);
    if (type == 136) {
      // Perhaps the answer to the kernel's own solicitation, sent to its link-local address.
      if (our_address(port, dst) || is_link_local_ipv6(dst)) to_kernel(port, frame);
      // RFC 4861 7.2.5: without the override flag an advertisement answers a resolution under way
      // but does not change an address already known (it could only keep the same one).
      const bool override = (icmp[4] & 0x20) != 0;
      if (!override && !pending_.count({port, key_of(target)})) {
        ++counters_[kNeighboursRefused];
        return true;
      }
      learn(port, target, option_mac(24, 2).value_or(mac_at(&frame[6])));
      return true;
    }
    if (!our_address(port, target)) {
      ++counters_[kUnhandled];
      return true;
    }
    const bool from_unspecified = std::all_of(src.bytes, src.bytes + 16, [](uint8_t b) { return b == 0; });
    if (!from_unspecified) {
      if (auto mac = option_mac(24, 1)) learn(port, src, *mac);
    }
    std::vector<uint8_t> na(32, 0);
    na[0] = 136;
    na[4] = from_unspecified ? 0xa0 : 0xe0;  // router, solicited (unless to all nodes), override
    std::memcpy(&na[8], target.bytes, 16);
    na[24] = 2;  // target link-layer address
    na[25] = 1;
    std::memcpy(&na[26], port_macs_[port].data(), 6);
    nf::IpAddress to = src;
    if (from_unspecified) to = *nf::parse_ip_address("ff02::1");
    send(port, icmpv6_frame(from_unspecified ? ipv6_multicast_mac(to) : mac_at(&frame[6]), port_macs_[port], target, to,
                            std::move(na), 255));
    ++counters_[kNdAdvertisements];
    return true;
  }
  if (type == 128 && our_address(port, dst)) {  // echo request
    std::vector<uint8_t> reply(icmp, icmp + len);
    reply[0] = 129;
    send(port, icmpv6_frame(mac_at(&frame[6]), port_macs_[port], dst, src, std::move(reply)));
    ++counters_[kEchoReplies];
    return true;
  }
  if (type == 133 || type == 134) {  // router solicitation / advertisement: not a router that advertises
    ++counters_[kUnhandled];
    return true;
  }
  return false;
}

void SlowPath::handle_transit(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns, nf::HostReason reason) {
  const bool v4 = load_be16(&frame[12]) == 0x0800;
  if (reason == nf::HostReason::Unspecified) {  // an NF that did not say: ask l3fwd now, as the NF would
    const std::optional<nf::HostReason> now = forward_or_reason(port, frame, nf_view_);
    if (!now) return void(++counters_[kHeldForwarded]);
    reason = *now;
  }
  switch (reason) {
    case nf::HostReason::TtlExpired:
      send_error(port, frame, v4 ? 11 : 3, 0, now_ns);
      break;
    case nf::HostReason::NoRoute:
      send_error(port, frame, v4 ? 3 : 1, 0, now_ns);
      break;
    case nf::HostReason::NoNeighbour:
      if (forward_or_reason(port, frame)) hold(port, std::move(frame), now_ns);
      else ++counters_[kHeldForwarded];  // resolved since the NF looked
      break;
    case nf::HostReason::TooBig:
      too_big(port, frame, now_ns);
      break;
    case nf::HostReason::Options:
      options(port, frame, now_ns);
      break;
    default:
      ++counters_[kUnhandled];
  }
}

void SlowPath::options(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns) {
  uint8_t* ip = frame.data() + 14;
  if (load_be16(&frame[12]) == 0x0800) {
    const OptionVerdict verdict = act_on_ipv4_options(ip, option_stamp(port, ip));
    if (verdict.kind == OptionVerdict::kProblem) return send_error(port, frame, 12, 0, now_ns, verdict.pointer << 24);
    if (verdict.kind == OptionVerdict::kSourceRoute) return void(++counters_[kSourceRoutesDropped]);
  } else if (const std::optional<HopByHopProblem> problem = hop_by_hop_problem(ip)) {
    return send_error(port, frame, 4, problem->code, now_ns, problem->pointer);
  }
  // l3fwd again, the options acted on: it forwards the packet or says what else it needs.
  // Only a reason handle_transit acts on without asking l3fwd again: an Unspecified one (a drop)
  // made it ask with the NF's own view, which could say Options, and the two recursed until the
  // stack ran out (router_fuzz, session 15; tests/fuzz/corpus/router_fuzz/options-recursion).
  const std::optional<nf::HostReason> now = forward_or_reason(port, frame);
  if (!now) return void(++counters_[kOptionsForwarded]);
  if (*now != nf::HostReason::Options && *now != nf::HostReason::Unspecified)
    return handle_transit(port, frame, now_ns, *now);
  ++counters_[kUnhandled];  // a Hop-by-Hop option whose type says discard, or a packet l3fwd now drops
}

OptionStamp SlowPath::option_stamp(uint16_t in_port, const uint8_t* ip) const {
  // The router's address on the port a packet to `a` leaves by, else on the input port.
  auto address_toward = [&](const uint8_t* a) {
    const auto route = router_.lookup(address_at(a, 4));
    std::optional<nf::IpAddress> address = route ? router_.address_on(route->port, 4) : std::nullopt;
    if (!address) address = router_.address_on(in_port, 4);
    return address ? address->ipv4() : 0u;
  };
  constexpr uint64_t kMillisecondsPerDay = 86'400'000;
  return {address_toward(ip + 16), address_toward(ip + 12), uint32_t(milliseconds_() % kMillisecondsPerDay),
          [this](uint32_t address) { return router_.is_local(nf::IpAddress::from_ipv4(address)); }};
}

std::optional<nf::HostReason> SlowPath::forward_or_reason(uint16_t in_port, const std::vector<uint8_t>& frame,
                                                          const nf::L3FwdView& view) {
  std::vector<uint8_t> copy = frame;
  uint16_t out_port = 0;
  const nf::L3FwdView::Counter c = classify(view, in_port, copy, out_port);
  if (c != nf::L3FwdView::kForwardedIpv4 && c != nf::L3FwdView::kForwardedIpv6) return nf::L3FwdView::reason_of(c);
  send(out_port, copy);
  return std::nullopt;
}

void SlowPath::hold(uint16_t in_port, std::vector<uint8_t> frame, uint64_t now_ns) {
  const bool v4 = load_be16(&frame[12]) == 0x0800;
  const nf::IpAddress dst = address_at(frame.data() + 14 + (v4 ? 16 : 24), v4 ? 4 : 6);
  auto route = router_.lookup(dst);
  if (!route) {
    ++counters_[kHeldDropped];
    return;
  }
  auto key = std::make_pair(route->port, key_of(route->neighbour));
  auto it = pending_.find(key);
  if (it == pending_.end()) {
    if (pending_.size() == kMaxPending) {
      ++counters_[kHeldDropped];
      return;
    }
    it = pending_.emplace(key, Pending{route->port, route->neighbour, {}, 0, 0}).first;
    solicit(it->second, now_ns);
  }
  Pending& p = it->second;
  if (p.held.size() == kHeldPerNeighbour) {  // the oldest goes, as Linux's unres_qlen does
    p.held.pop_front();
    ++counters_[kHeldDropped];
  }
  p.held.emplace_back(in_port, std::move(frame));
  ++counters_[kHeld];
}

void SlowPath::solicit(Pending& p, uint64_t now_ns) {
  ++p.tries;
  p.last_request_ns = now_ns;
  const Mac& mac = port_macs_[p.port];
  if (p.address.family == 4) {
    auto source = router_.address_on(p.port, 4);
    if (!source) return;  // no address on the port to ask from: the retries run out
    send(p.port, arp_frame(1, kBroadcast, mac, *source, Mac{}, p.address));
    ++counters_[kArpRequests];
    return;
  }
  std::vector<uint8_t> ns(32, 0);
  ns[0] = 135;
  std::memcpy(&ns[8], p.address.bytes, 16);
  ns[24] = 1;  // source link-layer address
  ns[25] = 1;
  std::memcpy(&ns[26], mac.data(), 6);
  const nf::IpAddress group = solicited_node(p.address);
  send(p.port, icmpv6_frame(ipv6_multicast_mac(group), mac, link_local_address(mac), group, std::move(ns), 255));
  ++counters_[kNdSolicitations];
}

void SlowPath::learn(uint16_t port, const nf::IpAddress& address, const Mac& mac) {
  if ((mac[0] & 1) || !router_.on_link(port, address)) {
    ++counters_[kNeighboursRefused];
    return;
  }
  auto it = pending_.find({port, key_of(address)});
  switch (router_.learn_neighbour(port, address, mac, it != pending_.end())) {
    case nf::NeighbourTable::Outcome::Stored:
      ++counters_[kNeighboursLearnt];
      break;
    case nf::NeighbourTable::Outcome::Confirmed:
      break;
    case nf::NeighbourTable::Outcome::Refused:
      ++counters_[kNeighboursRefused];
      return;
    case nf::NeighbourTable::Outcome::NoRoom:
      ++counters_[kUnhandled];  // only permanent neighbours where it could go: packets to it keep coming here
      return;
  }
  if (it == pending_.end()) return;
  for (const auto& [in_port, frame] : it->second.held)
    ++counters_[forward_or_reason(in_port, frame) ? kHeldDropped : kHeldForwarded];
  pending_.erase(it);
}

void SlowPath::tick(uint64_t now_ns) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& p = it->second;
    if (now_ns - p.last_request_ns < kResolveRetryNs) {
      ++it;
      continue;
    }
    if (p.tries < kResolveTries) {
      solicit(p, now_ns);
      ++it;
      continue;
    }
    for (auto& [in_port, frame] : p.held) {
      send_error(in_port, frame, p.address.family == 4 ? 3 : 1, p.address.family == 4 ? 1 : 3, now_ns);
      ++counters_[kHeldDropped];
    }
    it = pending_.erase(it);
  }
}

bool SlowPath::rate_allows(uint64_t now_ns) {
  if (tokens_ns_) tokens_ = std::min(kIcmpBurst, tokens_ + double(now_ns - tokens_ns_) * 1e-9 * kIcmpPerSecond);
  tokens_ns_ = now_ns;
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

void SlowPath::send_error(uint16_t port, const std::vector<uint8_t>& frame, uint8_t type, uint8_t code,
                          uint64_t now_ns, uint32_t rest) {
  const bool v4 = load_be16(&frame[12]) == 0x0800;
  const uint8_t* ip = frame.data() + 14;
  // The datagram without the Ethernet padding behind it (errors quote the datagram, not the frame).
  const size_t datagram = std::min<size_t>(frame.size() - 14, v4 ? load_be16(ip + 2) : 40u + load_be16(ip + 4));
  // Never about an ICMP error (RFC 1812 4.3.2.7, RFC 4443 2.4(e): behind extension headers too), an
  // IPv4 fragment other than the first (RFC 1812 4.3.2.7), or a multicast source. IPv6 has no rule
  // about fragments (RFC 4443 3.3: time exceeded is sent), but a later fragment holds no upper-layer
  // header to tell an ICMPv6 error by.
  uint32_t header = v4 ? (ip[0] & 0xfu) * 4 : 40;
  uint8_t proto = v4 ? ip[9] : ip[6];
  bool later_fragment = (v4 ? load_be16(ip + 6) & 0x1fff : 0) != 0;
  for (int k = 0; !v4 && !later_fragment && k < 8 && header + 8 <= datagram; ++k) {  // IPv6: to the upper layer
    if (proto == 44) later_fragment = (load_be16(ip + header + 2) & 0xfff8) != 0;
    else if (proto != 0 && proto != 43 && proto != 60) break;  // hop-by-hop, routing, destination options
    const uint32_t len = proto == 44 ? 8 : (ip[header + 1] + 1u) * 8;
    proto = ip[header];
    header += len;
  }
  const uint8_t inner_type = datagram > header ? ip[header] : 0;
  const bool about_icmp_error = v4 ? proto == kIpProtoIcmp && inner_type != 8 && inner_type != 0
                                   : proto == kIpProtoIcmpv6 && !later_fragment && inner_type < 128;
  if ((v4 && later_fragment) || about_icmp_error || (v4 ? ip[12] >= 224 : ip[8] == 0xff)) {
    ++counters_[kUnhandled];
    return;
  }
  auto source = router_.address_on(port, v4 ? 4 : 6);
  if (!source) {
    ++counters_[kUnhandled];
    return;
  }
  if (!rate_allows(now_ns)) {
    ++counters_[kRateLimited];
    return;
  }
  // As much of the packet as fits in 576 (IPv4, RFC 1812 4.3.2.3) or 1280 (IPv6, RFC 4443) bytes.
  const size_t room = v4 ? 576 - 20 - 8 : 1280 - 40 - 8;
  const size_t quoted = std::min(datagram, room);
  std::vector<uint8_t> icmp(8 + quoted, 0);
  icmp[0] = type;
  icmp[1] = code;
  wire::store_be32(&icmp[4], rest);
  std::memcpy(&icmp[8], ip, quoted);
  const nf::IpAddress to = address_at(ip + (v4 ? 12 : 8), v4 ? 4 : 6);
  const Mac back = mac_at(&frame[6]);
  send(port, v4 ? icmpv4_frame(back, port_macs_[port], *source, to, std::move(icmp))
                : icmpv6_frame(back, port_macs_[port], *source, to, std::move(icmp)));
  Counter sent = kUnreachable;
  if (v4 ? type == 11 : type == 3) sent = kTimeExceeded;
  else if (v4 ? type == 12 : type == 4) sent = kParameterProblem;
  else if (v4 ? type == 3 && code == 4 : type == 2) sent = kTooBig;
  ++counters_[sent];
}

void SlowPath::too_big(uint16_t port, std::vector<uint8_t>& frame, uint64_t now_ns) {
  const bool v4 = load_be16(&frame[12]) == 0x0800;
  uint8_t* ip = frame.data() + 14;
  const auto route = router_.lookup(address_at(ip + (v4 ? 16 : 24), v4 ? 4 : 6));
  const uint32_t mtu = route && route->port < nf::kMaxPorts ? view_.mtu[route->port] : 0;
  if (mtu == 0) {  // the routes changed since: no longer too big for where it goes
    ++counters_[kUnhandled];
    return;
  }
  constexpr uint16_t kDontFragment = 0x4000, kMoreFragments = 0x2000, kOffsetMask = 0x1fff;
  const uint16_t flags_offset = v4 ? load_be16(ip + 6) : 0;
  if (!v4 || (flags_offset & kDontFragment)) {
    send_error(port, frame, v4 ? 3 : 2, v4 ? 4 : 0, now_ns, mtu);
    return;
  }
  // RFC 791: the payload in pieces of a multiple of 8 bytes, each behind a copy of the header (its
  // options, after the first, only those copied into every fragment), the last keeping the packet's MF.
  const uint32_t ihl = (ip[0] & 0xfu) * 4, total = load_be16(ip + 2);
  const uint32_t piece = (mtu - ihl) / 8 * 8;
  for (uint32_t at = 0; at < total - ihl; at += piece) {
    const uint32_t len = std::min(piece, total - ihl - at);
    std::vector<uint8_t> fragment(frame.begin(), frame.begin() + 14 + ihl);
    fragment.insert(fragment.end(), ip + ihl + at, ip + ihl + at + len);
    uint8_t* f = fragment.data() + 14;
    const bool last = at + len == total - ihl;
    const uint16_t more = last ? (flags_offset & kMoreFragments) : kMoreFragments;
    wire::store_be16(f + 2, uint16_t(ihl + len));
    wire::store_be16(f + 6, uint16_t(more | ((flags_offset & kOffsetMask) + at / 8)));
    wire::store_be16(f + 10, 0);
    wire::store_be16(f + 10, wire::checksum_finish(wire::checksum_add(0, f, ihl)));
    if (fragment.size() < 60) fragment.resize(60, 0);  // Ethernet's minimum, as the NIC would pad
    if (forward_or_reason(port, fragment)) hold(port, std::move(fragment), now_ns);
    if (at == 0) nop_uncopied_options(ip + 20, ihl - 20);
  }
  ++counters_[kFragmented];
}

}  // namespace gnf::ctl
