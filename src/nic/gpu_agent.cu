#include "nic/gpu_agent.h"

#include <cuda/atomic>

#include <cstdio>
#include <cstring>
#include <functional>

#include <fmt/format.h>

#include "mem/block.h"
#include "mem/cuda_alloc.h"
#include "util/cuda_check.h"
#include "util/cuda_wait.h"
#include "util/error.h"
#include "util/gpu_timer.cuh"
#include "util/loop_phases.h"
#include "util/trace.h"
#include "sync/ordering.h"
#include "wire/frame_size.h"
#include "nic/gpu_agent_copy.cuh"

namespace gnf::nic {

namespace {

// Rounds between the counters' trips to pinned memory (the host reads them every millisecond).
constexpr uint32_t kPublishEvery = 64;
// Words between two blocks' stop words: a GPU cache line.
constexpr uint32_t kStopStride = 32;

// A block times its direction's phases only (GpuAgent::loops() reports each direction's four).
enum Phase : uint32_t { kPoll, kRxDecide, kRxCopy, kRxCommit, kTxDecide, kTxCopy, kTxCommit, kPhaseSlots };
static_assert(GpuAgent::kPhaseCount <= LoopPhases::kMaxPhases);

// What each block's first warp counts, published in this order into pinned memory: the counters, then
// a diagnostic, the rounds gone and the time each phase of them took (GpuAgent::kPhaseNames).
enum Stat : uint32_t {
  kRxPackets, kRxBytes, kRxNoDescDrop, kRxNoDescStall, kRxTooSmall, kRxDisabled, kRxDmaRefused, kTxBadDesc, kTxOverrun,
  kPacketBytesToMemory, kPacketBytesFromMemory, kDescBytesToMemory, kDescBytesFromMemory,
  kRounds, kTimedRounds,
  kDmaFaults, kFaultKind, kFaultA, kFaultB, kFaultC, kFaultD,  // diagnostic: the first fault's values
  kPhaseNs,
  kStatCount = kPhaseNs + kPhaseSlots
};

// One block's queue: rx queue `queue` and tx queue `queue` of one port (either may be absent).
// Set up by the host at start(); the state fields carry over from one run to the next.
struct Unit {
  // rx
  FrameFifoRef rx_fifo;
  RxQueueRegs* rx_regs;
  ixgbe_adv_rx_desc* rx_ring;
  uint32_t rx_entries;
  uint32_t rx_buffer_bytes;  // SRRCTL.BSIZEPACKET (0: any)
  uint32_t rx_drop_en;
  uint32_t port_queue_stalls_index;
  // util/trace.h (GNF_TRACE_HANDOVERS): what time goes into the write-back, 0: none, else a
  // TraceHandover bit: kTraceAgent the DD time, kTraceFound that of the poll that found the frame.
  uint32_t trace;
  uint32_t poll_ns;  // kTraceFound: the low 32 bits of the GPU time at which the round's poll began
  // tx
  FrameFifoRef tx_fifo;
  TxQueueRegs* tx_regs;
  ixgbe_adv_tx_desc* tx_ring;
  uint32_t* head_writeback;  // TDWBAL/TDWBAH, or null
  const TailMirror* tail_mirror;  // TDTMAL/TDTMAH (regs.h), or null: then TDT is polled across PCIe
  uint32_t tx_entries;
  uint32_t max_frame;
  uint32_t tx_ring_in_host;  // the host's own queue: descriptors and packets in pinned memory
  uint64_t* stats;           // pinned: kStatCount words for the rx block, then kStatCount for the tx block
  // state
  uint32_t rx_consumed;
  uint32_t rx_byte_position;  // where the bytes of the next record to take begin (rx_round's window)
  uint32_t rdh;
  uint32_t last_rdt;  // the last RDT that made sense (rx_round)
  uint32_t stalled;
  uint32_t tdh;
  uint32_t last_tdt;
  FifoProducer tx_producer;
};

// First warp: frames whose DMA would go outside a buffer (`bad` lanes: a record or a descriptor
// that is not one) are not copied, as an IOMMU would refuse them; lane 0 counts them and keeps the
// first one's values, which stop() reports. The frames themselves are counted where they are
// lost: rx_dma_refused, tx_bad_desc. Bypass at 300 B with 16 queues and 12 Mpps met rx
// descriptors whose buffer address was an RSS hash and a packet type (bench/results/2026-11-24-
// session13, run 7): without this check the copy faulted and took the GPU context down. The cause,
// write-back fields stored after the fence that releases DD, is fixed in rx_round (session 14).
__device__ void note_faults(bool bad, uint64_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t* stats) {
  const uint32_t faults = __ballot_sync(kFullMask, bad);
  if (!faults) return;
  const uint32_t first = __ffs(faults) - 1;
  a = __shfl_sync(kFullMask, a, first);
  b = __shfl_sync(kFullMask, b, first);
  c = __shfl_sync(kFullMask, c, first);
  d = __shfl_sync(kFullMask, d, first);
  if (threadIdx.x != 0) return;
  if (stats[kDmaFaults] == 0) {
    stats[kFaultKind] = kind;
    stats[kFaultA] = a;
    stats[kFaultB] = b;
    stats[kFaultC] = c;
    stats[kFaultD] = d;
  }
  stats[kDmaFaults] += __popc(faults);
}

__device__ FifoRecord load_record(const FrameFifoRef& f, uint32_t index) {
  const uint4 r = __ldcv(reinterpret_cast<const uint4*>(&f.record(index)));
  FifoRecord out;
  static_assert(sizeof(out) == sizeof(r));
  memcpy(&out, &r, sizeof(out));
  return out;
}

// Rx DMA of one queue: frames from its FIFO into the descriptors between RDH and RDT. Every thread
// of the block calls it; the first warp decides (a lane per frame), all copy.
__device__ void rx_round(Unit& u, uint32_t produced, uint32_t rdt, uint32_t* port_stalls, Shared& s,
                         uint64_t* stats, PhaseLaps& laps) {
  const uint32_t lane = threadIdx.x % kWarp;
  const bool control = threadIdx.x < kWarp;
  FifoRecord rec{};
  uint32_t taken = 0, enabled = 0;
  bool placed = false, refused = false, mine = false, needs_desc = false, fits = true;
  ixgbe_adv_rx_desc* desc = nullptr;
  uint32_t* stalls = port_stalls + u.port_queue_stalls_index;
  load_window(s);
  if (control) {
    const uint32_t waiting = produced - u.rx_consumed;
    // The 82599 has one receive FIFO: while a queue of the port without DROP_EN waits for
    // descriptors, the frames behind its frame wait too. Here each queue has its FIFO, and while
    // any queue of the port is stalled, only that one may move (nic/queue_group.cpp does the same).
    const bool held = !u.stalled && *reinterpret_cast<volatile uint32_t*>(stalls) != 0;
    const uint32_t n = held ? 0 : min(waiting, kWarp);
    enabled = u.rx_entries != 0;
    // The driver's tail moves only forward, and never past the head: it hands back only what the
    // NIC wrote back. A tail that does neither is not used (the last good one is), and counted.
    const bool tail_ok = !enabled || (rdt + u.rx_entries - u.last_rdt) % u.rx_entries <=
                                         (u.rdh + u.rx_entries - 1 - u.last_rdt) % u.rx_entries;
    note_faults(lane == 0 && !tail_ok, 3, u.last_rdt, rdt, u.rdh, u.rx_consumed, stats);
    if (tail_ok) u.last_rdt = rdt;
    const uint32_t room = enabled ? (u.last_rdt + u.rx_entries - u.rdh) % u.rx_entries : 0;
    if (n && u.stalled && room != 0) {
      if (lane == 0) atomicSub(stalls, 1u);
      u.stalled = 0;
    }
    if (lane < n) rec = load_record(u.rx_fifo, u.rx_consumed + lane);
    fits = !(u.rx_buffer_bytes != 0 && rec.len > u.rx_buffer_bytes);
    needs_desc = lane < n && enabled && fits;
    const uint32_t rank = __popc(__ballot_sync(kFullMask, needs_desc) & lanes_below(lane));
    // Without DROP_EN the first frame without a descriptor waits, and every frame behind it.
    taken = n;
    const uint32_t blocked = u.rx_drop_en ? 0 : __ballot_sync(kFullMask, needs_desc && rank >= room);
    if (blocked) {
      taken = __ffs(blocked) - 1;
      if (!u.stalled) {
        if (lane == 0) {
          atomicAdd(stalls, 1u);
          ++stats[kRxNoDescStall];
        }
        u.stalled = 1;
      }
    }
    mine = lane < taken;
    placed = mine && needs_desc && rank < room;
    uint32_t pieces = 0;
    bool bad = false;
    if (placed) {
      desc = u.rx_ring + (u.rdh + rank) % u.rx_entries;
      s.src[lane] = u.rx_fifo.at(rec.position);
      s.dst[lane] = reinterpret_cast<uint8_t*>(__ldcg(reinterpret_cast<const unsigned long long*>(&desc->read.pkt_addr)));
      pieces = (rec.len + 15) / 16;
      bad = rec.len == 0 || rec.len > u.max_frame ||
            (rec.position & u.rx_fifo.byte_mask) + fifo_align(rec.len) > u.rx_fifo.byte_mask + 1 ||
            (reinterpret_cast<uint64_t>(s.dst[lane]) & 15) != 0 || s.dst[lane] == nullptr;
      if (bad) pieces = 0;
    }
    note_faults(bad, 1, rec.len, rec.position, reinterpret_cast<uint64_t>(placed ? s.dst[lane] : nullptr),
                (uint64_t(u.rdh) << 32) | rdt, stats);
    // Neither a refused frame nor any after it is written back: its descriptor is not one the NIC
    // may write (or its record is not a frame), and a later write-back beyond it would hand the
    // driver a descriptor with no frame between done ones. They are lost, counted.
    const uint32_t refusing = __ballot_sync(kFullMask, bad);
    if (refusing) {
      refused = placed && lane >= uint32_t(__ffs(refusing) - 1);
      placed = placed && !refused;
      if (refused) pieces = 0;
    }
    list_pieces(s, pieces, lane);
    // Where each frame taken begins in the window. The window is used only if the frames lie in
    // FIFO order from its start on, as the wire side stores them (store_window looks frames up by
    // offset); should the records say otherwise, every piece is copied as before.
    const uint32_t offset = rec.position - s.window_start;
    const uint32_t previous_end = __shfl_up_sync(kFullMask, offset + fifo_align(rec.len), 1);
    s.window_offset[lane] = mine ? offset : kNotInWindow;
    const bool unordered =
        __any_sync(kFullMask, mine && (offset >= kNotInWindow / 2 || (lane > 0 && offset < previous_end)));
    if (lane == 0) s.window_used = unordered ? 0 : s.window;
    if (taken) {
      const uint32_t last = taken - 1;
      const uint32_t end = rec.position + fifo_align(rec.len);
      u.rx_byte_position = __shfl_sync(kFullMask, end, last);
    }
  }
  if (threadIdx.x == 0) laps.lap(stats[kPhaseNs + kRxDecide]);
  __syncthreads();
  store_window(s);
  copy_pieces<true>(s, s.window_used);
  __syncthreads();
  if (threadIdx.x == 0) laps.lap(stats[kPhaseNs + kRxCopy]);
  if (!control || !__any_sync(kFullMask, lane < taken)) return;
  // The packets (the barrier) and the write-back's other fields are in place before DD says so
  // (the driver is on this GPU: device scope; the fence is cumulative over the block's copies). DD
  // is then a relaxed store: fence and store are PTX's release pattern, which the driver's relaxed
  // poll and acquire fence pair with (sync/ordering.h). The other fields must be written before
  // the fence: written after it, they may land after DD, and then after the driver's refill, and
  // the RSS fields overlap pkt_addr, so the next frame went to an address made of an RSS hash
  // and packet type (session 14 run 2: hundreds of thousands of refused frames at 1-10 Mpps).
  if (placed) {
    const uint32_t traced = u.trace == kTraceAgent ? uint32_t(global_timer_ns()) : u.trace == kTraceFound ? u.poll_ns : 0;
    desc->wb.lower.lo_dword.hs_rss.pkt_info = rec.rss_type;
    desc->wb.lower.lo_dword.hs_rss.hdr_info = uint16_t(traced);
    desc->wb.lower.hi_dword.rss = rec.rss_hash;
    desc->wb.upper.length = uint16_t(rec.len);
    desc->wb.upper.vlan = uint16_t(traced >> 16);
  }
  release_fence_gpu();
  if (placed)
    store_sys<MemoryOrder::Relaxed>(&desc->wb.upper.status_error, uint32_t(IXGBE_RXD_STAT_DD | IXGBE_RXD_STAT_EOP));
  const uint32_t placed_count = __popc(__ballot_sync(kFullMask, placed));
  const uint32_t bytes = warp_sum(placed ? rec.len : 0);
  const uint32_t dropped = __popc(__ballot_sync(kFullMask, mine && needs_desc && !placed && !refused));
  const uint32_t refused_count = __popc(__ballot_sync(kFullMask, refused));
  const uint32_t too_small = __popc(__ballot_sync(kFullMask, mine && enabled && !fits));
  const uint32_t disabled = __popc(__ballot_sync(kFullMask, mine && !enabled));
  if (placed_count) u.rdh = (u.rdh + placed_count) % u.rx_entries;
  u.rx_consumed += taken;
  __syncwarp();
  if (lane == 0 && taken) {
    stats[kRxPackets] += placed_count;
    stats[kRxBytes] += bytes + placed_count * wire::kFcsBytes;
    stats[kRxNoDescDrop] += dropped;
    stats[kRxDmaRefused] += refused_count;
    stats[kRxTooSmall] += too_small;
    stats[kRxDisabled] += disabled;
    stats[kPacketBytesToMemory] += bytes;
    stats[kDescBytesFromMemory] += placed_count * sizeof(ixgbe_adv_rx_desc);
    stats[kDescBytesToMemory] += placed_count * sizeof(ixgbe_adv_rx_desc);
    // Every read of the FIFO is done (the barriers above) before its room is handed back: one
    // fence, then relaxed stores (the release pattern).
    release_fence_sys();
    if (placed_count) store_after_fence_sys(&u.rx_regs->RDH, u.rdh);
    store_after_fence_sys(u.rx_fifo.consumed, u.rx_consumed);
    laps.lap(stats[kPhaseNs + kRxCommit]);
  }
}

// Tx DMA of one queue: the descriptors between TDH and TDT, and their packets, into its FIFO.
// Every thread of the block calls it; the first warp decides (a lane per descriptor), all copy.
__device__ void tx_round(Unit& u, uint32_t tdt, Shared& s, uint64_t* stats, PhaseLaps& laps) {
  const uint32_t lane = threadIdx.x % kWarp;
  const bool control = threadIdx.x < kWarp;
  uint32_t taken = 0, len = 0, cmd = 0, position = 0, rank = 0, skew = 0;
  bool sendable = false, sent = false;
  ixgbe_adv_tx_desc* desc = nullptr;
  FifoProducer p;
  if (control) {
    const uint32_t entries = u.tx_entries;
    uint32_t pending = 0;
    if (entries != 0) {
      // [TDH, last TDT) was pending; the driver added (TDT - last TDT) since. More than the ring
      // holds means it wrapped past the head (only a driver without tx completions can): counted
      // as the CPU side does (queue_group.cpp).
      const uint32_t seen = (u.last_tdt + entries - u.tdh) % entries + (tdt + entries - u.last_tdt) % entries;
      if (lane == 0 && seen >= entries) stats[kTxOverrun] += seen / entries * entries;
      u.last_tdt = tdt;
      pending = (tdt + entries - u.tdh) % entries;
    }
    const uint32_t n = min(pending, kWarp);
    uint64_t addr = 0;
    if (lane < n) {
      desc = u.tx_ring + (u.tdh + lane) % entries;
      const uint4 d = u.tx_ring_in_host ? load_host(reinterpret_cast<const uint8_t*>(desc))
                                        : load_gpu(reinterpret_cast<const uint8_t*>(desc));
      addr = uint64_t(d.y) << 32 | d.x;
      cmd = d.z;
    }
    len = cmd & IXGBE_ADVTXD_DTALEN_MASK;
    // The 82599 takes a buffer at any byte address (a frame an NF grew into its headroom starts
    // anywhere); the copy moves 16-byte pieces, so it starts at the boundary below and the FIFO
    // record says where in them the frame begins. The bytes before it are never read out.
    skew = uint32_t(addr) & 15;
    sendable = lane < n && (cmd & IXGBE_ADVTXD_DCMD_EOP) && len != 0 && len <= u.max_frame && addr != 0;
    // Places in the FIFO, frame by frame in order, the same in every lane; the consumer's count is
    // read again (across PCIe) only when the one last seen leaves too little room.
    p = u.tx_producer;
    for (uint32_t k = 0; k < n; ++k, ++taken) {
      const uint32_t span_k = __shfl_sync(kFullMask, skew + len, k);
      if (!__shfl_sync(kFullMask, sendable, k)) continue;
      uint32_t at;
      if (!p.place(u.tx_fifo, span_k, at)) {
        const uint32_t consumed = __shfl_sync(kFullMask, lane == 0 ? load_acquire_sys(u.tx_fifo.consumed) : 0, 0);
        p.saw_consumed(u.tx_fifo, consumed);
        if (!p.place(u.tx_fifo, span_k, at)) break;
      }
      if (lane == k) position = at;
      p.advance(at, span_k);
    }
    sent = lane < taken && sendable;
    rank = __popc(__ballot_sync(kFullMask, sent) & lanes_below(lane));
    uint32_t pieces = 0;
    bool bad = false;
    if (sent) {
      s.src[lane] = reinterpret_cast<const uint8_t*>(addr - skew);
      s.dst[lane] = u.tx_fifo.at(position);
      pieces = (skew + len + 15) / 16;
      // Placement keeps a frame whole inside the FIFO; should it not, nothing is copied (the frame
      // goes out with what its place held) rather than past the FIFO's end, and the fault is reported.
      bad = (position & u.tx_fifo.byte_mask) + fifo_align(skew + len) > u.tx_fifo.byte_mask + 1;
      if (bad) pieces = 0;
    }
    note_faults(bad, 2, len, position, addr, (uint64_t(u.tdh) << 32) | tdt, stats);
    list_pieces(s, pieces, lane);
  }
  if (threadIdx.x == 0) laps.lap(stats[kPhaseNs + kTxDecide]);
  __syncthreads();
  if (s.tx_from_host) copy_pieces<true>(s, 0);
  else copy_pieces<false>(s, 0);
  __syncthreads();
  if (threadIdx.x == 0) laps.lap(stats[kPhaseNs + kTxCopy]);
  if (!control || taken == 0) return;
  if (sent) {
    const uint4 record = make_uint4(len, position + skew, 0, 0);
    *reinterpret_cast<uint4*>(&u.tx_fifo.record(u.tx_producer.head + rank)) = record;
  }
  // The frames and records reach pinned memory before `produced` says so, and every read of a
  // packet buffer is done (the barrier) before DD, the head write-back or TDH hands it back: one
  // fence per lane, then relaxed stores (the release pattern).
  __syncwarp();
  release_fence_sys();
  if (lane == 0 && p.head != u.tx_producer.head) store_after_fence_sys(u.tx_fifo.produced, p.head);
  const bool mine = lane < taken;
  const bool report = mine && (cmd & IXGBE_ADVTXD_DCMD_RS);
  if (report) store_after_fence_sys(&desc->wb.status, uint32_t(IXGBE_ADVTXD_STAT_DD));
  const uint32_t bytes = warp_sum(sent ? len : 0);
  const uint32_t bad = __popc(__ballot_sync(kFullMask, mine && !sendable));
  const uint32_t reports = __popc(__ballot_sync(kFullMask, report));
  u.tx_producer = p;
  if (taken) u.tdh = (u.tdh + taken) % u.tx_entries;
  __syncwarp();
  if (lane == 0) {
    store_after_fence_sys(&u.tx_regs->TDH, u.tdh);
    if (u.head_writeback) store_after_fence_sys(u.head_writeback, u.tdh);
    stats[kTxBadDesc] += bad;
    stats[kPacketBytesFromMemory] += bytes;
    stats[kDescBytesFromMemory] += taken * sizeof(ixgbe_adv_tx_desc);
    stats[kDescBytesToMemory] += reports * sizeof(ixgbe_adv_tx_desc) + (u.head_writeback ? 4 : 0);
    laps.lap(stats[kPhaseNs + kTxCommit]);
  }
}

// The first warp, a word per lane at a time (as the driver's publish_counters).
__device__ void publish(const uint64_t* stats, uint64_t* out, uint32_t lane) {
  for (uint32_t k = lane; k < kStatCount; k += kWarp) reinterpret_cast<volatile uint64_t*>(out)[k] = stats[k];
}

// `split`: two blocks per queue (Unit), block 2i runs unit i's rx DMA and block 2i + 1 its tx DMA,
// so that neither direction waits on the other's PCIe round trips (one block doing both went round
// in 5-6 µs at 1 % load, session 14 run 3); otherwise block i does both (GpuAgent::start says
// when). Only the first warp keeps the queue's state; the others copy. The counters are in shared
// memory, which only lane 0 writes: in registers they made the block too large to share an SM.
// `stops`: a stop word per block, each on a 128-byte line of its own. Pinned lines that several
// SMs read are read one SM at a time (bench/pcie: read_shared_word), so one word all blocks polled
// made their rounds take turns.
__global__ void __launch_bounds__(kThreads) agent_kernel(Unit* units, uint32_t* port_stalls, const uint32_t* stops,
                                                         bool split) {
  __shared__ Shared s;
  __shared__ uint32_t has_rx, has_tx;
  __shared__ uint64_t stats[kStatCount];
  const uint32_t lane = threadIdx.x % kWarp;
  const bool control = threadIdx.x < kWarp;
  const bool rx_block = !split || blockIdx.x % 2 == 0, tx_block = !split || blockIdx.x % 2 == 1;
  const uint32_t unit = split ? blockIdx.x / 2 : blockIdx.x;
  Unit u{};
  uint64_t* published = nullptr;
  if (control) {
    u = units[unit];
    published = u.stats + (split && !rx_block ? kStatCount : 0);
    if (lane == 0) {
      for (uint32_t k = 0; k < kStatCount; ++k) stats[k] = published[k];  // a restart counts on
      has_rx = rx_block && u.rx_regs != nullptr;
      has_tx = tx_block && u.tx_regs != nullptr;
      s.round_flags[0] = s.round_flags[1] = 0;
      s.tx_from_host = u.tx_ring_in_host;
      s.fifo_bytes = u.rx_fifo.bytes;
      s.fifo_byte_mask = u.rx_fifo.byte_mask;
      s.window = s.window_used = 0;
    }
  }
  __syncthreads();
  if (!has_rx && !has_tx) return;  // the queue has no ring in this block's direction
  PhaseLaps laps;
  for (uint32_t round = 0;; ++round) {
    uint32_t produced = 0, rdt = 0, tdt = 0;
    if (control) {
      if (lane == 0 && laps.begin_round(round)) ++stats[kTimedRounds];
      // A tx block whose driver mirrors TDT into GPU memory (regs.h: TailMirror) polls that, and
      // reads across PCIe only its stop word, every 16th round.
      const bool mirror_only = !has_rx && has_tx && u.tail_mirror != nullptr;
      if (u.trace == kTraceFound) u.poll_ns = uint32_t(global_timer_ns());
      // The round's reads across PCIe in one instruction, one round trip: what the wire side
      // stored, the tails and the stop word, relaxed (sync/ordering.h: polling on the GPU).
      const uint32_t* word = stops + blockIdx.x * kStopStride;
      if (lane == 0 && has_rx) word = u.rx_fifo.produced;
      if (lane == 1 && has_rx) word = &u.rx_regs->RDT;
      if (lane == 4 && has_rx) word = u.rx_fifo.produced_bytes();
      if (lane == 2 && has_tx && !u.tail_mirror) word = &u.tx_regs->TDT;
      unsigned long long mirrored = 0;
      if (lane == 2 && has_tx && u.tail_mirror)
        mirrored = gnf::load_gpu<MemoryOrder::Relaxed>(reinterpret_cast<const unsigned long long*>(u.tail_mirror));
      uint32_t value = !mirror_only || round % 16 == 0 ? load_sys<MemoryOrder::Relaxed>(word) : 0;
      if (lane == 2 && has_tx && u.tail_mirror) {
        TailMirror m;
        memcpy(&m, &mirrored, sizeof(m));
        // A tail is taken once its posted write would have reached the NIC; until then the last
        // one is. The driver writes a tail at most once a round (microseconds apart), so a newer
        // tail never keeps an older one waiting for longer than kPostedWriteNs.
        value = m.tail != u.last_tdt && uint32_t(global_timer_ns()) - m.written_ns < kPostedWriteNs ? u.last_tdt : m.tail;
      }
      produced = __shfl_sync(kFullMask, value, 0);
      rdt = __shfl_sync(kFullMask, value, 1);
      tdt = __shfl_sync(kFullMask, value, 2);
      const uint32_t stop_now = __shfl_sync(kFullMask, value, 3);
      const uint32_t produced_bytes = __shfl_sync(kFullMask, value, 4);
      // Only what was found is acquired: frames the host stored (system scope), or descriptors
      // queued by the driver (device scope) or by the host on its own queue (system scope); every
      // lane fences after its own load, before any lane reads on.
      if ((has_rx && produced != u.rx_consumed) || (has_tx && tdt != u.tdh && u.tx_ring_in_host)) acquire_fence_sys();
      else if (has_tx && tdt != u.tdh) acquire_fence_gpu();
      __syncwarp();
      if (lane == 0) {
        // The bytes the wire side had stored when it published `produced` (at least those of the
        // frames it counts, if the two words were read at once; if not, fewer or more: rx_round
        // copies what the window lacks, and ignores the rest).
        const uint32_t stored = produced_bytes - u.rx_byte_position;
        const bool frames = has_rx && produced != u.rx_consumed && stored < kNotInWindow / 2;
        s.window_start = u.rx_byte_position;
        s.window = frames ? min(stored, min(kWindowBytes, u.rx_fifo.byte_mask + 1)) : 0;
        // A round with nothing to move is its poll alone: the next poll starts a round trip sooner,
        // and a frame waits for the poll that finds it half as long. (A tail the driver moved waits
        // for the round that has frames for it; a tx tail that lapped the head is still seen.)
        s.round_flags[round % 2] = (stop_now ? kStopFlag : 0) |
                                   (has_rx && produced != u.rx_consumed ? kRxWork : 0) |
                                   (has_tx && (tdt != u.tdh || tdt != u.last_tdt) ? kTxWork : 0);
        laps.lap(stats[kPhaseNs + kPoll]);
      }
    }
    __syncthreads();
    const uint32_t flags = s.round_flags[round % 2];
    if (flags & kStopFlag) break;
    if (flags & kRxWork) rx_round(u, produced, rdt, port_stalls, s, stats, laps);
    if (flags & kTxWork) tx_round(u, tdt, s, stats, laps);
    if (control) {
      if (lane == 0) ++stats[kRounds];
      if (round % kPublishEvery == 0) {
        __syncwarp();
        publish(stats, published, lane);
        __syncwarp();  // read before lane 0 counts on
      }
    }
  }
  // Each block hands back its direction's state only: the other block writes the rest of the unit.
  if (control) {
    __syncwarp();
    publish(stats, published, lane);
  }
  if (control && lane == 0) {
    Unit& out = units[unit];
    if (has_rx) {
      out.rx_consumed = u.rx_consumed;
      out.rx_byte_position = u.rx_byte_position;
      out.rdh = u.rdh;
      out.last_rdt = u.last_rdt;
      out.stalled = u.stalled;
    }
    if (has_tx) {
      out.tdh = u.tdh;
      out.last_tdt = u.last_tdt;
      out.tx_producer = u.tx_producer;
    }
  }
}

}  // namespace

struct GpuAgent::Impl {
  std::vector<Port*> ports;
  std::vector<Unit> units;           // the host's copy (set-up; the state after stop())
  std::vector<uint32_t> unit_port;   // which port and queue each unit serves
  std::vector<uint32_t> unit_queue;
  mem::Block device_units;
  mem::Block device_stalls;          // one word per port
  mem::Block pinned;                 // a stop line per block, then 2 x kStatCount words per unit
  bool split = false;                // a block per queue and direction (agent_kernel)
  uint32_t blocks() const { return uint32_t(units.size()) * (split ? 2 : 1); }
  uint32_t* stop_flags = nullptr;

