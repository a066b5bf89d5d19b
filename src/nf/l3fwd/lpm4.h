// IPv4 longest-prefix match: DIR-24-8 (Gupta, Lin, McKeown, "Routing lookups in hardware at memory
// access speeds", INFOCOM 1998), laid out as DPDK's rte_lpm: a 2^24-entry first-level table (tbl24)
// indexed by an address's top 24 bits, and 256-entry second-level groups (tbl8) for the /24s that
// hold routes longer than /24. A lookup is one or two 32-bit loads.
//
// Host and device: Lpm4View and lpm4_lookup() are plain data and an inline function, for CPU code and
// CUDA kernels alike (the view is copied by value, as cuCollections' device views are). Lpm4Table,
// the builder, is host-only: it keeps the rules and writes the tables.
//
// Concurrent readers: every entry is one aligned 32-bit word written with a single store, so a lookup
// racing an update sees either the old or the new entry, never a mix. A new tbl8 group is filled
// completely before the tbl24 entry that points to it is stored (release order), and a lookup that
// follows a group pointer fences before it loads from the group (acquire order), so a reader never
// sees a half-built group, on the CPU or on the GPU (where the group stores come from the replay
// kernel of sync/device_mirror.h, which orders them the same way). A freed group is reused only after
// every reader that might still be inside it has finished its burst (set_readers, sync/readers.h).
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

// An entry, tbl24 or tbl8 (rte_lpm's struct rte_lpm_tbl_entry, as explicit bits):
//   bits  0-23  next hop; in a tbl24 entry with kLpm4Group set, the tbl8 group index instead
//   bit   24    valid: a route covers this entry (tbl24: or it points to a group)
//   bit   25    group: this tbl24 entry points to a tbl8 group (never set in tbl8 entries)
//   bits 26-31  depth of the route that wrote the entry (0..32); for the builder, not for lookups
inline constexpr uint32_t kLpm4NextHopMask = 0x00ffffffu;
inline constexpr uint32_t kLpm4Valid = 1u << 24;
inline constexpr uint32_t kLpm4Group = 1u << 25;
inline constexpr int kLpm4DepthShift = 26;
inline constexpr uint32_t kLpm4MaxNextHop = kLpm4NextHopMask;  // 2^24 - 1
inline constexpr uint32_t kLpm4Tbl24Entries = 1u << 24;
inline constexpr uint32_t kLpm4GroupEntries = 256;

// What a lookup reads: tbl24 (2^24 entries) and tbl8 (tbl8_groups * 256 entries), in whatever memory
// the reader can reach. Trivially copyable; pass it to kernels by value.
struct Lpm4View {
  const uint32_t* tbl24;
  const uint32_t* tbl8;
  uint32_t tbl8_groups;
};

// Longest-prefix match of `addr` (host byte order: 10.0.0.1 is 0x0a000001). Returns true and sets
// next_hop to the matching route's next hop, or returns false (next_hop untouched) when no route
// covers addr.
GNF_INLINE bool lpm4_lookup(const Lpm4View& view, uint32_t addr, uint32_t& next_hop) {
  uint32_t entry = load_shared_word(view.tbl24 + (addr >> 8));
  if (entry & kLpm4Group) {
    table_acquire_fence();
    entry = load_shared_word(view.tbl8 + (entry & kLpm4NextHopMask) * kLpm4GroupEntries + (addr & 0xffu));
  }
  if (!(entry & kLpm4Valid)) return false;
  next_hop = entry & kLpm4NextHopMask;
  return true;
}

// The host-side owner and builder: keeps the rules (prefix/depth -> next hop) and keeps tbl24/tbl8
// equal to "the longest rule covering each address", as rte_lpm does, across adds and removes.
// Memory: tbl24 is 64 MiB and tbl8 max_tbl8_groups KiB, both reserved zeroed (untouched pages cost
// nothing until written) when the table is made, and never moved, so a view stays valid for the
// table's lifetime. Not thread-safe for writers: one thread adds and removes.
class Lpm4Table {
 public:
  // max_tbl8_groups: how many /24s may hold routes longer than /24 at once (1 KiB each), at most
  // 2^24. Throws gnf::UserError when it is 0 or too large.
  explicit Lpm4Table(uint32_t max_tbl8_groups = 4096);
  Lpm4Table(const Lpm4Table&) = delete;  // views and the recycler point into it
  Lpm4Table& operator=(const Lpm4Table&) = delete;

