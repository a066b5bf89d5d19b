// IPv6 longest-prefix match, laid out as DPDK's rte_fib6 TRIE (lib/fib/trie.c): a 2^24-entry
// first-level table (tbl24) indexed by an address's top 24 bits, then 256-entry groups (tbl8), one
// per 8-bit stride, chained for bits 24..127: a route of depth d > 24 lives in the group at level
// ceil((d - 24) / 8), reached through one group per byte from address byte 3 on. A lookup is a chain
// of 32-bit loads: one in tbl24, then one per group on the address's path, that is per 8 bits beyond
// /24 down to the longest route in its neighbourhood (14 loads at most), with no branch but "does
// this entry point to a group".
//
// Host and device, as lpm4.h: Lpm6View and lpm6_lookup() are plain data and an inline function for
// CPU code and CUDA kernels alike; Lpm6Table, the builder, is host-only.
//
// Entry format: the same 32-bit word as lpm4 (24-bit next hop or group index, valid, group), so a
// lookup touches 4 bytes per level and the GPU copy of tbl24 is 64 MiB, not 128. The route depth
// that lpm4 keeps in the word's top 6 bits does not fit here (0..128 needs 8 bits); the builder
// keeps it in a byte array beside the tables, which readers never see.
//
// Concurrent readers: the argument of lpm4.h, for every level. Every entry is one aligned 32-bit word
// written with a single store, so a racing lookup sees the old or the new entry, never a mix. When an
// add needs new groups (several at once where its path has none yet), all of them are written
// in full, including the links between them, before the one entry that makes the first reachable is
// stored with release order, and a lookup fences (acquire) before each group load, on the CPU and on
// the GPU (where the stores come from the mirror's replay kernel, sync/device_mirror.cu). As for lpm4,
// a freed group is reused only after the readers' grace period (set_readers, sync/readers.h).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sync/readers.h"
#include "sync/table_log.h"
#include "nf/l3fwd/shared_words.h"
#include "util/hd.h"

namespace gnf::nf {

// An entry, tbl24 or tbl8:
//   bits  0-23  next hop; with kLpm6Group set, the index of the tbl8 group for the next 8 bits
//   bit   24    valid: a route covers this entry, or it points to a group
//   bit   25    group: this entry points to a tbl8 group (never set at the last level, bits 120-127)
//   bits 26-31  zero
inline constexpr uint32_t kLpm6NextHopMask = 0x00ffffffu;
inline constexpr uint32_t kLpm6Valid = 1u << 24;
inline constexpr uint32_t kLpm6Group = 1u << 25;
inline constexpr uint32_t kLpm6MaxNextHop = kLpm6NextHopMask;  // 2^24 - 1, as lpm4
inline constexpr uint32_t kLpm6MaxTbl8Groups = kLpm6NextHopMask + 1;
inline constexpr uint32_t kLpm6Tbl24Entries = 1u << 24;
inline constexpr uint32_t kLpm6GroupEntries = 256;
inline constexpr int kLpm6MaxDepth = 128;

// What a lookup reads: tbl24 (2^24 entries) and tbl8 (tbl8_groups * 256 entries), in whatever memory
// the reader can reach. Trivially copyable; pass it to kernels by value.
struct Lpm6View {
  const uint32_t* tbl24;
  const uint32_t* tbl8;
  uint32_t tbl8_groups;
};

// Longest-prefix match of `addr`, the 16 address bytes in network order as they stand in the IPv6
// header. Returns true and sets next_hop to the matching route's next hop, or returns false
// (next_hop untouched) when no route covers addr. The loop ends by byte 15: groups of the last
// level never point further.
GNF_INLINE bool lpm6_lookup(const Lpm6View& view, const uint8_t addr[16], uint32_t& next_hop) {
  uint32_t entry = load_shared_word(view.tbl24 + (uint32_t(addr[0]) << 16 | uint32_t(addr[1]) << 8 | addr[2]));
  for (int byte = 3; entry & kLpm6Group; ++byte) {
    table_acquire_fence();
    entry = load_shared_word(view.tbl8 + size_t(entry & kLpm6NextHopMask) * kLpm6GroupEntries + addr[byte]);
  }
  if (!(entry & kLpm6Valid)) return false;
  next_hop = entry & kLpm6NextHopMask;
  return true;
}

// The host-side owner and builder: keeps the rules (prefix/depth -> next hop) and keeps the tables
// equal to "the longest rule covering each address", as rte_fib6 does, across adds and removes.
// Memory: tbl24 is 64 MiB and tbl8 max_tbl8_groups KiB, plus the builder's depth bytes (16 MiB and
// 256 B per group), all reserved zeroed (untouched pages cost nothing until written) when the table
// is made and never moved, so a view stays valid for the table's lifetime. Groups are handed out
// from the low indexes up, so only the pages of groups ever used are touched. Not thread-safe for
// writers: one thread adds and removes.
class Lpm6Table {
 public:
  // max_tbl8_groups: how many groups may be in use at once (1 KiB each), 1..2^24. A route of depth
  // d > 24 needs one group per 8 bits beyond /24 on its path, shared with every route under the same
  // prefixes: a /48 under a /32 that has none yet takes 2, a /128 alone in its /24 takes 13.
  // Throws gnf::UserError when max_tbl8_groups is outside 1..2^24.
  explicit Lpm6Table(uint32_t max_tbl8_groups = 1u << 16);
  Lpm6Table(const Lpm6Table&) = delete;  // views and the recycler point into it
  Lpm6Table& operator=(const Lpm6Table&) = delete;

