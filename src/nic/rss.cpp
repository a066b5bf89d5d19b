// Receive-side scaling of the 82599 model; see rss.h and datasheet section 7.1.2.8.
#include "nic/rss.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "util/net_headers.h"
#include "wire/bytes.h"

namespace gnf::nic {

namespace {

constexpr size_t kPortBytes = 4;  // source + destination port, first in both TCP and UDP

// A hardware parser looks only a fixed depth into the packet; the model walks at most this many
// extension headers and treats a longer chain as unparsable (addresses only).
constexpr int kMaxIpv6ExtHeaders = 4;



// What the L3 parser learned: where the addresses are and, when they can be hashed, where the
// TCP/UDP ports are. Both point into the frame and lie inside `len`.
struct L3View {
  const uint8_t* addrs = nullptr;  // source address followed by destination address
  size_t addr_bytes = 0;           // 8 for IPv4, 32 for IPv6
  uint8_t l4_proto = 0;            // meaningful only when ports != nullptr
  const uint8_t* ports = nullptr;  // null: fragment, not TCP/UDP, truncated or unparsable
};

// Parses an IPv4 header of `avail` bytes at `p`. False if it is not a valid header.
bool parse_ipv4(const uint8_t* p, size_t avail, L3View& v) {
  if (avail < net::kIpv4MinHeaderBytes) return false;
  if ((p[0] >> 4) != 4) return false;
  const size_t header_bytes = size_t(p[0] & 0x0f) * 4;
  if (header_bytes < net::kIpv4MinHeaderBytes || header_bytes > avail) return false;

  v.addrs = p + 12;
  v.addr_bytes = 8;
  // Only the first fragment carries the L4 header, and even that one must not be hashed with
  // ports: the later fragments of the same datagram would land on another queue.
  const uint16_t frag = wire::load_be16(p + 6);
  const bool fragment = (frag & net::kIpv4MoreFragments) || (frag & net::kIpv4FragOffsetMask);
  const uint8_t proto = p[9];
  if (!fragment && (proto == net::kIpProtoTcp || proto == net::kIpProtoUdp) &&
      avail - header_bytes >= kPortBytes) {
    v.l4_proto = proto;
    v.ports = p + header_bytes;
  }
  return true;
}

// Parses an IPv6 header and its extension headers in `avail` bytes at `p`. False if the fixed
// header is not valid; a bad extension chain only costs the ports.
bool parse_ipv6(const uint8_t* p, size_t avail, L3View& v) {
  if (avail < net::kIpv6HeaderBytes) return false;
  if ((p[0] >> 4) != 6) return false;

  v.addrs = p + 8;
  v.addr_bytes = 32;
  uint8_t next = p[6];
  size_t off = net::kIpv6HeaderBytes;
  // Hop-by-hop, routing and destination-options headers share a layout: next header, then the
  // length in 8-byte units not counting the first 8. A fragment header (44) or any other
  // protocol ends the walk; only TCP and UDP give ports.
  for (int n = 0; next == net::kIpv6HopByHop || next == net::kIpv6Routing || next == net::kIpv6DestOptions; ++n) {
    if (n == kMaxIpv6ExtHeaders) return true;  // chain too long: addresses only
    if (avail - off < 2) return true;          // cannot even read the header's length
    const size_t ext_bytes = (size_t(p[off + 1]) + 1) * 8;
    if (ext_bytes > avail - off) return true;  // truncated extension header
    next = p[off];
    off += ext_bytes;
  }
  if ((next == net::kIpProtoTcp || next == net::kIpProtoUdp) && avail - off >= kPortBytes) {
    v.l4_proto = next;
    v.ports = p + off;
  }
  return true;
}

}  // namespace

uint32_t toeplitz_hash(const uint8_t* key, size_t key_len, const uint8_t* input, size_t input_len) {
  auto key_byte = [&](size_t i) -> uint32_t { return i < key_len ? key[i] : 0; };
  // `window` holds the 32 key bits that start at the current input bit; each step shifts the
  // next key bit in from the right.
  uint32_t window = key_byte(0) << 24 | key_byte(1) << 16 | key_byte(2) << 8 | key_byte(3);
  uint32_t result = 0;
  for (size_t i = 0; i < input_len; ++i) {
    const uint32_t next_key = key_byte(i + 4);
    for (int bit = 7; bit >= 0; --bit) {
      if (input[i] & (1u << bit)) result ^= window;
      window = window << 1 | ((next_key >> bit) & 1u);
    }
  }
  return result;
}

void fill_reta_round_robin(RssConfig& cfg, unsigned num_queues) {
  if (num_queues < 1 || num_queues > kRssMaxQueues) {
    throw std::invalid_argument("RSS queue count must be 1.." + std::to_string(kRssMaxQueues) +
                                ", got " + std::to_string(num_queues));
  }
  for (size_t i = 0; i < cfg.reta.size(); ++i) cfg.reta[i] = uint8_t(i % num_queues);
}

ToeplitzTable::ToeplitzTable(const std::array<uint8_t, kRssKeyBytes>& key) {
  uint8_t input[kRssMaxInputBytes] = {};
  for (size_t i = 0; i < kRssMaxInputBytes; ++i) {
    for (unsigned b = 0; b < 256; ++b) {
      input[i] = uint8_t(b);
      table[i][b] = toeplitz_hash(key.data(), key.size(), input, i + 1);
    }
    input[i] = 0;
  }
}

namespace {

template <typename HashFn>
RssResult classify(const RssConfig& cfg, const uint8_t* frame, uint32_t len, HashFn hash_fn) {
  const RssResult no_hash{};  // hash 0, queue 0, Type::None

  if (len < net::kEthHeaderBytes) return no_hash;
  uint16_t ether_type = wire::load_be16(frame + 12);
  size_t l3_off = net::kEthHeaderBytes;
  if (ether_type == net::kEtherTypeVlan || ether_type == net::kEtherTypeQinQ) {
    if (len < net::kEthHeaderBytes + net::kVlanTagBytes) return no_hash;
    ether_type = wire::load_be16(frame + 16);
    l3_off += net::kVlanTagBytes;
  }

  const uint8_t* l3 = frame + l3_off;
  const size_t avail = len - l3_off;
  L3View v;
  bool ipv6 = false;
  if (ether_type == net::kEtherTypeIpv4) {
    if (!parse_ipv4(l3, avail, v)) return no_hash;
  } else if (ether_type == net::kEtherTypeIpv6) {
    if (!parse_ipv6(l3, avail, v)) return no_hash;
    ipv6 = true;
  } else {
    return no_hash;  // ARP, a second VLAN tag, MPLS, ...
  }

  // Pick the hash type as MRQC's field-enable bits do: the L4 type when the packet has usable
  // ports and that type is on, else the address-only type of the IP version, else none.
  using Type = RssResult::Type;
  const bool tcp = v.ports && v.l4_proto == net::kIpProtoTcp;
  const bool udp = v.ports && v.l4_proto == net::kIpProtoUdp;
  Type type = Type::None;
  if (!ipv6) {
    if (tcp && cfg.ipv4_tcp) type = Type::Ipv4Tcp;
    else if (udp && cfg.ipv4_udp) type = Type::Ipv4Udp;
    else if (cfg.ipv4) type = Type::Ipv4;
  } else {
    if (tcp && cfg.ipv6_tcp) type = Type::Ipv6Tcp;
    else if (udp && cfg.ipv6_udp) type = Type::Ipv6Udp;
    else if (cfg.ipv6) type = Type::Ipv6;
  }
  if (type == Type::None) return no_hash;

  // Microsoft's input order: source address, destination address, source port, destination
  // port, each in network byte order — exactly how they sit in the headers.
  uint8_t input[kRssMaxInputBytes];
  size_t n = v.addr_bytes;
  std::memcpy(input, v.addrs, n);
  const bool with_ports = type != Type::Ipv4 && type != Type::Ipv6;
  if (with_ports) {
    std::memcpy(input + n, v.ports, kPortBytes);
    n += kPortBytes;
  }

  RssResult r;
  r.hash = hash_fn(input, n);
  r.queue = cfg.reta[r.hash & (kRssRetaEntries - 1)];  // 7.1.2.8.2: the 7 LSBs index RETA
  r.type = type;
  return r;
}

}  // namespace

RssResult rss_classify(const RssConfig& cfg, const uint8_t* frame, uint32_t len) {
  return classify(cfg, frame, len, [&](const uint8_t* input, size_t n) {
    return toeplitz_hash(cfg.key.data(), cfg.key.size(), input, n);
  });
}

RssResult rss_classify(const RssConfig& cfg, const ToeplitzTable& table, const uint8_t* frame, uint32_t len) {
  return classify(cfg, frame, len, [&](const uint8_t* input, size_t n) { return table.hash(input, n); });
}

}  // namespace gnf::nic
