// Seeded ACL rule sets shaped like ClassBench's (Taylor & Turner, "ClassBench: a packet classification
// benchmark", INFOCOM 2005) ACL seeds, and 5-tuples that probe them: prefixes of mixed lengths that
// nest and overlap (drawn around a few hundred sites), source ports mostly wildcard, destination
// ports exact, well-known, or ranges, TCP/UDP/ICMP/any protocols and now and then an odd mask.
// Tuples: inside a rule, on a rule's range bounds and one past them, across the protocol mask's
// bits, and uniformly random.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "nf/acl/classifier.h"

namespace gnf::oracle {

using nf::AclKey4;
using nf::AclKey6;
using nf::AclMatch;
using nf::AclU128;

// An address of `bits` bits as a number, and back (family 4: the low 32 bits).
inline unsigned __int128 acl_number(const nf::IpAddress& a) {
  unsigned __int128 n = 0;
  for (uint32_t i = 0; i < a.bits() / 8; ++i) n = n << 8 | a.bytes[i];
  return n;
}
inline nf::IpAddress acl_address(unsigned __int128 n, uint8_t family) {
  nf::IpAddress a;
  a.family = family;
  for (int i = int(a.bits() / 8) - 1; i >= 0; --i, n >>= 8) a.bytes[i] = uint8_t(n);
  return a;
}
inline unsigned __int128 acl_host_bits(uint32_t bits, uint32_t length) {
  if (length == 0) return bits == 128 ? ~(unsigned __int128)0 : ((unsigned __int128)1 << bits) - 1;
  return ((unsigned __int128)1 << (bits - length)) - 1;
}

class AclRuleGenerator {
 public:
  explicit AclRuleGenerator(uint64_t seed) : rng_(seed) {
    for (int i = 0; i < 256; ++i) sites4_.push_back(rng_() & 0xFFFFFFFFu);
    for (int i = 0; i < 256; ++i) sites6_.push_back((unsigned __int128)(0x2001'0db8'0000'0000ull | (rng_() & 0xFFFF'FFFFull)) << 64 | rng_());
  }

  AclMatch rule(uint8_t family) {
    AclMatch m;
    m.src = prefix(family, source_length(family));
    m.dst = prefix(family, destination_length(family));
    const uint32_t s = pick(100), d = pick(100);
    if (s >= 70) exact_or_range(s < 85 ? 0 : s < 95 ? 1 : 2, m.sport_lo, m.sport_hi);
    if (d >= 25) exact_or_range(d < 65 ? 3 : d < 80 ? 1 : 2, m.dport_lo, m.dport_hi);
    const uint32_t p = pick(100);
    m.proto_mask = p < 95 && p >= 80 ? 0 : 0xFF;
    m.proto = p < 45 ? 6 : p < 75 ? 17 : p < 80 ? (family == 4 ? 1 : 58) : 0;
    if (p >= 95) {
      m.proto_mask = uint8_t(rng_());
      m.proto = uint8_t(rng_()) & m.proto_mask;
    }
    return m;
  }

  // A tuple inside `m` where `inside` says so per field (src, dst, sport, dport, proto), random
  // elsewhere.
  template <typename Key>
  Key tuple_near(const AclMatch& m, unsigned inside) {
    Key k{};
    set_address(k.src, m.src, inside & 1);
    set_address(k.dst, m.dst, inside & 2);
    k.sport = inside & 4 ? uint16_t(m.sport_lo + pick(uint32_t(m.sport_hi - m.sport_lo) + 1)) : uint16_t(rng_());
    k.dport = inside & 8 ? uint16_t(m.dport_lo + pick(uint32_t(m.dport_hi - m.dport_lo) + 1)) : uint16_t(rng_());
    k.proto = inside & 16 ? uint8_t((uint8_t(rng_()) & ~m.proto_mask) | m.proto) : uint8_t(rng_());
    return k;
  }

