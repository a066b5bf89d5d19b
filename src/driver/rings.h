// The ring layer of the CPU and GPU drivers: trivially copyable refs to an rx ring and a tx ring
// (cuCollections' ref; the owner is queue_rings.h, which allocates the rings and programs the
// queues' registers). Their methods are host and device code alike. The CPU planes call them in
// sequence (receive_burst, send_burst below); the bypass kernel calls the per-descriptor ones with
// a thread per descriptor (thread t polls and takes descriptor next + t, writes tx descriptor
// tail + its rank) and the per-ring ones (advance, publish, reclaim) from one thread.
//
// Rx (82599 section 7.1.9): the driver owns the descriptors from RDT to RDH; it polls the DD bit of
// the descriptors from `next` on, takes the packets, puts a fresh slot into each descriptor (read
// format) and, per the tail-batching rule, hands the refilled descriptors back by writing RDT.
// Tx (section 7.2.3): the driver fills descriptors from `tail` and writes TDT; the slots come back
// when the NIC reports the descriptors done (TDH, head write-back or DD write-back).
//
// Every poll is an acquire load of the word the NIC released (DD, TDH, the written-back head), and
// every tail write a doorbell after the descriptors are written: sync/ordering.h has the argument.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "driver/options.h"
#include "mem/slot_pool.h"
#include "nf/packet.h"
#include "nic/ixgbe_desc.h"
#include "nic/regs.h"
#include "sync/ordering.h"
#include "util/hd.h"

namespace gnf::driver {

// A tail register (RDT or TDT) and the descriptors waiting to be handed over through it. Tail
// batching (options.h): the tail is written once `batch` descriptors are pending, or once the
// oldest pending one has waited `timeout_ns` (on the GPU by its global timer). With batch 1 every
// burst writes its tails.
struct BatchedTail {
  uint32_t* reg;
  uint32_t pending;
  uint64_t pending_since_ns;
  uint32_t batch;
  uint64_t timeout_ns;
  nic::TailMirror* mirror = nullptr;  // GPU memory, for a tx ring of a driver on the GPU (regs.h)

  GNF_INLINE void add(uint32_t n, uint64_t now_ns) {
    if (n == 0) return;
    if (pending == 0) pending_since_ns = now_ns;
    pending += n;
  }

  // Writes `value` into the register if the rule says so (or `force`); returns whether it did. The
  // NIC reads it: a host thread of the NIC model when the driver is on the host, the GPU agent when
  // the driver is on the GPU (its rings are in GPU memory), hence a doorbell for the device there.
  GNF_INLINE bool publish(uint32_t value, uint64_t now_ns, bool force, DoorbellBatch& doorbells) {
    if (pending == 0) return false;
    if (!force && pending < batch && now_ns - pending_since_ns < timeout_ns) return false;
    doorbells.ring_for_device(reg, value);
#if defined(__CUDA_ARCH__)
    // After the same fence as the register: the release pattern again, the agent's acquire pairs.
    if (mirror) {
      static_assert(sizeof(nic::TailMirror) == sizeof(unsigned long long));
      const nic::TailMirror copy{value, uint32_t(now_ns)};
      unsigned long long word;
      memcpy(&word, &copy, sizeof(word));
      store_gpu<MemoryOrder::Relaxed>(reinterpret_cast<unsigned long long*>(mirror), word);
    }
#endif
    pending = 0;
    return true;
  }
};

struct RxRingRef {
  nic::ixgbe_adv_rx_desc* descs;
  uint64_t* slots;  // the slot each descriptor holds (the write-back overwrites pkt_addr)
  uint32_t entries;
  uint32_t next;     // next descriptor to poll
  BatchedTail rdt;   // refilled descriptors wait here to be given back
  // Each slot is headroom bytes the NIC never sees, then the buffer_bytes its descriptor points at
  // (options.h): the NIC writes a frame where pkt_addr says, and knows nothing of the headroom.
  uint32_t headroom;
  uint32_t buffer_bytes;

  GNF_INLINE uint64_t buffer_of(uint64_t slot) const { return slot + headroom; }

  // Whether the NIC has written back descriptor next + k. Once DD is seen (acquire), the length,
  // the hash and the packet bytes are too.
  GNF_INLINE bool done(uint32_t k) const {
    return poll_acquire(&descs[(next + k) % entries].wb.upper.status_error,
                        [](uint32_t status) { return (status & nic::IXGBE_RXD_STAT_DD) != 0; }) &
           nic::IXGBE_RXD_STAT_DD;
  }