  // Adds the route prefix/depth -> next_hop, or replaces the next hop of an existing one. prefix is
  // 16 bytes in network order; bits beyond depth are ignored (2001:db8::1/32 is 2001:db8::/32);
  // depth 0 is the default route. Throws gnf::UserError, leaving the table unchanged, when
  // depth > 128, next_hop > kLpm6MaxNextHop, or the route needs more new groups than are free (the
  // message names the limit).
  void add(const uint8_t prefix[16], uint8_t depth, uint32_t next_hop);

  // Removes the route prefix/depth (prefix masked as in add); the addresses it covered fall back to
  // the next longest covering route, or to no route, and groups no longer needed are freed. Returns
  // false when there is no such route. Throws gnf::UserError when depth > 128.
  bool remove(const uint8_t prefix[16], uint8_t depth);

  // The route prefix/depth's next hop, if there is such a route (prefix masked as in add).
  bool find(const uint8_t prefix[16], uint8_t depth, uint32_t& next_hop) const;

  // Host-memory view for lpm6_lookup().
  Lpm6View view() const;

  // Stores are also recorded for a copy elsewhere, as Lpm4Table::record_stores does.
  void record_stores(sync::TableLog* log, uint32_t tbl24_region, uint32_t tbl8_region);
  // Freed groups wait for the readers' grace period, as Lpm4Table::set_readers says.
  void set_readers(sync::ReaderRegistry* readers) { recycler_.set_readers(readers); }
  void published() { recycler_.published(); }
  const uint32_t* tbl24_words() const { return tbl24_.get(); }
  const uint32_t* tbl8_words() const { return tbl8_.get(); }
  size_t tbl8_word_count() const { return size_t(max_tbl8_groups_) * kLpm6GroupEntries; }

  uint32_t rule_count() const { return rule_count_; }
  uint32_t tbl8_groups_used() const { return groups_handed_out_ - uint32_t(free_groups_.size()); }
  uint32_t max_tbl8_groups() const { return max_tbl8_groups_; }

  // Calls visit(prefix, depth, next_hop) for every rule, in no particular order; prefix is 16 bytes
  // in network order.
  template <typename Visit>
  void each_rule(Visit visit) const {
    uint8_t bytes[16];
    for (uint32_t depth = 0; depth < rules_.size(); ++depth)
      for (const auto& [prefix, next_hop] : rules_[depth]) {
        for (int i = 0; i < 16; ++i) bytes[i] = uint8_t(prefix[i / 8] >> (56 - 8 * (i % 8)));
        visit(static_cast<const uint8_t*>(bytes), uint8_t(depth), next_hop);
      }
  }

 private:
  // A prefix as its two 64-bit halves, most significant first: masking and hashing without byte loops.
  using Prefix = std::array<uint64_t, 2>;
  struct PrefixHash {
    size_t operator()(const Prefix& p) const { return std::hash<uint64_t>()(p[0] * 0x9e3779b97f4a7c15ull ^ p[1]); }
  };
  struct FreeDeleter {
    void operator()(void* p) const;
  };
  // Where a route's entries are: `count` consecutive entries from `first` (their depths from
  // `first_depth`), in tbl24 (level 0) or in the group at `level`; path[k] (its depth path_depth[k])
  // is the entry that points to the group at level k + 1.
  struct Span {
    uint32_t* first;
    uint8_t* first_depth;
    uint32_t count;
    int level;
    std::array<uint32_t*, 13> path;
    std::array<uint8_t*, 13> path_depth;
  };
  // The entry an add stores last, with release order, to make its new groups reachable.
  struct Hook {
    uint32_t* entry = nullptr;
    uint32_t value = 0;
  };

  Span span(const Prefix& prefix, uint8_t depth, Hook* hook);
  uint32_t groups_missing(const Prefix& prefix, uint8_t depth) const;
  uint32_t new_group(uint32_t entry, uint8_t depth);
  template <typename Visit>
  void each_route_entry(uint32_t& entry, uint8_t& depth, Visit& visit);
  template <typename Visit>
  void each_route_entry(const Span& s, Visit visit);
  void free_unneeded_groups(const Span& s);
  // The entry of the longest rule shorter than depth that covers prefix, or 0 (invalid) if none.
  uint32_t covering_entry(const Prefix& prefix, uint8_t depth, uint8_t& covering_depth) const;
  uint32_t* group(uint32_t index) const { return tbl8_.get() + size_t(index) * kLpm6GroupEntries; }
  uint8_t* group_depths(uint32_t index) const { return tbl8_depth_.get() + size_t(index) * kLpm6GroupEntries; }

  uint32_t max_tbl8_groups_;
  std::unique_ptr<uint32_t[], FreeDeleter> tbl24_, tbl8_;
  // The depth of the route each entry holds (0 for no route; meaningless for group entries).
  std::unique_ptr<uint8_t[], FreeDeleter> tbl24_depth_, tbl8_depth_;
  uint32_t groups_handed_out_ = 0;     // groups [0, groups_handed_out_) have been used
  std::vector<uint32_t> free_groups_;  // of those, the ones free again
  sync::Recycler recycler_{free_groups_};  // freed groups wait here for the readers' grace period
  std::array<std::unordered_map<Prefix, uint32_t, PrefixHash>, kLpm6MaxDepth + 1> rules_;  // per depth
  uint32_t rule_count_ = 0;
  sync::TableWriter writer_;  // every entry store goes through it (one store each, recorded)
};

}  // namespace gnf::nf
