// The bounded ring that nids alert records leave the data path by, on the cpu path and on the GPU:
// one type whose producers are host threads (the cpu path's planes) or GPU threads (a kernel's),
// and whose one consumer is the host's writer thread (alerts.h). cuCollections' shape: the owner
// (NidsAlertRing, host code) holds the memory and pops; its ref (NidsAlertRingRef: trivially
// copyable, host and device code) is what an NF view holds and pushes through.
//
// Protocol (Vyukov's bounded queue, with one consumer). The cell of position p is cells[p & mask];
// its sequence word reads p while the cell is free for p, p + 1 once p's record is in it, and
// p + capacity once the consumer has read it (free for the next lap). A producer
//   1. reserves a position: it reads the sequence word of the cell of the next unclaimed position
//      with acquire (the consumer's release of that cell: its read of the old record is done), and
//      when the word says free, claims the position by a compare-and-swap of the claim counter.
//      When the word says the cell still holds the record of a lap ago, the ring is full: the
//      record is lost (the NF counts it as alerts_lost) and nothing waits;
//   2. writes its record into the cell (plain stores);
//   3. publishes it: stores p + 1 into the sequence word with release at system scope, which
//      orders the record's stores before it for the host.
// The consumer takes positions in order: the sequence word with acquire, and if it says the record
// is there, the record, then frees the cell (release of p + capacity). A position reserved but not
// yet published holds the consumer there until it is: records leave in the order they were claimed.
//
// Where the words live. The cells where producers and consumer both reach them: host memory for
// host producers; pinned host memory mapped into the GPU for GPU producers (a record crosses PCIe
// once, a 64-byte write by the GPU, read by the host). The claim counter with the producers, since
// the consumer never reads it: host memory for host threads; GPU memory for GPU threads, claimed at
// device scope (compare_exchange_relaxed, sync/ordering.h): an L2 atomic rather than a PCIe round
// trip, and a GPU's atomics on pinned memory are not atomic with the CPU's on a PCIe host anyway. So
// the host's producers and the GPU's never share a ring (nids_rules.h gives each side its own).
// Memory: 64 B a record.
#pragma once
#include <cstdint>

#include "mem/block.h"
#include "sync/ordering.h"
#include "util/hd.h"

namespace gnf::nf {

struct NidsAlert {
  uint64_t unix_ns;  // when the packet was inspected (CLOCK_REALTIME; on the GPU nids.h says how)
  uint32_t generation;  // the rule set `rule` is an index into (NidsRuleSetView::generation)
  uint32_t rule;
  uint8_t family, proto;
  bool blocked;  // the packet was dropped (a drop rule matched it)
  uint8_t pad;
  uint16_t sport, dport;
  uint8_t src[16], dst[16];
};

struct NidsAlertCell {
  uint64_t sequence;
  NidsAlert alert;
};
static_assert(sizeof(NidsAlertCell) == 64, "a record is one 64-byte write across PCIe");

struct NidsAlertRingRef {
  NidsAlertCell* cells;
  unsigned long long* claimed;  // the next position to claim
  uint64_t mask;                // capacity - 1

  // Step 1: true with the position claimed, or false when the ring is full.
  GNF_HD bool reserve(uint64_t& position) const {
    unsigned long long next = load_sys<MemoryOrder::Relaxed>(claimed);
    for (;;) {
      const uint64_t sequence = load_acquire_sys(&cells[next & mask].sequence);
      const int64_t lag = int64_t(sequence - next);
      if (lag < 0) return false;  // the cell still holds (or will hold) the record of a lap ago
      if (lag > 0) {
        next = load_sys<MemoryOrder::Relaxed>(claimed);  // another producer took the position
        continue;
      }
      if (compare_exchange_relaxed(claimed, next, next + 1)) {
        position = next;
        return true;
      }
    }
  }

  // Steps 2 and 3, for a position reserve() gave.
  GNF_HD void publish(uint64_t position, const NidsAlert& alert) const {
    NidsAlertCell& cell = cells[position & mask];
    cell.alert = alert;
    store_release_sys(&cell.sequence, position + 1);  // the record, then that it is there
  }

  // False when the ring is full: the record is lost.
  GNF_HD bool push(const NidsAlert& alert) const {
    uint64_t position;
    if (!reserve(position)) return false;
    publish(position, alert);
    return true;
  }
};

class NidsAlertRing {
 public:
  // `capacity` records, rounded up to a power of two, at least 2 (with one cell, a cell just filled,
  // sequence p + 1, would look free to position p + 1). The cells in `cells` (Host, or HostPinned
  // for GPU producers), the claim counter in `claims` (Host, or Device for GPU producers). Throws
  // as mem::Block does.
  NidsAlertRing(uint32_t capacity, mem::Domain cells, mem::Domain claims);

  NidsAlertRingRef ref() const;
  // The next record in claim order; false when it is not published yet. One consumer thread.
  bool pop(NidsAlert& alert);
  uint64_t capacity() const { return mask_ + 1; }

 private:
  NidsAlertCell* cells() const { return reinterpret_cast<NidsAlertCell*>(cells_.data()); }

  uint64_t mask_;
  mem::Block cells_, claimed_;
  uint64_t next_ = 0;  // the consumer's position
};

}  // namespace gnf::nf
