#include "nf/acl/classifier.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <unordered_map>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nf {

namespace {

// Every field's keys while building: addresses of either family, ports and protocols alike.
using Key = unsigned __int128;

Key address_key(const IpAddress& a) {
  Key key = 0;
  for (uint32_t i = 0; i < a.bits() / 8; ++i) key = key << 8 | a.bytes[i];
  return key;
}

Key largest_key(uint32_t bits) { return bits == 128 ? ~Key(0) : (Key(1) << bits) - 1; }

// The addresses after the first `length` bits of a `bits`-bit address.
Key host_bits(uint32_t bits, uint32_t length) { return length == 0 ? largest_key(bits) : largest_key(bits - length); }

struct Range {
  uint32_t bit;  // the rule's bit
  Key lo, hi;    // inclusive
};

// The bytes the tables may still take; the first request beyond them throws.
struct Budget {
  size_t left;
  size_t limit;
  size_t rules;
  void take(size_t bytes) {
    if (bytes > left)
      throw UserError(fmt::format("the ACL tables for {} rules need more than {} MiB (bit vectors grow with the "
                                  "square of the rule count): fewer or less overlapping rules",
                                  rules, limit >> 20));
    left -= bytes;
  }
};

// Rows of one field, each distinct bitmap kept once.
class RowTable {
 public:
  RowTable(uint32_t words, Budget& budget) : words_(words), budget_(budget) {}

