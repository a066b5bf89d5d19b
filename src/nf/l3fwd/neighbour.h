// The neighbour table: (port, IPv4 or IPv6 address) -> MAC address, as ARP and ND resolve them.
// Read per packet by the l3fwd NF on CPU and GPU; written by the control plane while traffic flows.
//
// Layout: an open-addressing hash of slots (one 32-bit word each: 0 empty, kTombstone deleted, else
// 1 + the index of an immutable record), and the records (nf/l3fwd/records.h explains why records
// are immutable). Linear probing over at most kMaxProbe slots keeps a miss bounded on the GPU.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "sync/readers.h"
#include "sync/table_log.h"
#include "nf/l3fwd/records.h"
#include "util/hd.h"

namespace gnf::nf {

struct alignas(4) NeighbourRecord {
  uint16_t port;
  uint8_t family;  // 4 or 6
  uint8_t reserved;
  uint8_t address[16];  // network order; IPv4 in the first 4 bytes, the rest zero
  uint8_t mac[6];
  uint8_t reserved2[6];
};
static_assert(sizeof(NeighbourRecord) == 32);

inline constexpr uint32_t kNeighbourTombstone = 0xffffffffu;
inline constexpr uint32_t kNeighbourMaxProbe = 16;

struct NeighbourView {
  const uint32_t* slots;
  const NeighbourRecord* records;
  uint32_t slot_mask;  // slots - 1 (a power of two)
};

GNF_INLINE uint32_t neighbour_hash(uint16_t port, const uint8_t* address, uint8_t family) {
  // FNV-1a over the port and the address bytes: cheap, and good enough for addresses.
  uint32_t h = 2166136261u ^ port;
  h *= 16777619u;
  const int n = family == 4 ? 4 : 16;
  for (int i = 0; i < n; ++i) {
    h ^= address[i];
    h *= 16777619u;
  }
  return h;
}

// The MAC of `address` (network order, 4 or 16 bytes) on `port`; false when not resolved.
GNF_INLINE bool neighbour_lookup(const NeighbourView& view, uint16_t port, uint8_t family, const uint8_t* address,
                                 uint8_t mac[6]) {
  const uint32_t h = neighbour_hash(port, address, family);
  const int n = family == 4 ? 4 : 16;
  for (uint32_t probe = 0; probe < kNeighbourMaxProbe; ++probe) {
    const uint32_t* slot = view.slots + ((h + probe) & view.slot_mask);
    const uint32_t s = load_shared_word(slot);
    if (s == 0) return false;
    if (s == kNeighbourTombstone) continue;
    record_acquire_fence();
    const NeighbourRecord r = load_record(view.records + (s - 1));
    if (r.port != port || r.family != family) continue;
    bool same = true;
    for (int i = 0; i < n; ++i) same &= r.address[i] == address[i];
    if (!same) continue;
    for (int i = 0; i < 6; ++i) mac[i] = r.mac[i];
    return true;
  }
  return false;
}

// The host-side owner. One writer thread; readers anywhere.
//
// Entries are permanent (the control plane's: the neighbours file, netlink) or learnt (from the
// link: ARP, ND). Only the control plane changes a permanent entry; learnt ones make room for new
// entries when the table is full, least recently confirmed first (as Linux's forced garbage
// collection never takes a permanent entry). A record that an entry stopped pointing to is reused
// once the readers' grace period is over (sync/readers.h), so MAC changes never use the records up.
class NeighbourTable {
 public:
  enum class Kind : uint8_t { Learnt, Permanent };
  enum class Outcome : uint8_t {
    Stored,     // added or changed
    Confirmed,  // the entry had that MAC already (a learnt one's age is renewed)
    Refused,    // a learnt update of a permanent entry, or of an entry that `create` did not allow
    NoRoom,     // every slot it could take holds a permanent entry, or every record is in use
  };

  // slots: a power of two (the table holds at most slots * 3/4 neighbours so probes stay short);
  // records: how many records there are, for the entries and the replaced ones whose readers'
  // grace period has not ended yet.
  NeighbourTable(uint32_t slots, uint32_t records);

  // Adds or updates. A Learnt `kind` never changes a permanent entry, and adds a new one only with
  // `create`; a Permanent one replaces whatever is there. A new entry takes the place of the least
  // recently confirmed learnt one when the table (or the entry's probe window) is full.
  Outcome set(uint16_t port, uint8_t family, const uint8_t* address, const std::array<uint8_t, 6>& mac, Kind kind,
              bool create = true);
  // Removes; false when absent.
  bool remove(uint16_t port, uint8_t family, const uint8_t* address);

  NeighbourView view() const;
  uint32_t size() const { return size_; }
  uint32_t records_in_use() const { return uint32_t(records_.size() - free_records_.size()); }

  // Stores are also recorded (see Lpm4Table::record_stores): records into `records_log`, slot words
  // into `slots_log`; a reader must get records_log's stores before slots_log's.
  void record_stores(sync::TableLog* records_log, uint32_t records_region, sync::TableLog* slots_log,
                     uint32_t slots_region);
  // From now on a replaced record is reused only after the readers' grace period, which starts
  // when published() says the stores that unlinked it are visible to every reader.
  void set_readers(sync::ReaderRegistry* readers) { recycler_.set_readers(readers); }
  void published() { recycler_.published(); }
  const uint32_t* slot_words() const { return slots_.data(); }
  size_t slot_word_count() const { return slots_.size(); }
  const uint32_t* record_words() const { return reinterpret_cast<const uint32_t*>(records_.data()); }
  size_t record_word_count() const { return records_.size() * sizeof(NeighbourRecord) / 4; }

 private:
  struct SlotState {
    Kind kind = Kind::Learnt;
    uint64_t confirmed = 0;  // the age stamp when a learnt entry was last stored or confirmed
  };

  // The slot holding (port, family, address), or -1; with `free_slot` the first reusable slot seen.
  int64_t find(uint16_t port, uint8_t family, const uint8_t* address, int64_t* free_slot) const;
  // A slot for a new entry whose probe window starts at `home`: a free one, else that of the
  // window's least recently confirmed learnt entry (evicted); one learnt entry goes anyway when
  // the table is full. -1 when neither is possible.
  int64_t make_room(uint32_t home, int64_t free_slot);
  // Tombstones the slot and retires its record.
  void unlink(uint32_t slot);
  void store_slot(uint32_t slot, uint32_t value);
  void mark(uint32_t slot, Kind kind);  // the slot's kind, and a learnt slot's new age
  void forget_age(uint32_t slot);       // out of learnt_by_age_

  std::vector<uint32_t> slots_;
  std::vector<SlotState> states_;  // per slot
  std::vector<NeighbourRecord> records_;
  std::vector<uint32_t> free_records_;  // a stack; the lowest index on top first
  sync::Recycler recycler_{free_records_};  // replaced records wait here for the readers' grace period
  std::map<uint64_t, uint32_t> learnt_by_age_;  // age stamp -> slot, of every learnt entry
  uint64_t next_stamp_ = 1;
  uint32_t size_ = 0;
  sync::TableLog* records_log_ = nullptr;
  sync::TableLog* slots_log_ = nullptr;
  uint32_t records_region_ = 0, slots_region_ = 0;
};

}  // namespace gnf::nf