  // GNF_TRACE_HANDOVERS=agent or found (util/trace.h): the low 32 bits of the GPU time the agent
  // wrote into descriptor next + k's write-back (done), in the fields it borrows for that.
  GNF_INLINE uint32_t traced_agent_ns(uint32_t k) const {
    const nic::ixgbe_adv_rx_desc& desc = descs[(next + k) % entries];
    return uint32_t(desc.wb.lower.lo_dword.hs_rss.hdr_info) | uint32_t(desc.wb.upper.vlan) << 16;
  }

  // Takes the packet of descriptor next + k (done) and refills the descriptor with slot `fresh`.
  GNF_INLINE nf::PacketRef take(uint32_t k, uint64_t fresh, uint16_t port) {
    const uint32_t i = (next + k) % entries;
    nic::ixgbe_adv_rx_desc& desc = descs[i];
    const uint32_t len = desc.wb.upper.length;
    const nf::PacketRef packet{reinterpret_cast<uint8_t*>(buffer_of(slots[i])),
                               len,
                               desc.wb.lower.hi_dword.rss,
                               port,
                               port,
                               nf::Verdict::Forward,
                               nf::HostReason::Unspecified,
                               uint16_t(headroom),
                               uint16_t(buffer_bytes - len)};
    slots[i] = fresh;
    // Back to the read format. hdr_addr overlaps status_error, so this also clears DD. The NIC
    // will not look at this descriptor before RDT passes it, and RDT is written with release.
    desc.read.pkt_addr = buffer_of(fresh);
    desc.read.hdr_addr = 0;
    return packet;
  }

  // The n descriptors from `next` have been taken and refilled: they wait for publish().
  GNF_INLINE void advance(uint32_t n, uint64_t now_ns) {
    next = (next + n) % entries;
    rdt.add(n, now_ns);
  }

  // Writes RDT if the tail-batching rule says so (or `force`); returns whether it did.
  GNF_INLINE bool publish(uint64_t now_ns, bool force, DoorbellBatch& doorbells) {
    // Intentionally one short: RDT is the descriptor before `next`. It was refilled, but handing
    // it over would make RDT == RDH once the NIC caught up, which the NIC reads as "ring empty".
    return rdt.publish((next + entries - 1) % entries, now_ns, force, doorbells);
  }
};

struct TxRingRef {
  nic::ixgbe_adv_tx_desc* descs;
  uint64_t* slots;  // the slot each descriptor sends
  uint32_t entries;
  uint32_t tail;            // next descriptor to fill
  uint32_t clean;           // oldest descriptor whose slot has not come back
  BatchedTail tdt;          // filled descriptors wait here to be announced
  const uint32_t* tdh;      // the queue's head register
  const uint32_t* head_wb;  // where the NIC writes TDH back (TDWBAL), with TxCompletion::HeadWriteback
  TxCompletion completion;  // resolved: never Auto

  GNF_INLINE uint32_t in_use() const { return (tail + entries - clean) % entries; }
  // One descriptor always stays free, so that a full ring never looks empty (TDT == TDH).
  GNF_INLINE uint32_t room() const { return entries - 1 - in_use(); }

  // Fills descriptor tail + k with packet `p` (k < room()): the NIC reads the frame where it is now,
  // wherever the NFs moved its start within the slot; the slot itself comes back on completion.
  GNF_INLINE void write(uint32_t k, const nf::PacketRef& p) {
    const uint32_t i = (tail + k) % entries;
    nic::ixgbe_adv_tx_desc& desc = descs[i];
    desc.read.buffer_addr = reinterpret_cast<uint64_t>(p.data);
    desc.read.cmd_type_len = nic::tx_cmd_type_len(p.len, completion == TxCompletion::DescWriteback);
    // PAYLEN in 31:14; this store also clears a stale DD (bit 0) from the last write-back.
    desc.read.olinfo_status = p.len << nic::IXGBE_ADVTXD_PAYLEN_SHIFT;
    slots[i] = nf::packet_slot(p);
  }

  // The n descriptors from `tail` have been written: they wait for publish().
  GNF_INLINE void queued(uint32_t n, uint64_t now_ns) {
    tail = (tail + n) % entries;
    tdt.add(n, now_ns);
  }

