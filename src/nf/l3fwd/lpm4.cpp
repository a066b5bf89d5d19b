// DIR-24-8 builder: the algorithm of DPDK's lib/lpm/rte_lpm.c (add_depth_small/big,
// delete_depth_small/big, tbl8 recycling), written for one thread of writers and any number of
// readers. Invariants the code keeps:
//   - an invalid entry is 0;
//   - every entry holds the longest rule covering its addresses, with that rule's depth;
//   - a /24 has a tbl8 group exactly while some rule longer than /24 lies in it.
#include "nf/l3fwd/lpm4.h"

#include <cassert>
#include <cstdlib>
#include <new>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nf {

static_assert(sizeof(Lpm4View) == 24 && std::is_trivially_copyable_v<Lpm4View>);
static_assert((32u << kLpm4DepthShift) >> kLpm4DepthShift == 32 && (kLpm4NextHopMask & (kLpm4Valid | kLpm4Group)) == 0);

namespace {

uint32_t prefix_mask(uint8_t depth) { return depth == 0 ? 0 : ~uint32_t(0) << (32 - depth); }
uint32_t make_entry(uint8_t depth, uint32_t next_hop) {
  return uint32_t(depth) << kLpm4DepthShift | kLpm4Valid | next_hop;
}
bool valid(uint32_t entry) { return entry & kLpm4Valid; }
uint32_t depth_of(uint32_t entry) { return entry >> kLpm4DepthShift; }

std::string route_name(uint32_t prefix, uint8_t depth) {
  return fmt::format("{}.{}.{}.{}/{}", prefix >> 24, prefix >> 16 & 0xff, prefix >> 8 & 0xff, prefix & 0xff,
                     depth);
}

void check_depth(uint32_t prefix, uint8_t depth) {
  if (depth > 32) {
    throw UserError(fmt::format("lpm4: route {}: depth {} is above 32", route_name(prefix, 0), depth));
  }
}

uint32_t* zeroed(size_t entries) {
  // calloc: large blocks come straight from mmap, so pages nobody writes are never touched.
  auto* p = static_cast<uint32_t*>(std::calloc(entries, sizeof(uint32_t)));
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace

void Lpm4Table::FreeDeleter::operator()(uint32_t* p) const { std::free(p); }

Lpm4Table::Lpm4Table(uint32_t max_tbl8_groups) : max_tbl8_groups_(max_tbl8_groups) {
  if (max_tbl8_groups == 0 || max_tbl8_groups > kLpm4NextHopMask + 1) {
    throw UserError(fmt::format("lpm4: max_tbl8_groups {} is outside 1..{}", max_tbl8_groups,
                                kLpm4NextHopMask + 1));
  }
  tbl24_.reset(zeroed(kLpm4Tbl24Entries));
  tbl8_.reset(zeroed(size_t(max_tbl8_groups) * kLpm4GroupEntries));
  free_groups_.reserve(max_tbl8_groups);
  for (uint32_t g = max_tbl8_groups; g-- > 0;) free_groups_.push_back(g);
}

void Lpm4Table::record_stores(sync::TableLog* log, uint32_t tbl24_region, uint32_t tbl8_region) {
  writer_.attach(log, tbl24_.get(), kLpm4Tbl24Entries, tbl24_region, tbl8_.get(), tbl8_region);
}

Lpm4View Lpm4Table::view() const { return Lpm4View{tbl24_.get(), tbl8_.get(), max_tbl8_groups_}; }

bool Lpm4Table::find(uint32_t prefix, uint8_t depth, uint32_t& next_hop) const {
  check_depth(prefix, depth);
  auto it = rules_[depth].find(prefix & prefix_mask(depth));
  if (it == rules_[depth].end()) return false;
  next_hop = it->second;
  return true;
}

void Lpm4Table::add(uint32_t prefix, uint8_t depth, uint32_t next_hop) {
  check_depth(prefix, depth);
  prefix &= prefix_mask(depth);
  if (next_hop > kLpm4MaxNextHop) {
    throw UserError(fmt::format("lpm4: route {}: next hop {} is above the largest, {}", route_name(prefix, depth),
                                next_hop, kLpm4MaxNextHop));
  }
  // Tables first: add_long throws before writing anything when no group is free.
  uint32_t entry = make_entry(depth, next_hop);
  if (depth <= 24) add_short(prefix, depth, entry);
  else add_long(prefix, depth, entry);
  if (rules_[depth].insert_or_assign(prefix, next_hop).second) ++rule_count_;
}

// The entries a route of depth <= 24 spans: its 2^(24 - depth) tbl24 entries, and for those that
// point to a group, every entry of the group instead.
template <typename Visit>
void Lpm4Table::each_short_entry(uint32_t prefix, uint8_t depth, Visit visit) {
  const uint32_t first = prefix >> 8;
  const uint64_t count = uint64_t(1) << (24 - depth);
  for (uint64_t k = 0; k < count; ++k) {
    uint32_t& e = tbl24_[first + k];
    if (e & kLpm4Group) {
      uint32_t* g = group(e & kLpm4NextHopMask);
      for (uint32_t j = 0; j < kLpm4GroupEntries; ++j) visit(g[j]);
    } else {
      visit(e);
    }
  }
}

// A route of depth <= 24 takes every entry it spans that no longer rule holds.
void Lpm4Table::add_short(uint32_t prefix, uint8_t depth, uint32_t entry) {
  each_short_entry(prefix, depth, [&](uint32_t& e) {
    if (!valid(e) || depth_of(e) <= depth) writer_.store(&e, entry);
  });
}

// A route longer than /24 lives in its /24's group, made on first use from what the tbl24 entry held.
void Lpm4Table::add_long(uint32_t prefix, uint8_t depth, uint32_t entry) {
  uint32_t& e24 = tbl24_[prefix >> 8];
  bool fresh = !(e24 & kLpm4Group);
  uint32_t index;
  if (fresh) {
    if (free_groups_.empty()) recycler_.reclaim(true);
    if (free_groups_.empty()) {
      throw UserError(fmt::format(
          "lpm4: route {}: all {} tbl8 groups are in use (one per /24 holding routes longer than /24); "
          "make the table with a larger max_tbl8_groups",
          route_name(prefix, depth), max_tbl8_groups_));
    }
    index = free_groups_.back();
    free_groups_.pop_back();
    uint32_t* g = group(index);
    for (uint32_t j = 0; j < kLpm4GroupEntries; ++j) writer_.store(&g[j], e24);  // 0 or the covering route
  } else {
    index = e24 & kLpm4NextHopMask;
  }
  uint32_t* g = group(index);
  uint32_t first = prefix & 0xff, count = 1u << (32 - depth);
  for (uint32_t j = first; j < first + count; ++j) {
    if (!valid(g[j]) || depth_of(g[j]) <= depth) writer_.store(&g[j], entry);
  }
  if (fresh) writer_.store_release(&e24, kLpm4Valid | kLpm4Group | index);
}

bool Lpm4Table::remove(uint32_t prefix, uint8_t depth) {
  check_depth(prefix, depth);
  prefix &= prefix_mask(depth);
  if (rules_[depth].erase(prefix) == 0) return false;
  --rule_count_;
  uint32_t replacement = covering_entry(prefix, depth);
  if (depth <= 24) remove_short(prefix, depth, replacement);
  else remove_long(prefix, depth, replacement);
  return true;
}

uint32_t Lpm4Table::covering_entry(uint32_t prefix, uint8_t depth) const {
  for (int d = int(depth) - 1; d >= 0; --d) {
    auto it = rules_[d].find(prefix & prefix_mask(uint8_t(d)));
    if (it != rules_[d].end()) return make_entry(uint8_t(d), it->second);
  }
  return 0;
}

// Entries the removed route held (depth <= its depth: longer routes inside it keep theirs) fall
// back to the covering route. Groups stay: the routes longer than /24 that made them are still there.
void Lpm4Table::remove_short(uint32_t prefix, uint8_t depth, uint32_t replacement) {
  each_short_entry(prefix, depth, [&](uint32_t& e) {
    if (valid(e) && depth_of(e) <= depth) writer_.store(&e, replacement);
  });
}

// As remove_short within the group; then, if no entry of the group is longer than /24 any more, the
// whole /24 is one route (or none) again: tbl24 takes that entry and the group is freed (rte_lpm's
// tbl8_recycle_check).
void Lpm4Table::remove_long(uint32_t prefix, uint8_t depth, uint32_t replacement) {
  uint32_t& e24 = tbl24_[prefix >> 8];
  assert(e24 & kLpm4Group);
  uint32_t index = e24 & kLpm4NextHopMask;
  uint32_t* g = group(index);
  uint32_t first = prefix & 0xff, count = 1u << (32 - depth);
  for (uint32_t j = first; j < first + count; ++j) {
    if (valid(g[j]) && depth_of(g[j]) <= depth) writer_.store(&g[j], replacement);
  }
  for (uint32_t j = 0; j < kLpm4GroupEntries; ++j) {
    if (valid(g[j]) && depth_of(g[j]) > 24) return;
  }
  // Every entry is now the one covering route of depth <= 24, or 0: the same word throughout.
  for (uint32_t j = 1; j < kLpm4GroupEntries; ++j) assert(g[j] == g[0]);
  writer_.store_release(&e24, g[0]);
  recycler_.release(index);
}

}  // namespace gnf::nf