  void set_stop(uint32_t value) {
    for (uint32_t i = 0; i < blocks(); ++i) store_release_sys(stop_flags + i * kStopStride, value);
  }
  cudaStream_t stream = nullptr;
  bool running = false;
};

GpuAgent::GpuAgent(const std::vector<Port*>& ports) : impl_(std::make_unique<Impl>()) {
  if (!mem::cuda_device_available()) throw UserError("the GPU agent (rings in GPU memory) needs a CUDA GPU");
  Impl& m = *impl_;
  m.ports = ports;
  for (uint32_t p = 0; p < ports.size(); ++p) {
    const PortOptions& o = ports[p]->options();
    for (uint32_t q = 0; q < std::max(o.rx_queues, o.tx_queues); ++q) {
      m.units.push_back(Unit{});
      m.unit_port.push_back(p);
      m.unit_queue.push_back(q);
    }
  }
  const size_t stop_bytes = m.units.size() * 2 * kStopStride * sizeof(uint32_t);
  m.pinned = mem::Block(mem::Domain::HostPinned, stop_bytes + m.units.size() * 2 * kStatCount * sizeof(uint64_t));
  m.stop_flags = reinterpret_cast<uint32_t*>(m.pinned.data());
  m.device_units = mem::Block(mem::Domain::Device, m.units.size() * sizeof(Unit));
  m.device_stalls = mem::Block(mem::Domain::Device, ports.size() * sizeof(uint32_t));
  auto* stats = reinterpret_cast<uint64_t*>(m.pinned.data() + stop_bytes);
  for (size_t i = 0; i < m.units.size(); ++i) m.units[i].stats = stats + i * 2 * kStatCount;
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
  for (uint32_t p = 0; p < ports.size(); ++p) {
    ports[p]->set_agent_counters([this, p](PortCounterSnapshot& c, DmaCounterValues& dma) {
      const Impl& im = *impl_;
      for (size_t i = 0; i < im.units.size(); ++i) {
        if (im.unit_port[i] != p) continue;
        // Each direction's block counts its own; the other's words stay zero.
        const volatile uint64_t* stats = im.units[i].stats;
        const auto v = [stats](Stat k) { return stats[k] + stats[kStatCount + k]; };
        const uint32_t q = im.unit_queue[i];
        c.rx_good_packets += v(kRxPackets);
        c.rx_good_bytes += v(kRxBytes);
        c.rx_queue_packets[q] += v(kRxPackets);
        c.rx_no_desc_drop += v(kRxNoDescDrop);
        c.rx_queue_drops[q] += v(kRxNoDescDrop);
        c.rx_no_desc_stall += v(kRxNoDescStall);
        c.rx_buffer_too_small += v(kRxTooSmall);
        c.rx_queue_disabled += v(kRxDisabled);
        c.rx_dma_refused += v(kRxDmaRefused);
        c.tx_bad_desc += v(kTxBadDesc);
        c.tx_overrun += v(kTxOverrun);
        dma.packet_bytes_to_memory += v(kPacketBytesToMemory);
        dma.packet_bytes_from_memory += v(kPacketBytesFromMemory);
        dma.desc_bytes_to_memory += v(kDescBytesToMemory);
        dma.desc_bytes_from_memory += v(kDescBytesFromMemory);
      }
    });
  }
}

GpuAgent::~GpuAgent() {
  try {
    stop();
  } catch (...) {
  }
  for (Port* p : impl_->ports) p->set_agent_counters(nullptr);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

namespace {

// The queue's set-up, as its driver programmed the registers (read here, on the host, once).
void read_registers(Unit& u, Port& port, uint32_t q) {
  const PortOptions& o = port.options();
  const uint32_t groups = port.group_count();
  QueueGroup& group = port.group(q % groups);
  if (q < o.rx_queues) {
    RxQueueRegs& r = port.regs().rx[q];
    u.rx_fifo = group.rx_fifo(q / groups);
    u.rx_regs = &r;
    u.rx_ring = reinterpret_cast<ixgbe_adv_rx_desc*>(reg_addr64(r.RDBAL, r.RDBAH));
    const bool enabled = reg_read(r.RXDCTL) & IXGBE_RXDCTL_ENABLE;
    u.rx_entries = enabled ? reg_read(r.RDLEN) / uint32_t(sizeof(ixgbe_adv_rx_desc)) : 0;
    u.rx_buffer_bytes = (reg_read(r.SRRCTL) & 0x1F) * 1024;
    u.rx_drop_en = (reg_read(r.SRRCTL) & IXGBE_SRRCTL_DROP_EN) != 0;
    u.last_rdt = reg_read(r.RDT);
  }
  if (q < o.tx_queues) {
    TxQueueRegs& t = port.regs().tx[q];
    u.tx_fifo = group.tx_fifo(q / groups);
    u.tx_regs = &t;
    u.tx_ring = reinterpret_cast<ixgbe_adv_tx_desc*>(reg_addr64(t.TDBAL, t.TDBAH));
    const bool enabled = reg_read(t.TXDCTL) & IXGBE_TXDCTL_ENABLE;
    u.tx_entries = enabled ? reg_read(t.TDLEN) / uint32_t(sizeof(ixgbe_adv_tx_desc)) : 0;
    const uint32_t wbal = reg_read(t.TDWBAL);
    u.head_writeback = wbal & IXGBE_TDWBAL_HEAD_WB_EN ? reinterpret_cast<uint32_t*>(reg_addr64(wbal & ~3u, reg_read(t.TDWBAH)))
                                                      : nullptr;
    cudaPointerAttributes attributes{};
    GNF_CUDA_CHECK(cudaPointerGetAttributes(&attributes, u.tx_ring));
    u.tx_ring_in_host = attributes.type != cudaMemoryTypeDevice;
    u.tail_mirror = reinterpret_cast<const TailMirror*>(reg_addr64(reg_read(t.TDTMAL), reg_read(t.TDTMAH)));
  }
  u.max_frame = o.max_frame_bytes;
}

}  // namespace

void GpuAgent::start() {
  Impl& m = *impl_;
  if (m.running) return;
  for (size_t i = 0; i < m.units.size(); ++i) {
    read_registers(m.units[i], *m.ports[m.unit_port[i]], m.unit_queue[i]);
    m.units[i].port_queue_stalls_index = m.unit_port[i];
    m.units[i].trace = traced_agent_time();
  }
  // On the agent's stream (not the legacy default one, which would wait for spinning kernels).
  GNF_CUDA_CHECK(cudaMemcpyAsync(m.device_units.data(), m.units.data(), m.units.size() * sizeof(Unit),
                                 cudaMemcpyHostToDevice, m.stream));
  // A block per queue and direction while they take at most one SM each, leaving the rest of each SM
  // to the driver's blocks (every block of both kernels spins until stopped, so all must be
  // resident at once); with more queues, a block per queue.
  int sms = 0, device = 0;
  GNF_CUDA_CHECK(cudaGetDevice(&device));
  GNF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  m.split = m.units.size() * 2 <= size_t(sms);
  m.set_stop(0);
  agent_kernel<<<m.blocks(), kThreads, 0, m.stream>>>(
      reinterpret_cast<Unit*>(m.device_units.data()), reinterpret_cast<uint32_t*>(m.device_stalls.data()), m.stop_flags,
      m.split);
  GNF_CUDA_CHECK_LAUNCH();
  m.running = true;
}

GpuAgent::Loops GpuAgent::loops() const {
  const Impl& m = *impl_;
  // Each direction's phases, in the order of kPhaseNames.
  constexpr Phase kRxPhases[kPhaseCount] = {kPoll, kRxDecide, kRxCopy, kRxCommit};
  constexpr Phase kTxPhases[kPhaseCount] = {kPoll, kTxDecide, kTxCopy, kTxCommit};
  Loops sum;
  uint32_t rx_blocks = 0, tx_blocks = 0;
  for (const Unit& u : m.units) {
    for (const bool rx : {true, false}) {
      if ((rx ? static_cast<const void*>(u.rx_regs) : static_cast<const void*>(u.tx_regs)) == nullptr) continue;
      const volatile uint64_t* v = u.stats + (m.split && !rx ? kStatCount : 0);
      LoopPhases block;
      block.rounds = v[kRounds];
      block.timed_rounds = v[kTimedRounds];
      for (uint32_t k = 0; k < kPhaseCount; ++k) block.ns[k] = v[kPhaseNs + (rx ? kRxPhases : kTxPhases)[k]];
      (rx ? sum.rx : sum.tx).add(block);
      ++(rx ? rx_blocks : tx_blocks);
    }
  }
  return Loops{sum.rx.per_block(rx_blocks), sum.tx.per_block(tx_blocks)};
}

void GpuAgent::stop() {
  Impl& m = *impl_;
  if (!m.running) return;
  m.set_stop(1);
  m.running = false;
  wait_for_stop(m.stream, "the GPU agent's kernel");
  GNF_CUDA_CHECK(cudaMemcpyAsync(m.units.data(), m.device_units.data(), m.units.size() * sizeof(Unit),
                                 cudaMemcpyDeviceToHost, m.stream));
  GNF_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  for (size_t i = 0; i < m.units.size() * 2; ++i) {
    const uint64_t* v = m.units[i / 2].stats + (i % 2) * kStatCount;
    if (v[kDmaFaults] == 0) continue;
    // The first fault's values: rx and tx: length, FIFO position, buffer address, head << 32 | tail;
    // rdt: the last good RDT, the RDT read, RDH, records taken from the FIFO.
    std::fprintf(stderr, "gnf: GPU agent: unit %zu (port %u queue %u): %llu DMA faults, first %s (%llu, %llu, 0x%llx, 0x%llx)\n",
                 i / 2, m.unit_port[i / 2], m.unit_queue[i / 2], (unsigned long long)v[kDmaFaults],
                 v[kFaultKind] == 1 ? "rx" : v[kFaultKind] == 2 ? "tx" : "rdt", (unsigned long long)v[kFaultA],
                 (unsigned long long)v[kFaultB], (unsigned long long)v[kFaultC], (unsigned long long)v[kFaultD]);
  }
}

}  // namespace gnf::nic