  // Tuples inside `m` but for one field, which sits on a bound of the rule's range or one past it.
  template <typename Key>
  void edges(const AclMatch& m, std::vector<Key>& out) {
    const Key base = tuple_near<Key>(m, 31);
    const uint32_t bits = m.src.address.bits();
    auto address_edges = [&](const nf::IpPrefix& p, auto set) {
      const unsigned __int128 lo = acl_number(p.address), hi = lo | acl_host_bits(bits, p.length);
      for (unsigned __int128 a : {lo - 1, lo, hi, hi + 1}) {
        Key k = base;
        set(k, a & acl_host_bits(bits, 0));
        out.push_back(k);
      }
    };
    address_edges(m.src, [](Key& k, unsigned __int128 a) { store(k.src, a); });
    address_edges(m.dst, [](Key& k, unsigned __int128 a) { store(k.dst, a); });
    for (uint16_t port : {uint16_t(m.sport_lo - 1), m.sport_lo, m.sport_hi, uint16_t(m.sport_hi + 1)}) {
      Key k = base;
      k.sport = port;
      out.push_back(k);
    }
    for (uint16_t port : {uint16_t(m.dport_lo - 1), m.dport_lo, m.dport_hi, uint16_t(m.dport_hi + 1)}) {
      Key k = base;
      k.dport = port;
      out.push_back(k);
    }
    for (uint32_t bit = 0; bit < 8; ++bit) {  // every protocol bit flipped: inside the mask it misses
      Key k = base;
      k.proto = uint8_t(base.proto ^ (1u << bit));
      out.push_back(k);
    }
  }

  template <typename Key>
  Key random_tuple() {
    Key k{};
    store(k.src, (unsigned __int128)rng_() << 64 | rng_());
    store(k.dst, (unsigned __int128)rng_() << 64 | rng_());
    k.sport = uint16_t(rng_());
    k.dport = uint16_t(rng_());
    k.proto = uint8_t(rng_());
    return k;
  }

  uint32_t pick(uint32_t n) { return uint32_t(rng_() % n); }

 private:
  static void store(uint32_t& a, unsigned __int128 n) { a = uint32_t(n); }
  static void store(AclU128& a, unsigned __int128 n) { a = AclU128{uint64_t(n >> 64), uint64_t(n)}; }

  template <typename Addr>
  void set_address(Addr& out, const nf::IpPrefix& p, bool inside) {
    const uint32_t bits = p.address.bits();
    const unsigned __int128 noise = (unsigned __int128)rng_() << 64 | rng_();
    store(out, inside ? acl_number(p.address) | (noise & acl_host_bits(bits, p.length)) : noise);
  }

  uint8_t source_length(uint8_t family) {
    const uint32_t r = pick(100);
    if (family == 4) return uint8_t(r < 10 ? 0 : r < 15 ? 8 + pick(8) : r < 35 ? 16 + pick(8) : r < 60 ? 24 + pick(8) : 32);
    return uint8_t(r < 10 ? 0 : r < 40 ? 16 + pick(32) : r < 70 ? 48 + pick(16) : r < 80 ? 64 + pick(64) : 128);
  }
  uint8_t destination_length(uint8_t family) {
    const uint32_t r = pick(100);
    if (family == 4) return uint8_t(r < 5 ? 0 : r < 10 ? 8 + pick(8) : r < 30 ? 16 + pick(8) : r < 55 ? 24 + pick(8) : 32);
    return uint8_t(r < 5 ? 0 : r < 35 ? 16 + pick(32) : r < 65 ? 48 + pick(16) : r < 80 ? 64 + pick(64) : 128);
  }

  // Addresses around a site: a few of its low bits changed, then cut to the length.
  nf::IpPrefix prefix(uint8_t family, uint8_t length) {
    const uint32_t bits = family == 4 ? 32 : 128;
    const unsigned __int128 site = family == 4 ? sites4_[pick(256)] : sites6_[pick(256)];
    const unsigned __int128 spread = acl_host_bits(bits, bits - pick(family == 4 ? 25 : 81));
    const unsigned __int128 noise = (unsigned __int128)rng_() << 64 | rng_();
    const unsigned __int128 address = (site ^ (noise & spread)) & ~acl_host_bits(bits, length) & acl_host_bits(bits, 0);
    return nf::IpPrefix{acl_address(address, family), length};
  }

  // kind 0: exact, above 1023; 1: 1024-65535 or 0-1023; 2: a random range; 3: a well-known port.
  void exact_or_range(uint32_t kind, uint16_t& lo, uint16_t& hi) {
    static constexpr uint16_t kWellKnown[] = {20, 21, 22, 23, 25, 53, 80, 110, 123, 143, 161, 443, 993, 3306, 8080};
    if (kind == 0) {
      lo = hi = uint16_t(1024 + pick(65536 - 1024));
    } else if (kind == 1) {
      const bool high = pick(2);
      lo = high ? 1024 : 0;
      hi = high ? 65535 : 1023;
    } else if (kind == 2) {
      const uint16_t a = uint16_t(rng_()), b = uint16_t(rng_());
      lo = a < b ? a : b;
      hi = a < b ? b : a;
    } else {
      lo = hi = kWellKnown[pick(sizeof kWellKnown / sizeof kWellKnown[0])];
    }
  }

  std::mt19937_64 rng_;
  std::vector<unsigned __int128> sites4_, sites6_;
};

}  // namespace gnf::oracle