  uint32_t add(const std::vector<uint64_t>& row) {
    uint64_t hash = 0;
    for (uint64_t w : row) hash = (hash ^ w) * 0x9E3779B97F4A7C15ull + (hash >> 29);
    auto [it, fresh] = first_.try_emplace(hash, kNone);
    for (uint32_t r = it->second; r != kNone; r = next_[r])
      if (std::equal(row.begin(), row.end(), rows_.begin() + size_t(r) * words_)) return r;
    budget_.take(size_t(words_) * 8 + 4);
    const uint32_t r = uint32_t(next_.size());
    rows_.insert(rows_.end(), row.begin(), row.end());
    next_.push_back(it->second);
    it->second = r;
    return r;
  }
  std::vector<uint64_t>& rows() { return rows_; }
  uint32_t count() const { return uint32_t(next_.size()); }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  uint32_t words_;
  Budget& budget_;
  std::vector<uint64_t> rows_;
  std::vector<uint32_t> next_;  // the previous row with the same hash
  std::unordered_map<uint64_t, uint32_t> first_;  // hash -> the latest row with it
};

struct FieldTables {
  std::vector<Key> starts;
  std::vector<uint32_t> row_of;
  std::vector<uint64_t> rows;
  uint32_t row_count = 0;
};

// Cuts [0, largest] at every range's ends and sweeps the intervals in order, each range's bit set
// from the interval where it starts to the one where it ends; neighbours with the same row merge.
FieldTables build_field(const std::vector<Range>& ranges, Key largest, uint32_t words, Budget& budget) {
  std::vector<Key> cuts{0};
  for (const Range& r : ranges) {
    cuts.push_back(r.lo);
    if (r.hi != largest) cuts.push_back(r.hi + 1);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  budget.take(cuts.size() * (sizeof(Key) + 4));
  auto index = [&](Key k) { return size_t(std::lower_bound(cuts.begin(), cuts.end(), k) - cuts.begin()); };
  std::vector<std::vector<uint32_t>> opens(cuts.size()), closes(cuts.size());
  for (const Range& r : ranges) {
    opens[index(r.lo)].push_back(r.bit);
    if (r.hi != largest) closes[index(r.hi + 1)].push_back(r.bit);
  }

  FieldTables field;
  RowTable table(words, budget);
  std::vector<uint64_t> current(words, 0);
  for (size_t i = 0; i < cuts.size(); ++i) {
    for (uint32_t bit : closes[i]) current[bit / 64] &= ~(uint64_t(1) << (bit % 64));
    for (uint32_t bit : opens[i]) current[bit / 64] |= uint64_t(1) << (bit % 64);
    const uint32_t row = table.add(current);
    if (!field.row_of.empty() && field.row_of.back() == row) continue;
    field.starts.push_back(cuts[i]);
    field.row_of.push_back(row);
  }
  field.rows = std::move(table.rows());
  field.row_count = table.count();
  return field;
}

// The protocols (p & mask) == value, as maximal runs of consecutive values.
void add_protocol_ranges(uint32_t bit, uint8_t value, uint8_t mask, std::vector<Range>& out) {
  for (uint32_t p = 0; p < 256;) {
    if ((p & mask) != value) {
      ++p;
      continue;
    }
    uint32_t end = p;
    while (end + 1 < 256 && ((end + 1) & mask) == value) ++end;
    out.push_back(Range{bit, p, end});
    p = end + 1;
  }
}

struct FamilyTables {
  FieldTables src, dst, sport, dport, proto;
  std::vector<uint32_t> rule_index;
  uint32_t words = 0;
};

FamilyTables build_family(const std::vector<AclMatch>& rules, uint8_t family, Budget& budget) {
  FamilyTables t;
  std::vector<Range> src, dst, sport, dport, proto;
  const uint32_t bits = family == 4 ? 32 : 128;
  for (uint32_t i = 0; i < rules.size(); ++i) {
    const AclMatch& m = rules[i];
    if (m.src.address.family != family) continue;
    const uint32_t bit = uint32_t(t.rule_index.size());
    t.rule_index.push_back(i);
    const Key s = address_key(m.src.address), d = address_key(m.dst.address);
    src.push_back(Range{bit, s, s | host_bits(bits, m.src.length)});
    dst.push_back(Range{bit, d, d | host_bits(bits, m.dst.length)});
    sport.push_back(Range{bit, m.sport_lo, m.sport_hi});
    dport.push_back(Range{bit, m.dport_lo, m.dport_hi});
    add_protocol_ranges(bit, m.proto, m.proto_mask, proto);
  }
  t.words = uint32_t((t.rule_index.size() + 63) / 64);
  t.src = build_field(src, largest_key(bits), t.words, budget);
  t.dst = build_field(dst, largest_key(bits), t.words, budget);
  t.sport = build_field(sport, 0xFFFF, t.words, budget);
  t.dport = build_field(dport, 0xFFFF, t.words, budget);
  t.proto = build_field(proto, 0xFF, t.words, budget);
  return t;
}

void check_rule(const AclMatch& m, size_t index) {
  auto fail = [&](const std::string& problem) {
    throw UserError(fmt::format("ACL rule {}: {}", index + 1, problem));
  };
  if (m.src.address.family != m.dst.address.family) fail("its source and destination are of different families");
  for (const IpPrefix* p : {&m.src, &m.dst}) {
    if (p->length > p->address.bits()) fail(fmt::format("prefix length {} is too long", p->length));
    if (!(network_of(p->address, p->length).address == p->address))
      fail(fmt::format("{} has bits set beyond its length", p->str()));
  }
  if (m.sport_lo > m.sport_hi || m.dport_lo > m.dport_hi) fail("a port range ends below its start");
  if (m.proto & ~m.proto_mask) fail("the protocol has bits set outside its mask");
}

// Lays vectors out one after another in a uint64_t arena (so every array is 8-byte aligned).
class ArenaWriter {
 public:
  explicit ArenaWriter(std::vector<uint64_t>& arena) : arena_(arena) {}
  template <typename T>
  size_t place(const std::vector<T>& items) {
    static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= 8);
    const size_t offset = arena_.size() * 8, bytes = items.size() * sizeof(T);
    arena_.resize(arena_.size() + (bytes + 7) / 8);
    if (bytes) std::memcpy(reinterpret_cast<char*>(arena_.data()) + offset, items.data(), bytes);
    return offset;
  }

 private:
  std::vector<uint64_t>& arena_;
};

template <typename Stored>
AclClassifier::FieldLayout place_field(const FieldTables& f, uint32_t words, ArenaWriter& out) {
  std::vector<Stored> starts;
  for (Key k : f.starts) {
    if constexpr (std::is_same_v<Stored, AclU128>)
      starts.push_back(AclU128{uint64_t(k >> 64), uint64_t(k)});
    else
      starts.push_back(Stored(k));
  }
  const uint32_t summary_words = (words + 63) / 64;
  std::vector<uint64_t> summaries(size_t(f.row_count) * summary_words, 0);
  for (size_t r = 0; r < f.row_count; ++r)
    for (uint32_t w = 0; w < words; ++w)
      if (f.rows[r * words + w]) summaries[r * summary_words + w / 64] |= uint64_t(1) << (w % 64);
  AclClassifier::FieldLayout layout;
  layout.starts = out.place(starts);
  layout.row_of = out.place(f.row_of);
  layout.rows = out.place(f.rows);
  layout.summaries = out.place(summaries);
  layout.intervals = uint32_t(f.starts.size());
  return layout;
}

template <typename Addr>
AclClassifier::FamilyLayout place_family(const FamilyTables& t, ArenaWriter& out) {
  AclClassifier::FamilyLayout layout;
  layout.src = place_field<Addr>(t.src, t.words, out);
  layout.dst = place_field<Addr>(t.dst, t.words, out);
  layout.sport = place_field<uint32_t>(t.sport, t.words, out);
  layout.dport = place_field<uint32_t>(t.dport, t.words, out);
  layout.proto = place_field<uint32_t>(t.proto, t.words, out);
  layout.rule_index = out.place(t.rule_index);
  layout.words = t.words;
  layout.summary_words = (t.words + 63) / 64;
  return layout;
}

template <typename Key>
AclFieldView<Key> field_view(const char* base, const AclClassifier::FieldLayout& f) {
  return AclFieldView<Key>{reinterpret_cast<const Key*>(base + f.starts),
                           reinterpret_cast<const uint32_t*>(base + f.row_of),
                           reinterpret_cast<const uint64_t*>(base + f.rows),
                           reinterpret_cast<const uint64_t*>(base + f.summaries), f.intervals};
}

template <typename Addr>
AclFamilyView<Addr> family_view(const char* base, const AclClassifier::FamilyLayout& f) {
  return AclFamilyView<Addr>{field_view<Addr>(base, f.src),        field_view<Addr>(base, f.dst),
                             field_view<uint32_t>(base, f.sport),  field_view<uint32_t>(base, f.dport),
                             field_view<uint32_t>(base, f.proto),  reinterpret_cast<const uint32_t*>(base + f.rule_index),
                             f.words,                              f.summary_words};
}

bool ports_and_protocol_match(const AclMatch& m, uint16_t sport, uint16_t dport, uint8_t proto) {
  return m.sport_lo <= sport && sport <= m.sport_hi && m.dport_lo <= dport && dport <= m.dport_hi &&
         (proto & m.proto_mask) == m.proto;
}

IpAddress ipv6_address(AclU128 a) {
  IpAddress address;
  address.family = 6;
  for (int i = 0; i < 8; ++i) {
    address.bytes[i] = uint8_t(a.hi >> (56 - 8 * i));
    address.bytes[8 + i] = uint8_t(a.lo >> (56 - 8 * i));
  }
  return address;
}

}  // namespace

