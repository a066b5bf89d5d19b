// 5-tuple packet classification (source and destination prefix, source and destination port range,
// protocol with mask; IPv4 and IPv6): the index of the first rule, in priority order, that matches.
// The firewall (acl) and the IPsec security policy database look packets up with it.
//
// Algorithm: aggregated bit vectors (Lakshman & Stiliadis, "High-speed policy-based packet
// forwarding using efficient multi-dimensional range matching", SIGCOMM 1998; Baboescu & Varghese,
// "Scalable packet classification", SIGCOMM 2001). Per field, the rules' ranges cut the key space
// into elementary intervals, within each of which the same rules match; each interval names a row,
// a bitmap with bit j set when rule j's range covers the interval (rules numbered in priority order).
// A lookup finds each field's interval by binary search, ANDs the five rows, and returns the lowest
// set bit. A row's summary (bit w set when word w of the row is non-zero) is ANDed first, so only
// the words where every field has a candidate are read, and the scan stops at the first match:
// a lookup reads 5 binary searches (log2 of at most 2N+1 keys), 5 summaries of N/4096 words, and
// 5 words per summary candidate, on the CPU and on a GPU thread alike, with no divergence beyond
// the loop counts.
//
// Memory: per family and field, (keys + row numbers) of at most 2N+1 intervals, and one N-bit row
// (with its N/64-bit summary) per distinct interval bitmap: O(N^2) bits in the worst case, about
// 10-60 MiB for 10 k ClassBench-shaped rules (rows are deduplicated; the constructor's max_bytes
// refuses a set that would need more). Build: O(N log N) to sort the bounds, plus one sweep per
// field that writes every row, O(N^2 / 64) words. Update: none in place; a changed rule set is a
// new classifier built beside the old one, whose view replaces the old one between bursts.
//
// Host and device: AclView and acl_classify() are plain data and inline functions, for CPU code and
// CUDA kernels alike; the view is copied by value. AclClassifier, the builder, is host-only: it lays
// every table out in one arena, so that a copy of the arena anywhere (GPU memory) is one copy, and
// view_at() gives the view of that copy.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "nf/l3fwd/ip_address.h"
#include "util/hd.h"

namespace gnf::nf {

inline constexpr uint32_t kAclNoMatch = 0xFFFFFFFFu;

// An IPv6 address as a number: its first 8 bytes (network order) in hi.
struct AclU128 {
  uint64_t hi;
  uint64_t lo;
};

GNF_INLINE bool acl_at_most(uint32_t a, uint32_t b) { return a <= b; }
GNF_INLINE bool acl_at_most(AclU128 a, AclU128 b) { return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo); }

GNF_INLINE uint32_t acl_lowest_bit(uint64_t word) {
#if defined(__CUDA_ARCH__)
  return uint32_t(__ffsll(static_cast<long long>(word)) - 1);
#else
  return uint32_t(__builtin_ctzll(word));
#endif
}

// One field: interval i is [starts[i], starts[i + 1]) (the last one runs to the field's largest key);
// starts[0] is the field's least key, so every key lies in one.
template <typename Key>
struct AclFieldView {
  const Key* starts;
  const uint32_t* row_of;     // interval -> row
  const uint64_t* rows;       // row r is words [r * words, (r + 1) * words): bit j set when rule j matches
  const uint64_t* summaries;  // row r's summary, summary_words words: bit w set when row word w is non-zero
  uint32_t intervals;
};

// The rules of one address family. Bit j is the family's j-th rule in priority order; rule_index
// maps it to the rule's index in the list the classifier was built from.
template <typename Addr>
struct AclFamilyView {
  AclFieldView<Addr> src, dst;
  AclFieldView<uint32_t> sport, dport, proto;
  const uint32_t* rule_index;
  uint32_t words;          // ceil(rules / 64); 0 when the family has no rules
  uint32_t summary_words;  // ceil(words / 64)
};

// What a lookup reads. Trivially copyable; pass it to kernels by value.
struct AclView {
  AclFamilyView<uint32_t> ipv4;
  AclFamilyView<AclU128> ipv6;
};

// A packet's 5-tuple, addresses and ports in host order (10.0.0.1 is 0x0a000001).
struct AclKey4 {
  uint32_t src, dst;
  uint16_t sport, dport;
  uint8_t proto;
};
struct AclKey6 {
  AclU128 src, dst;
  uint16_t sport, dport;
  uint8_t proto;
};

// The interval of `field` that holds `key`: the last i with starts[i] <= key.
template <typename Key>
GNF_INLINE uint32_t acl_interval(const AclFieldView<Key>& field, Key key) {
  uint32_t first = 0, count = field.intervals;
  while (count > 1) {
    const uint32_t half = count / 2;
    if (acl_at_most(field.starts[first + half], key)) first += half;
    count -= half;
  }
  return first;
}