  // Adds the route prefix/depth -> next_hop, or replaces the next hop of an existing one. Bits of
  // prefix beyond depth are ignored (10.1.2.3/8 is 10.0.0.0/8); depth 0 is the default route.
  // Throws gnf::UserError, leaving the table unchanged, when depth > 32, next_hop > kLpm4MaxNextHop,
  // or the route is longer than /24, its /24 has no tbl8 group yet and all max_tbl8_groups are in
  // use (the message names the limit).
  void add(uint32_t prefix, uint8_t depth, uint32_t next_hop);

  // Removes the route prefix/depth (prefix masked as in add); the addresses it covered fall back to
  // the next longest covering route, or to no route. Returns false when there is no such route.
  // Throws gnf::UserError when depth > 32.
  bool remove(uint32_t prefix, uint8_t depth);

  // The route prefix/depth's next hop, if there is such a route (prefix masked as in add).
  bool find(uint32_t prefix, uint8_t depth, uint32_t& next_hop) const;

  // Host-memory view for lpm4_lookup().
  Lpm4View view() const;

  // From now on every store into tbl24 / tbl8 is also recorded in `log` (as words of the regions
  // numbered tbl24_region / tbl8_region), with a release wherever the host store is a release, so
  // that a copy of the tables elsewhere can be kept equal (sync/device_mirror.h). nullptr stops it.
  void record_stores(sync::TableLog* log, uint32_t tbl24_region, uint32_t tbl8_region);
  // From now on a freed group is reused only after the readers' grace period (sync/readers.h), which
  // starts when published() says the stores that unlinked it are visible to every reader.
  void set_readers(sync::ReaderRegistry* readers) { recycler_.set_readers(readers); }
  void published() { recycler_.published(); }
  // The tables' words, for making such a copy: tbl24 then tbl8.
  const uint32_t* tbl24_words() const { return tbl24_.get(); }
  const uint32_t* tbl8_words() const { return tbl8_.get(); }
  size_t tbl8_word_count() const { return size_t(max_tbl8_groups_) * kLpm4GroupEntries; }

  uint32_t rule_count() const { return rule_count_; }
  uint32_t tbl8_groups_used() const { return max_tbl8_groups_ - uint32_t(free_groups_.size()); }
  uint32_t max_tbl8_groups() const { return max_tbl8_groups_; }

  // Calls visit(prefix, depth, next_hop) for every rule, in no particular order.
  template <typename Visit>
  void each_rule(Visit visit) const {
    for (uint32_t depth = 0; depth < rules_.size(); ++depth)
      for (const auto& [prefix, next_hop] : rules_[depth]) visit(prefix, uint8_t(depth), next_hop);
  }

 private:
  struct FreeDeleter {
    void operator()(uint32_t* p) const;
  };
  using Table = std::unique_ptr<uint32_t[], FreeDeleter>;

  template <typename Visit>
  void each_short_entry(uint32_t prefix, uint8_t depth, Visit visit);
  void add_short(uint32_t prefix, uint8_t depth, uint32_t entry);
  void add_long(uint32_t prefix, uint8_t depth, uint32_t entry);
  void remove_short(uint32_t prefix, uint8_t depth, uint32_t replacement);
  void remove_long(uint32_t prefix, uint8_t depth, uint32_t replacement);
  // The entry of the longest rule shorter than depth that covers prefix, or 0 (invalid) if none.
  uint32_t covering_entry(uint32_t prefix, uint8_t depth) const;
  uint32_t* group(uint32_t index) { return tbl8_.get() + size_t(index) * kLpm4GroupEntries; }
  // Every entry is written through it (readers may be looking): one store each, and recorded.
  sync::TableWriter writer_;

  uint32_t max_tbl8_groups_;
  Table tbl24_;
  Table tbl8_;
  std::vector<uint32_t> free_groups_;  // a stack; the lowest index on top first
  sync::Recycler recycler_{free_groups_};  // freed groups wait here for the readers' grace period
  std::array<std::unordered_map<uint32_t, uint32_t>, 33> rules_;  // per depth: masked prefix -> next hop
  uint32_t rule_count_ = 0;
};

}  // namespace gnf::nf