bool acl_matches(const AclMatch& m, const AclKey4& key) {
  return m.src.contains(IpAddress::from_ipv4(key.src)) && m.dst.contains(IpAddress::from_ipv4(key.dst)) &&
         ports_and_protocol_match(m, key.sport, key.dport, key.proto);
}

bool acl_matches(const AclMatch& m, const AclKey6& key) {
  return m.src.contains(ipv6_address(key.src)) && m.dst.contains(ipv6_address(key.dst)) &&
         ports_and_protocol_match(m, key.sport, key.dport, key.proto);
}

AclClassifier::AclClassifier(const std::vector<AclMatch>& rules, size_t max_bytes)
    : rule_count_(uint32_t(rules.size())) {
  for (size_t i = 0; i < rules.size(); ++i) check_rule(rules[i], i);
  Budget budget{max_bytes, max_bytes, rules.size()};
  const FamilyTables v4 = build_family(rules, 4, budget);
  const FamilyTables v6 = build_family(rules, 6, budget);
  ArenaWriter out(arena_);
  ipv4_ = place_family<uint32_t>(v4, out);
  ipv6_ = place_family<AclU128>(v6, out);
  for (const FamilyTables* t : {&v4, &v6})
    row_count_ += t->src.row_count + t->dst.row_count + t->sport.row_count + t->dport.row_count + t->proto.row_count;
}

AclView AclClassifier::view_at(const void* copy) const {
  const char* base = static_cast<const char*>(copy);
  return AclView{family_view<uint32_t>(base, ipv4_), family_view<AclU128>(base, ipv6_)};
}

}  // namespace gnf::nf
