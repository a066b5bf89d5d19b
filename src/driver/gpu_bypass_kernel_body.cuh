// The bypass kernel's body: the template bypass_kernel<kKinds> and the device functions it calls.
// Included by the .cu files that build it for sets of NF kinds (gpu_bypass_kernel.cu,
// gpu_bypass_kernel_all.cu): each build lives in one file, and the one with every kind's code, the
// slowest to compile by far, in a file of its own, so that a build compiles them side by side.
#pragma once
#include "driver/gpu_bypass_kernel.cuh"

#include "driver/gpu_timer.cuh"
#include "nf/chain_device.cuh"
#include "sync/ordering.h"
#include "sync/readers.h"

namespace gnf::driver::bypass {

namespace {

// --- Memory ordering, the heart of the bypass path (the general argument: sync/ordering.h) -----
// Polls: a thread sees DD with a relaxed load and, when set, an acquire fence at device scope
// (RxRingRef::done, poll_acquire): the NIC's writes into GPU memory are the GPU agent's
// (nic/gpu_agent.cu), GPU threads that write the packet and the write-back's fields, fence and only
// then store DD. So the thread that sees DD sees the packet, and no stale L1 line of the recycled
// slot is served. The same acquire stands before every other word released by the NIC or the host:
// tx completions (TxRingRef::completed_until and sent: head write-back, TDH, DD), the host's
// consumer index of the exception and arrival rings (system scope: a host thread wrote it), the
// mailbox's stop word.
// Doorbells: descriptors, exception entries and arrival records are written by many threads of
// the block; after __syncthreads() thread 0 rings that step's doorbells through one DoorbellBatch:
// one fence, cumulative over the writes the barrier ordered before it, then each tail or head a
// relaxed store into pinned host memory. The fence is at system scope where a host thread reads
// the word (exception and arrival heads), at device scope where only the agent does (the tails).
// The agent reads a tail with a relaxed load and an acquire fence, and only then fetches the
// descriptors. No fence, no tail: a published GPU bypass prototype wrote tails without one and saw
// crashes with several rings.

struct BlockShared {
  unsigned long long stats[kStatCount];
  unsigned long long timed_polls;            // thread 0's PhaseLaps: the rounds timed
  unsigned long long phase_ns[kPhaseCount];  // and their phases
  unsigned long long nf_totals[nf::kMaxChainLength][nf::NfCounters::kMax];
  uint32_t warp_counts[kMaxBurst / kWarpSize];
  uint32_t port_room[nf::kMaxPorts];  // per output port: the burst's packets first, then how many fit
  uint32_t done_until[nf::kMaxPorts];
  uint32_t ready;
  uint32_t posted;  // bursts posted to the plane's NF blocks (NfShare), or seen by an NF block
  uint32_t stop;
  uint32_t reclaim;
  uint32_t exception_room;
  uint32_t arrival_room;
};

// How many threads before this one (in thread order) have `flag` set; `total` gets the block's
// count. Every thread of the block calls it (blockDim.x is a multiple of 32).
__device__ uint32_t block_rank(bool flag, uint32_t& total, uint32_t* warp_counts) {
  const uint32_t lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize, warps = blockDim.x / kWarpSize;
  const uint32_t ballot = __ballot_sync(0xFFFFFFFFu, flag);
  if (lane == 0) warp_counts[warp] = __popc(ballot);
  __syncthreads();
  uint32_t before = 0, sum = 0;
  for (uint32_t w = 0; w < warps; ++w) {
    if (w < warp) before += warp_counts[w];
    sum += warp_counts[w];
  }
  __syncthreads();  // warp_counts is reused by the next call
  total = sum;
  return before + __popc(ballot & ((1u << lane) - 1));
}

// Every thread: gives back the slots of every tx descriptor the NIC has finished. Only this block
// touches its plane's pools, and its threads may release at once (SlotStackRef::release).
__device__ void reclaim_all(DevPlane& plane, BlockShared& sh) {
  // Without completions nothing ever comes back (every ring has the one mode): see make_room.
  if (plane.tx[0].completion == TxCompletion::None) return;
  const uint32_t t = threadIdx.x;
  for (uint32_t o = 0; o < plane.ports; ++o) {
    const TxRingRef& tx = plane.tx[o];
    if (tx.completion == TxCompletion::DescWriteback) {
      // The threads check one descriptor each; the first not done ends the run.
      if (t == 0) sh.done_until[o] = blockDim.x;
      __syncthreads();
      const uint32_t busy = tx.in_use();
      if (t < busy && !tx.sent(t)) atomicMin(&sh.done_until[o], t);
      __syncthreads();
      if (t == 0) sh.done_until[o] = (tx.clean + min(sh.done_until[o], busy)) % tx.entries;
    } else if (t == 0) {
      sh.done_until[o] = tx.completed_until();
    }
  }
  __syncthreads();
  for (uint32_t o = 0; o < plane.ports; ++o) {
    const TxRingRef& tx = plane.tx[o];
    const uint32_t done = tx.before(sh.done_until[o]);
    for (uint32_t i = t; i < done; i += blockDim.x) mem::release_slot(plane.pool, plane.ports, tx.slot(i));
  }
  __syncthreads();
  if (t == 0)
    for (uint32_t o = 0; o < plane.ports; ++o) plane.tx[o].clean = sh.done_until[o];
  __syncthreads();
}

// Thread 0: whether a tx ring or a pool is running short, so that the round must take back the
// slots of sent descriptors now. Otherwise that waits for every 8th round, as DPDK's ixgbe driver
// frees tx descriptors only below tx_free_thresh: each reclaim costs the block several barriers
// and a read of every tx ring's completions, which at low load was a quarter of the round.
__device__ bool short_of_slots(const DevPlane& plane, uint32_t burst) {
  for (uint32_t o = 0; o < plane.ports; ++o)
    if (plane.tx[o].room() < plane.tx[o].entries / 4 || plane.pool[o].top < 2 * burst) return true;
  return false;
}

// Thread 0: room on tx ring `o` for up to `wanted` descriptors. With tx_full = "wait" it hands
// the NIC what is queued and waits for room; the NIC model runs on, so the wait ends, but once the
// stop word has been up for a second it gives up and the rest counts as tx-ring-full.
__device__ uint32_t make_room(DevPlane& plane, uint32_t o, uint32_t wanted, const KernelConfig& config,
                              const Control* control, BlockShared& sh) {
  TxRingRef& tx = plane.tx[o];
  wanted = min(wanted, tx.entries - 1);
  if (tx.completion == TxCompletion::None) {
    // No completions: the oldest descriptors are taken back as sent, whatever the NIC did. If it
    // has not sent them, this overruns the ring (the NIC model counts tx_overrun).
    if (tx.room() < wanted) {
      const uint32_t short_by = wanted - tx.room();
      tx.release_until((tx.clean + short_by) % tx.entries, plane.pool, plane.ports);
    }
    return wanted;
  }
  auto reclaim = [&] {
    tx.reclaim(plane.pool, plane.ports);
    return tx.room();
  };
  uint32_t room = tx.room();
  if (room < wanted) room = reclaim();
  if (room < wanted && config.tx_full_wait) {
    DoorbellBatch doorbells;
    sh.stats[kTails] += tx.publish(0, true, doorbells);
    uint64_t give_up_at = ~uint64_t(0);
    while (room < wanted && global_timer_ns() < give_up_at) {
      if (give_up_at == ~uint64_t(0) && control->stop_requested()) give_up_at = global_timer_ns() + 1'000'000'000;
      room = reclaim();
    }
  }
  return min(room, wanted);
}

// Thread 0: entries free for up to `wanted` frames in a host-bound ring. The host's tail is read
// again (across PCIe, a microsecond or two) only when the tail last seen leaves too little room.
__device__ uint32_t room_for(DevExceptionRing& ring, uint32_t wanted) {
  if (wanted == 0) return 0;
  if (ring.count - (ring.head_local - ring.tail_seen) < wanted) ring.tail_seen = load_acquire_sys(ring.tail);
  return min(wanted, ring.count - (ring.head_local - ring.tail_seen));
}

// One thread copies its frame into exception entry `position` (pinned host memory: these stores
// cross PCIe, which is why only punted frames take this way).
__device__ void copy_to_exception(DevExceptionRing& ring, uint32_t position, const nf::PacketRef& r) {
  uint8_t* entry = ring.entries + size_t(position % ring.count) * ring.entry_bytes;
  const uint32_t len = min(r.len, ring.entry_bytes - 16);
  auto* header = reinterpret_cast<uint32_t*>(entry);
  header[0] = r.in_port;
  header[1] = len;
  header[2] = uint32_t(r.reason);
  // Slots and their headroom are multiples of 64 bytes from an aligned pool, so a frame that starts
  // on a 16-byte word (as received) stays inside its slot in whole words; one an NF moved to another
  // start is copied byte by byte.
  if (reinterpret_cast<uintptr_t>(r.data) % sizeof(uint4) == 0) {
    const uint4* src = reinterpret_cast<const uint4*>(r.data);
    uint4* dst = reinterpret_cast<uint4*>(entry + 16);
    for (uint32_t k = 0; k < (len + 15) / 16; ++k) dst[k] = src[k];
  } else {
    for (uint32_t k = 0; k < len; ++k) entry[16 + k] = r.data[k];
  }
}

// One thread notes its frame in arrival entry `position` (pinned host memory: 32 bytes across
// PCIe per frame). A frame without a stamp takes its entry too, marked by length 0: a gap in the
// ring would stall the host's reader.
__device__ void note_arrival(DevExceptionRing& ring, uint32_t position, const nf::PacketRef& r, uint64_t seen_ns,
                             uint32_t agent_to_poll_ns) {
  auto* entry = reinterpret_cast<ArrivalRecord*>(ring.entries + size_t(position % ring.count) * ring.entry_bytes);
  const wire::StampPlace place = wire::find_stamp(r.data, r.len);
  if (place.offset == 0) {
    *entry = ArrivalRecord{};
    return;
  }
  const uint8_t* stamp = r.data + place.offset;
  *entry = ArrivalRecord{wire::load_le64(stamp), wire::load_le64(stamp + 8), seen_ns, r.len, agent_to_poll_ns};
}

// Every thread of a ring's block: runs the NF chain on the burst's n packets, whose refs are in
// share.refs (written before the caller's barrier), with the plane's NF blocks (NfShare says who
// runs which, and the ordering).
template <nf::NfKindSet kKinds>
__device__ void run_nf_shared(NfShare& share, uint32_t nf_blocks, const nf::NfChainView& chain, uint32_t n,
                              BlockShared& sh) {
  const uint32_t t = threadIdx.x, ways = nf_blocks + 1;
  if (t == 0) {
    share.count = n;
    release_fence_gpu();
    store_gpu<MemoryOrder::Relaxed>(&share.posted, ++sh.posted);
  }
  nf::run_chain_on_block<kKinds>(chain, {share.refs, 0, ways, nf::share_of(n, 0, ways)}, &sh.nf_totals[0][0]);
  if (t == 0) {
    const uint32_t all_done = sh.posted * nf_blocks;
    while (load_gpu<MemoryOrder::Relaxed>(&share.done) != all_done) {
    }
    acquire_fence_gpu();
  }
}

// A burst's refs while the NF chain runs on it, a ref per thread: in dynamic shared memory
// (GpuBypass::start sizes it), or in the plane's NfShare when NF blocks share the work, since other
// blocks read them there. In GPU memory each thread's store of its ref and the loads after the
// barrier were L2 round trips.
__device__ nf::PacketRef* burst_refs(const KernelConfig& config) {
  extern __shared__ uint4 refs_in_shared_memory[];  // uint4: PacketRef has default member initializers
  return config.nf_blocks != 0 ? config.shares[blockIdx.x].refs
                               : reinterpret_cast<nf::PacketRef*>(refs_in_shared_memory);
}

// One burst from rx ring `p`: poll, take and refill, NF, place, commit. Every thread calls it.
// (Polling every port's ring at once at the top of the round made the round longer and the
// latency worse: bench/results/2026-11-25-session22, run 5.)
template <nf::NfKindSet kKinds>
__device__ void serve_rx_ring(DevPlane& plane, uint32_t p, const nf::NfChainView& chain, const KernelConfig& config,
                              const Control* control, BlockShared& sh, PhaseLaps& laps) {
  const uint32_t t = threadIdx.x;
  RxRingRef& ring = plane.rx[p];
  mem::SlotStackRef& pool = plane.pool[p];

  // Poll: the burst is the leading run of done descriptors.
  const bool done = t < config.burst && ring.done(t);
  // As the GPU sink: when this thread saw its frame's descriptor done.
  const uint64_t seen_ns = done && config.one_way == OneWay::Rx ? global_timer_ns() : 0;
  const uint32_t agent_to_poll_ns = done && config.trace_agent ? uint32_t(seen_ns) - ring.traced_agent_ns(t) : 0;
  if (t == 0) sh.ready = config.burst;
  __syncthreads();
  if (t < config.burst && !done) atomicMin(&sh.ready, t);
  __syncthreads();
  const uint32_t ready = sh.ready;
  const uint32_t n = min(ready, pool.top);  // every packet taken needs a fresh slot in its place
  if (t == 0) {
    if (n < ready) ++sh.stats[kAllocFail];
    laps.lap(sh.phase_ns[kPollPhase]);
  }
  if (n == 0) {
    __syncthreads();  // sh.ready is rewritten by the next ring's poll
    return;
  }
  // The burst's table lookups lie between reader_enter and reader_leave (sync/readers.h): the block
  // is one reader, slot blockIdx.x (its plane's queue).
  sync::ReaderSlot* reader = chain.readers ? chain.readers + blockIdx.x : nullptr;
  if (reader) {
    if (t == 0) sync::reader_enter(reader);
    __syncthreads();
  }

  // Take, refill, run the NF chain.
  nf::PacketRef* refs = burst_refs(config);
  nf::PacketRef r{};
  if (t < n) refs[t] = ring.take(t, pool.peek(t), uint16_t(p));
  __syncthreads();
  if (t == 0) laps.lap(sh.phase_ns[kTakePhase]);
  if (config.nf_blocks != 0 && n > 1) run_nf_shared<kKinds>(config.shares[blockIdx.x], config.nf_blocks, chain, n, sh);
  else nf::run_chain_on_block<kKinds>(chain, {refs, 0, 1, n}, &sh.nf_totals[0][0]);
  __syncthreads();
  if (t < n) r = refs[t];
  if (t == 0) {
    pool.pop(n);
    if (reader) sync::reader_leave(reader);
    laps.lap(sh.phase_ns[kNfPhase]);
  }
  __syncthreads();

  // Place: each packet's position among the burst's packets for the same output port.
  uint32_t dest = kNoPort;
  const bool sink = config.one_way == OneWay::Rx;  // forwarded frames end here
  if (t < n && r.verdict == nf::Verdict::Forward && r.out_port < plane.ports && !sink) dest = r.out_port;
  const bool consumed = t < n && sink && r.verdict == nf::Verdict::Forward;
  uint32_t arriving = 0, arrival_rank = 0;
  if (sink) arrival_rank = block_rank(consumed, arriving, sh.warp_counts);  // the same branch for the whole block
  uint32_t rank = 0;
  for (uint32_t o = 0; o < plane.ports; ++o) {
    uint32_t total;
    const uint32_t rank_o = block_rank(dest == o, total, sh.warp_counts);
    if (dest == o) rank = rank_o;
    if (t == 0) sh.port_room[o] = total;
  }
  const bool to_host = t < n && r.verdict == nf::Verdict::ToHost;
  uint32_t punted;
  const uint32_t host_rank = block_rank(to_host, punted, sh.warp_counts);
  if (t == 0) {
    for (uint32_t o = 0; o < plane.ports; ++o)
      if (sh.port_room[o]) sh.port_room[o] = make_room(plane, o, sh.port_room[o], config, control, sh);
    sh.exception_room = room_for(plane.exceptions, punted);
    sh.arrival_room = room_for(plane.arrivals, arriving);
  }
  __syncthreads();
  if (dest != kNoPort) {
    TxRingRef& tx = plane.tx[dest];
    if (rank < sh.port_room[dest]) {
      // Timing the tx side: the frame leaves the GPU now (the tail that hands it over follows
      // this burst's fence, so the NIC reads the marked stamp).
      if (config.one_way == OneWay::Tx)
        wire::mark_departure(r.data, wire::find_stamp(r.data, r.len),
                             host_time_ns(global_timer_ns(), config.host_minus_gpu_ns));
      tx.write(rank, r);
    } else {
      atomicAdd(&sh.stats[kTxFull], 1ull);
      mem::release_slot(plane.pool, plane.ports, nf::packet_slot(r));
    }
  } else if (t < n) {
    if (consumed) {
      if (arrival_rank < sh.arrival_room) {
        note_arrival(plane.arrivals, plane.arrivals.head_local + arrival_rank, r,
                     host_time_ns(seen_ns, config.host_minus_gpu_ns), agent_to_poll_ns);
      } else {
        atomicAdd(&sh.stats[kUnrecorded], 1ull);
      }
      atomicAdd(&sh.stats[kConsumed], 1ull);
    } else if (to_host) {
      if (host_rank < sh.exception_room) {
        copy_to_exception(plane.exceptions, plane.exceptions.head_local + host_rank, r);
        atomicAdd(&sh.stats[kToHost], 1ull);
      } else {
        atomicAdd(&sh.stats[kToHostOverflow], 1ull);
      }
    } else {
      atomicAdd(&sh.stats[r.verdict == nf::Verdict::Drop ? kNfDrops : kBadPort], 1ull);
    }
    mem::release_slot(plane.pool, plane.ports, nf::packet_slot(r));
  }
  __syncthreads();

  // Commit: thread 0 moves the rings on and rings the doorbells the batching rule allows.
  if (t == 0) {
    laps.lap(sh.phase_ns[kPlacePhase]);
    const uint64_t now = global_timer_ns();
    DoorbellBatch doorbells;
    for (uint32_t o = 0; o < plane.ports; ++o) {
      plane.tx[o].queued(sh.port_room[o], now);
      sh.stats[kTx] += sh.port_room[o];
    }
    if (sh.exception_room) {
      plane.exceptions.head_local += sh.exception_room;
      doorbells.ring(plane.exceptions.head, plane.exceptions.head_local);
    }
    if (sh.arrival_room) {
      plane.arrivals.head_local += sh.arrival_room;
      doorbells.ring(plane.arrivals.head, plane.arrivals.head_local);
    }
    ring.advance(n, now);
    sh.stats[kRx] += n;
    sh.stats[kTails] += ring.publish(now, false, doorbells);
    for (uint32_t o = 0; o < plane.ports; ++o) sh.stats[kTails] += plane.tx[o].publish(now, false, doorbells);
    laps.lap(sh.phase_ns[kCommitPhase]);
  }
  __syncthreads();
}

// The block's threads copy a plane's state, word by word, between GPU and shared memory.
__device__ void copy_words(DevPlane* to, const DevPlane* from) {
  static_assert(sizeof(DevPlane) % sizeof(uint32_t) == 0);
  auto* dst = reinterpret_cast<uint32_t*>(to);
  const auto* src = reinterpret_cast<const uint32_t*>(from);
  for (uint32_t i = threadIdx.x; i < sizeof(DevPlane) / sizeof(uint32_t); i += blockDim.x) dst[i] = src[i];
}

// The layout of GpuPlaneCounters: counters, polls, polls timed, phases, NF counters.
constexpr int kPollsWord = kStatCount;
constexpr int kTimedPollsWord = kPollsWord + 1;
constexpr int kPhaseWords = kTimedPollsWord + 1;
constexpr int kNfWords = kPhaseWords + kPhaseCount;

// Every thread of the block, between barriers: the counters into pinned memory, where the host reads
// them while the kernel runs, a word per thread at a time (thread 0 storing the hundred-odd words
// one after another made every 64th round that much longer).
__device__ void publish_counters(const BlockShared& sh, volatile uint64_t* out, uint32_t chain_length, uint64_t polls) {
  const uint32_t words = kNfWords + chain_length * nf::NfCounters::kMax;
  for (uint32_t k = threadIdx.x; k < words; k += blockDim.x) {
    uint64_t value;
    if (k < kStatCount) value = sh.stats[k];
    else if (k == kPollsWord) value = polls;
    else if (k == kTimedPollsWord) value = sh.timed_polls;
    else if (k < kNfWords) value = sh.phase_ns[k - kPhaseWords];
    else value = (&sh.nf_totals[0][0])[k - kNfWords];  // rows of NfCounters::kMax, as in `out`
    out[k] = value;
  }
}

// Every thread of an NF block: runs its share of each burst its plane posts, until the plane stops.
template <nf::NfKindSet kKinds>
__device__ void serve_nf_share(NfShare& share, uint32_t rank, uint32_t nf_blocks, const nf::NfChainView& chain,
                               BlockShared& sh, volatile uint64_t* out) {
  const uint32_t t = threadIdx.x, ways = nf_blocks + 1;
  for (uint32_t round = 1;; ++round) {
    if (t == 0) {
      uint32_t posted = sh.posted;
      bool stop = false;
      // The stop word is set only after the ring's block saw every posted burst done, so a burst
      // is never left behind.
      while ((posted = load_gpu<MemoryOrder::Relaxed>(&share.posted)) == sh.posted &&
             !(stop = load_gpu<MemoryOrder::Relaxed>(&share.stop) != 0)) {
      }
      acquire_fence_gpu();
      sh.stop = stop && posted == sh.posted;
      sh.posted = posted;
    }
    __syncthreads();
    if (sh.stop) break;
    nf::run_chain_on_block<kKinds>(chain, {share.refs, rank + 1, ways, nf::share_of(share.count, rank + 1, ways)},
                                   &sh.nf_totals[0][0]);
    __syncthreads();
    if (t == 0) {
      release_fence_gpu();
      atomicAdd(&share.done, 1u);
    }
    // Read before the next round's barrier, after which the block adds to the totals again.
    if ((round & 63) == 0) publish_counters(sh, out, chain.count, 0);
  }
  publish_counters(sh, out, chain.count, 0);
}

}  // namespace

template <nf::NfKindSet kKinds>
__global__ void __launch_bounds__(kMaxBurst) bypass_kernel(DevPlane* planes, uint64_t* counters,
                                                           uint32_t counters_stride, nf::NfChainView chain,
                                                           const Control* control, KernelConfig config) {
  __shared__ BlockShared sh;
  // The plane's ring and pool state lives in shared memory while the kernel runs, and goes back to
  // GPU memory when it stops (where a restart and the host's audit find it). In GPU memory, every
  // field thread 0 reads costs a trip to L2: each acquire fence of a poll drops the SM's L1, and a
  // round reads dozens of fields one after another (session 13: the round was 11-19 µs).
  // nvcc notes that the refs' default member initialisers do not run for __shared__ memory (#20054,
  // once per build of the kernel); none is needed, copy_words below fills every field.
#pragma nv_diag_suppress 20054
  __shared__ DevPlane plane;
#pragma nv_diag_default 20054
  const uint32_t t = threadIdx.x;
  volatile uint64_t* out = counters + size_t(blockIdx.x) * counters_stride;
  // A restart carries on counting where the last run stopped.
  if (t == 0) {
    for (int k = 0; k < kStatCount; ++k) sh.stats[k] = out[k];
    sh.timed_polls = out[kTimedPollsWord];
    for (int k = 0; k < kPhaseCount; ++k) sh.phase_ns[k] = out[kPhaseWords + k];
    for (uint32_t e = 0; e < nf::kMaxChainLength; ++e)
      for (int k = 0; k < nf::NfCounters::kMax; ++k) sh.nf_totals[e][k] = out[kNfWords + e * nf::NfCounters::kMax + k];
    sh.posted = 0;  // the host zeroed the NfShares
  }
  if (blockIdx.x >= config.planes) {  // an NF block
    const uint32_t helper = blockIdx.x - config.planes;
    __syncthreads();
    serve_nf_share<kKinds>(config.shares[helper / config.nf_blocks], helper % config.nf_blocks, config.nf_blocks,
                           chain, sh, out);
    return;
  }
  copy_words(&plane, &planes[blockIdx.x]);
  uint64_t iteration = out[kPollsWord];
  PhaseLaps laps;
  __syncthreads();
  for (;; ++iteration) {
    if (t == 0) {
      sh.stop = (iteration & 15) == 0 ? control->stop_requested() : 0;
      sh.reclaim = (iteration & 7) == 0 || short_of_slots(plane, config.burst);
      if (laps.begin_round(iteration)) ++sh.timed_polls;
    }
    __syncthreads();
    if (sh.stop) break;
    if (sh.reclaim) reclaim_all(plane, sh);
    if (t == 0) laps.lap(sh.phase_ns[kReclaimPhase]);
    for (uint32_t p = 0; p < plane.ports; ++p) serve_rx_ring<kKinds>(plane, p, chain, config, control, sh, laps);
    if (t == 0) {
      // Idle or not, a pending tail is written once its timeout has passed. The clock is read
      // only when a tail waits (a read took 0.2 µs of the round: session 24 run 2).
      bool waiting = false;
      for (uint32_t o = 0; o < plane.ports; ++o)
        waiting |= plane.rx[o].rdt.pending != 0 || plane.tx[o].tdt.pending != 0;
      if (waiting) {
        const uint64_t now = global_timer_ns();
        DoorbellBatch doorbells;
        for (uint32_t o = 0; o < plane.ports; ++o) {
          sh.stats[kTails] += plane.rx[o].publish(now, false, doorbells);
          sh.stats[kTails] += plane.tx[o].publish(now, false, doorbells);
        }
      }
    }
    __syncthreads();
    // Every 64th round: the counters cross PCIe, and the host reads them only every millisecond.
    if ((iteration & 63) == 0) {
      publish_counters(sh, out, chain.count, iteration);
      __syncthreads();  // read before thread 0 counts on
    }
    if (t == 0) laps.lap(sh.phase_ns[kRoundEndPhase]);
  }
  // A clean stop hands the NIC everything refilled or queued, so nothing waits on a tail.
  if (t == 0) {
    DoorbellBatch doorbells;
    for (uint32_t o = 0; o < plane.ports; ++o) {
      sh.stats[kTails] += plane.rx[o].publish(0, true, doorbells);
      sh.stats[kTails] += plane.tx[o].publish(0, true, doorbells);
    }
    // Every posted burst is done (run_nf_shared waited), so the NF blocks leave nothing behind.
    if (config.nf_blocks != 0) store_gpu<MemoryOrder::Relaxed>(&config.shares[blockIdx.x].stop, 1u);
  }
  __syncthreads();
  publish_counters(sh, out, chain.count, iteration);
  copy_words(&planes[blockIdx.x], &plane);
}

}  // namespace gnf::driver::bypass