template <typename Key>
GNF_INLINE const uint64_t* acl_row(const AclFieldView<Key>& field, Key key, uint32_t stride) {
  return field.rows + size_t(field.row_of[acl_interval(field, key)]) * stride;
}

template <typename Key>
GNF_INLINE const uint64_t* acl_summary(const AclFieldView<Key>& field, Key key, uint32_t stride) {
  return field.summaries + size_t(field.row_of[acl_interval(field, key)]) * stride;
}

template <typename Addr>
GNF_INLINE uint32_t acl_classify_family(const AclFamilyView<Addr>& v, Addr src, Addr dst, uint32_t sport,
                                        uint32_t dport, uint32_t proto) {
  if (v.words == 0) return kAclNoMatch;
  const uint64_t* rows[5] = {acl_row(v.src, src, v.words), acl_row(v.dst, dst, v.words),
                             acl_row(v.sport, sport, v.words), acl_row(v.dport, dport, v.words),
                             acl_row(v.proto, proto, v.words)};
  const uint64_t* sums[5] = {acl_summary(v.src, src, v.summary_words), acl_summary(v.dst, dst, v.summary_words),
                             acl_summary(v.sport, sport, v.summary_words),
                             acl_summary(v.dport, dport, v.summary_words),
                             acl_summary(v.proto, proto, v.summary_words)};
  for (uint32_t s = 0; s < v.summary_words; ++s) {
    uint64_t candidates = sums[0][s] & sums[1][s] & sums[2][s] & sums[3][s] & sums[4][s];
    while (candidates) {
      const uint32_t w = s * 64 + acl_lowest_bit(candidates);
      // The addresses first: they are the selective fields, and where they rule the word out the
      // ports' and protocol's rows are never loaded.
      uint64_t match = rows[0][w] & rows[1][w];
      if (match) match &= rows[2][w] & rows[3][w] & rows[4][w];
      if (match) return v.rule_index[w * 64 + acl_lowest_bit(match)];
      candidates &= candidates - 1;
    }
  }
  return kAclNoMatch;
}

// The index of the first rule (in the order the classifier was built from) that matches, or
// kAclNoMatch.
GNF_INLINE uint32_t acl_classify(const AclView& view, const AclKey4& key) {
  return acl_classify_family(view.ipv4, key.src, key.dst, key.sport, key.dport, key.proto);
}
GNF_INLINE uint32_t acl_classify(const AclView& view, const AclKey6& key) {
  return acl_classify_family(view.ipv6, key.src, key.dst, key.sport, key.dport, key.proto);
}

// What a rule matches: both prefixes of one family (bits beyond their length zero), inclusive port
// ranges, and the protocols p with (p & proto_mask) == proto (proto has no bits outside the mask).
struct AclMatch {
  IpPrefix src, dst;
  uint16_t sport_lo = 0, sport_hi = 0xFFFF;
  uint16_t dport_lo = 0, dport_hi = 0xFFFF;
  uint8_t proto = 0, proto_mask = 0;
};

// Whether `match` matches the 5-tuple: the definition the tables are built to, for tests.
bool acl_matches(const AclMatch& match, const AclKey4& key);
bool acl_matches(const AclMatch& match, const AclKey6& key);

inline constexpr size_t kAclDefaultMaxBytes = size_t(1) << 30;

// The host-side builder and owner of the tables, for one fixed rule list (priority = list order).
class AclClassifier {
 public:
  // Throws gnf::UserError when a rule is malformed (families differ, bits beyond a prefix or the
  // protocol mask, a port range whose low end is above its high end) or the tables would take more
  // than max_bytes (the build holds them twice for a moment: as built, and laid out in the arena).
  explicit AclClassifier(const std::vector<AclMatch>& rules, size_t max_bytes = kAclDefaultMaxBytes);
  AclClassifier(const AclClassifier&) = delete;  // views point into the arena
  AclClassifier& operator=(const AclClassifier&) = delete;

  // The view of the host arena.
  AclView view() const { return view_at(arena_.data()); }
  // The view of a byte-for-byte copy of arena() at `copy` (8-byte aligned), e.g. in GPU memory.
  AclView view_at(const void* copy) const;
  const void* arena() const { return arena_.data(); }
  size_t arena_bytes() const { return arena_.size() * sizeof(uint64_t); }

  uint32_t rule_count() const { return rule_count_; }
  // Distinct rows over every field of both families: how far deduplication kept the O(N^2) down.
  uint32_t row_count() const { return row_count_; }

  struct FieldLayout {
    size_t starts, row_of, rows, summaries;  // offsets into the arena, in bytes
    uint32_t intervals;
  };
  struct FamilyLayout {
    FieldLayout src, dst, sport, dport, proto;
    size_t rule_index;
    uint32_t words, summary_words;
  };

 private:
  std::vector<uint64_t> arena_;
  FamilyLayout ipv4_{}, ipv6_{};
  uint32_t rule_count_ = 0;
  uint32_t row_count_ = 0;
};

}  // namespace gnf::nf