  // Writes TDT if the tail-batching rule says so (or `force`); returns whether it did.
  GNF_INLINE bool publish(uint64_t now_ns, bool force, DoorbellBatch& doorbells) {
    return tdt.publish(tail, now_ns, force, doorbells);
  }

  // Whether the NIC has written DD back into the k-th oldest descriptor in use (DescWriteback).
  // Once DD is seen (acquire), the NIC has finished reading the slot.
  GNF_INLINE bool sent(uint32_t k) const {
    return poll_acquire(&descs[(clean + k) % entries].wb.status,
                        [](uint32_t status) { return (status & nic::IXGBE_ADVTXD_STAT_DD) != 0; }) &
           nic::IXGBE_ADVTXD_STAT_DD;
  }

  // The first descriptor the NIC has not finished, as far as the completion mode tells (each an
  // acquire of what the NIC released after reading the slots). For DD write-back it walks the
  // descriptors: the GPU's thread-per-descriptor walk is in the bypass kernel.
  GNF_INLINE uint32_t completed_until() const {
    switch (completion) {
      case TxCompletion::HeadRegister: return poll_acquire(tdh, [this](uint32_t head) { return head != clean; });
      case TxCompletion::HeadWriteback: return poll_acquire(head_wb, [this](uint32_t head) { return head != clean; });
      case TxCompletion::DescWriteback: {
        const uint32_t busy = in_use();
        uint32_t k = 0;
        while (k < busy && sent(k)) ++k;
        return (clean + k) % entries;
      }
      default: return clean;  // None: the NIC never says
    }
  }

  // How many descriptors from `clean` lie before `until`, and the slot of the k-th of them.
  GNF_INLINE uint32_t before(uint32_t until) const { return (until + entries - clean) % entries; }
  GNF_INLINE uint64_t slot(uint32_t k) const { return slots[(clean + k) % entries]; }

  // Gives the slots of the descriptors from `clean` to `until` back to their pools; returns how many.
  GNF_INLINE uint32_t release_until(uint32_t until, mem::SlotStackRef* pools, uint32_t pool_count) {
    uint32_t freed = 0;
    for (; clean != until; clean = (clean + 1) % entries, ++freed) mem::release_slot(pools, pool_count, slots[clean]);
    return freed;
  }
  GNF_INLINE uint32_t reclaim(mem::SlotStackRef* pools, uint32_t pool_count) {
    return release_until(completed_until(), pools, pool_count);
  }
};

// Kernels receive the refs by value inside their plane's state; the CPU copies them as values too.
static_assert(std::is_trivially_copyable_v<BatchedTail>);
static_assert(std::is_trivially_copyable_v<RxRingRef>);
static_assert(std::is_trivially_copyable_v<TxRingRef>);

// The CPU driver's rx burst: the leading run of done descriptors (at most `max`), as many of them as
// the pool has slots to refill with. `pool_ran_dry` tells that packets were left in the ring for
// want of a slot.
inline uint32_t receive_burst(RxRingRef& rx, mem::SlotStackRef& pool, nf::PacketRef* out, uint32_t max, uint16_t port,
                              uint64_t now_ns, bool& pool_ran_dry) {
  // The NIC owns at most entries - 1 descriptors, so no more can be done at once.
  const uint32_t limit = max < rx.entries - 1 ? max : rx.entries - 1;
  uint32_t ready = 0;
  while (ready < limit && rx.done(ready)) ++ready;
  const uint32_t n = ready < pool.top ? ready : pool.top;
  pool_ran_dry = n < ready;
  for (uint32_t k = 0; k < n; ++k) out[k] = rx.take(k, pool.peek(k), port);
  pool.pop(n);
  rx.advance(n, now_ns);
  return n;
}

// The CPU driver's tx burst: queues up to `count` packets; returns how many fit. The caller keeps
// the rest.
inline uint32_t send_burst(TxRingRef& tx, nf::PacketRef* const* packets, uint32_t count, uint64_t now_ns) {
  const uint32_t room = tx.room();
  const uint32_t n = count < room ? count : room;
  for (uint32_t k = 0; k < n; ++k) tx.write(k, *packets[k]);
  tx.queued(n, now_ns);
  return n;
}

}  // namespace gnf::driver
