// Multi-level stride table builder: lpm4.cpp's algorithm (DPDK's rte_lpm add/delete with tbl8
// recycling) applied level by level, the layout of DPDK's lib/fib/trie.c. Written for one thread of
// writers and any number of readers. Invariants the code keeps:
//   - an invalid entry is 0, and its depth byte 0;
//   - every entry that is not a group pointer holds the longest rule covering its addresses, with
//     that rule's depth in its depth byte;
//   - the group at level k under a /(24 + 8(k-1)) prefix exists exactly while some rule longer than
//     /(24 + 8(k-1)) lies in that prefix.
// A route of depth d <= 24 spans 2^(24 - d) tbl24 entries; one of depth d > 24 spans
// 2^(24 + 8L - d) entries of its group at level L = ceil((d - 24) / 8). Where a spanned entry points
// to a group, the route spans every entry of that group, and so on down.
#include "nf/l3fwd/lpm6.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <cassert>
#include <cstdlib>
#include <new>
#include <string>
#include <type_traits>

#include "util/error.h"

namespace gnf::nf {

static_assert(sizeof(Lpm6View) == 24 && std::is_trivially_copyable_v<Lpm6View>);
static_assert((kLpm6NextHopMask & (kLpm6Valid | kLpm6Group)) == 0);
static_assert(kLpm6MaxDepth == 24 + 8 * 13, "tbl24, then 13 levels of 8-bit groups");

namespace {

using Prefix = std::array<uint64_t, 2>;

Prefix to_prefix(const uint8_t bytes[16]) {
  Prefix p{0, 0};
  for (int i = 0; i < 16; ++i) p[i / 8] = p[i / 8] << 8 | bytes[i];
  return p;
}

uint64_t half_mask(int bits) { return bits <= 0 ? 0 : bits >= 64 ? ~uint64_t(0) : ~uint64_t(0) << (64 - bits); }
Prefix masked(const Prefix& p, uint8_t depth) { return {p[0] & half_mask(depth), p[1] & half_mask(depth - 64)}; }

uint8_t byte_at(const Prefix& p, int i) { return uint8_t(p[i / 8] >> (56 - 8 * (i % 8))); }
uint32_t tbl24_index(const Prefix& p) { return uint32_t(p[0] >> 40); }
// The level a route's entries live in: 0 for tbl24, else the group level.
int level_of(uint8_t depth) { return depth <= 24 ? 0 : (depth - 24 + 7) / 8; }

uint32_t make_entry(uint32_t next_hop) { return kLpm6Valid | next_hop; }
uint32_t group_entry(uint32_t index) { return kLpm6Valid | kLpm6Group | index; }
bool valid(uint32_t entry) { return entry & kLpm6Valid; }
bool points_to_group(uint32_t entry) { return entry & kLpm6Group; }

std::string route_name(const Prefix& p, int depth) {
  uint8_t bytes[16];
  for (int i = 0; i < 16; ++i) bytes[i] = byte_at(p, i);
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, bytes, text, sizeof text);
  return fmt::format("{}/{}", text, depth);
}

void check_depth(const uint8_t prefix[16], uint8_t depth) {
  if (depth > kLpm6MaxDepth) {
    throw UserError(fmt::format("lpm6: route {}: depth {} is above 128", route_name(to_prefix(prefix), depth), depth));
  }
}

template <typename T>
T* zeroed(size_t count) {
  // calloc: large blocks come straight from mmap, so pages nobody writes are never touched.
  auto* p = static_cast<T*>(std::calloc(count, sizeof(T)));
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace

void Lpm6Table::FreeDeleter::operator()(void* p) const { std::free(p); }

Lpm6Table::Lpm6Table(uint32_t max_tbl8_groups) : max_tbl8_groups_(max_tbl8_groups) {
  if (max_tbl8_groups == 0 || max_tbl8_groups > kLpm6MaxTbl8Groups) {
    throw UserError(fmt::format("lpm6: max_tbl8_groups {} is outside 1..{}", max_tbl8_groups, kLpm6MaxTbl8Groups));
  }
  tbl24_.reset(zeroed<uint32_t>(kLpm6Tbl24Entries));
  tbl8_.reset(zeroed<uint32_t>(size_t(max_tbl8_groups) * kLpm6GroupEntries));
  tbl24_depth_.reset(zeroed<uint8_t>(kLpm6Tbl24Entries));
  tbl8_depth_.reset(zeroed<uint8_t>(size_t(max_tbl8_groups) * kLpm6GroupEntries));
}

void Lpm6Table::record_stores(sync::TableLog* log, uint32_t tbl24_region, uint32_t tbl8_region) {
  writer_.attach(log, tbl24_.get(), kLpm6Tbl24Entries, tbl24_region, tbl8_.get(), tbl8_region);
}

Lpm6View Lpm6Table::view() const { return Lpm6View{tbl24_.get(), tbl8_.get(), max_tbl8_groups_}; }

bool Lpm6Table::find(const uint8_t prefix[16], uint8_t depth, uint32_t& next_hop) const {
  check_depth(prefix, depth);
  auto it = rules_[depth].find(masked(to_prefix(prefix), depth));
  if (it == rules_[depth].end()) return false;
  next_hop = it->second;
  return true;
}

void Lpm6Table::add(const uint8_t prefix_bytes[16], uint8_t depth, uint32_t next_hop) {
  check_depth(prefix_bytes, depth);
  const Prefix prefix = masked(to_prefix(prefix_bytes), depth);
  if (next_hop > kLpm6MaxNextHop) {
    throw UserError(fmt::format("lpm6: route {}: next hop {} is above the largest, {}", route_name(prefix, depth),
                                next_hop, kLpm6MaxNextHop));
  }
  // Checked before anything is written: an add either takes all the groups it needs or none.
  const uint32_t missing = groups_missing(prefix, depth);
  if (missing > max_tbl8_groups_ - tbl8_groups_used()) recycler_.reclaim(true);
  if (missing > max_tbl8_groups_ - tbl8_groups_used()) {
    throw UserError(
        fmt::format("lpm6: route {}: needs {} more tbl8 groups, but {} of all {} are in use (one per 8 bits beyond /24 "
                    "of each prefix holding longer routes); make the table with a larger max_tbl8_groups",
                    route_name(prefix, depth), missing, tbl8_groups_used(), max_tbl8_groups_));
  }
  Hook hook;
  const uint32_t entry = make_entry(next_hop);
  each_route_entry(span(prefix, depth, &hook), [&](uint32_t& e, uint8_t& d) {
    if (!valid(e) || d <= depth) {
      writer_.store(&e, entry);
      d = depth;
    }
  });
  if (hook.entry) writer_.store_release(hook.entry, hook.value);
  if (rules_[depth].insert_or_assign(prefix, next_hop).second) ++rule_count_;
}

// How many groups the path to a route's level lacks: those below the first entry on it that does
// not point to a group.
uint32_t Lpm6Table::groups_missing(const Prefix& prefix, uint8_t depth) const {
  const int level = level_of(depth);
  uint32_t entry = tbl24_[tbl24_index(prefix)];
  int present = 0;
  while (present < level && points_to_group(entry)) {
    ++present;
    if (present < level) entry = group(entry & kLpm6NextHopMask)[byte_at(prefix, 2 + present)];
  }
  return uint32_t(level - present);
}

// A group (a freed one if there is one, else the next never used), every entry `entry`: what the
// entry above it held, 0 or the covering route. Nothing points to it yet.
uint32_t Lpm6Table::new_group(uint32_t entry, uint8_t depth) {
  uint32_t index;
  if (!free_groups_.empty()) {
    index = free_groups_.back();
    free_groups_.pop_back();
  } else {
    index = groups_handed_out_++;
  }
  uint32_t* g = group(index);
  uint8_t* gd = group_depths(index);
  for (uint32_t j = 0; j < kLpm6GroupEntries; ++j) {
    writer_.store(&g[j], entry);
    gd[j] = depth;
  }
  return index;
}

// Walks from tbl24 to the route's level. With a hook (add), makes the groups the path lacks: each
// filled from the entry above it and linked from the group above it; the first new group's link
// goes into the hook instead, for the caller to store once the route is written. Without one
// (remove), the path must exist.
Lpm6Table::Span Lpm6Table::span(const Prefix& prefix, uint8_t depth, Hook* hook) {
  Span s{};
  s.level = level_of(depth);
  uint32_t* e = &tbl24_[tbl24_index(prefix)];
  uint8_t* ed = &tbl24_depth_[tbl24_index(prefix)];
  if (s.level == 0) {
    s.first = e;
    s.first_depth = ed;
    s.count = uint32_t(1) << (24 - depth);
    return s;
  }
  for (int k = 1;; ++k) {
    s.path[k - 1] = e;
    s.path_depth[k - 1] = ed;
    uint32_t index;
    if (points_to_group(*e)) {
      index = *e & kLpm6NextHopMask;
    } else {
      assert(hook);
      index = new_group(*e, *ed);
      if (hook->entry) {
        writer_.store(e, group_entry(index));
      } else {
        *hook = Hook{e, group_entry(index)};
      }
    }
    const uint8_t b = byte_at(prefix, 2 + k);
    e = group(index) + b;
    ed = group_depths(index) + b;
    if (k == s.level) {
      s.first = e;
      s.first_depth = ed;
      s.count = uint32_t(1) << (24 + 8 * k - depth);
      return s;
    }
  }
}

// Visits every entry holding a route (or no route) under `entry`: the entry itself, or, where it
// points to a group, every such entry of the group, recursively.
template <typename Visit>
void Lpm6Table::each_route_entry(uint32_t& entry, uint8_t& depth, Visit& visit) {
  if (!points_to_group(entry)) {
    visit(entry, depth);
    return;
  }
  const uint32_t index = entry & kLpm6NextHopMask;
  uint32_t* g = group(index);
  uint8_t* gd = group_depths(index);
  for (uint32_t j = 0; j < kLpm6GroupEntries; ++j) each_route_entry(g[j], gd[j], visit);
}

template <typename Visit>
void Lpm6Table::each_route_entry(const Span& s, Visit visit) {
  for (uint32_t j = 0; j < s.count; ++j) each_route_entry(s.first[j], s.first_depth[j], visit);
}

bool Lpm6Table::remove(const uint8_t prefix_bytes[16], uint8_t depth) {
  check_depth(prefix_bytes, depth);
  const Prefix prefix = masked(to_prefix(prefix_bytes), depth);
  if (rules_[depth].erase(prefix) == 0) return false;
  --rule_count_;
  uint8_t replacement_depth = 0;
  const uint32_t replacement = covering_entry(prefix, depth, replacement_depth);
  // The entries the removed route held (depth <= its depth: longer routes inside it keep theirs).
  const Span s = span(prefix, depth, nullptr);
  each_route_entry(s, [&](uint32_t& e, uint8_t& d) {
    if (valid(e) && d <= depth) {
      writer_.store(&e, replacement);
      d = replacement_depth;
    }
  });
  free_unneeded_groups(s);
  return true;
}

uint32_t Lpm6Table::covering_entry(const Prefix& prefix, uint8_t depth, uint8_t& covering_depth) const {
  for (int d = int(depth) - 1; d >= 0; --d) {
    auto it = rules_[d].find(masked(prefix, uint8_t(d)));
    if (it != rules_[d].end()) {
      covering_depth = uint8_t(d);
      return make_entry(it->second);
    }
  }
  covering_depth = 0;
  return 0;
}

// From the removed route's level up: a group none of whose entries points further or holds a route
// longer than the prefix it hangs under is that prefix's one covering route (or none) throughout:
// the entry above takes that word and the group is freed (rte_lpm's tbl8_recycle_check, per level).
// The first group still needed ends the walk: the groups above it are needed too.
void Lpm6Table::free_unneeded_groups(const Span& s) {
  for (int k = s.level; k >= 1; --k) {
    const uint32_t index = *s.path[k - 1] & kLpm6NextHopMask;
    const uint32_t* g = group(index);
    const uint8_t* gd = group_depths(index);
    const int above = 24 + 8 * (k - 1);
    for (uint32_t j = 0; j < kLpm6GroupEntries; ++j) {
      if (points_to_group(g[j]) || gd[j] > above) return;
    }
    for (uint32_t j = 1; j < kLpm6GroupEntries; ++j) assert(g[j] == g[0] && gd[j] == gd[0]);
    writer_.store_release(s.path[k - 1], g[0]);
    *s.path_depth[k - 1] = gd[0];
    recycler_.release(index);
  }
}

}  // namespace gnf::nf
