// The bypass path's persistent kernel and the device-side state it works on. Included by
// gpu_bypass.cu and the kernel's builds (gpu_bypass_kernel_body.cuh); split out so that the
// driver's data path reads top to bottom on its own.
//
// One thread block per plane q (and, with nf_blocks, that many more that share its NF work: NfShare);
// the block serves rx queue q of every port, then, per burst:
//   poll   each thread checks one descriptor's DD (thread t: the t-th after `next`);
//   take   the leading run of done descriptors is the burst; each thread takes its packet and
//          refills the descriptor with a fresh slot from the ring's pool;
//   NF     each thread runs the NF chain on its packet;
//   place  forwarded packets go to tx queue q of their output port, in arrival order (a block-wide
//          prefix count gives each packet its place); drops and failures free their slot; frames for
//          the host are copied into the plane's exception ring; with one_way = rx the GPU is the
//          sink: forwarded packets are noted in the plane's arrival ring and consumed;
//   commit thread 0 advances the rings and writes RDT/TDT as the tail-batching rule allows.
// Completed tx descriptors give their slots back at the top of every round.
#pragma once
#include <cstdint>

#include "driver/options.h"
#include "driver/rings.h"
#include "mem/slot_pool.h"
#include "nf/chain.h"
#include "sync/mailbox.h"
#include "wire/stamp.h"

namespace gnf::driver::bypass {

inline constexpr uint32_t kWarpSize = 32;
inline constexpr uint32_t kNoPort = 0xFFFF;

// Frames for the host's slow path, in pinned host memory: the GPU fills entries and moves `head`,
// the host copies them out and moves `tail`. Both are free-running counters.
struct DevExceptionRing {
  uint8_t* entries;  // `count` entries of `entry_bytes`: a 16-byte header (port, length, nf::HostReason), the frame
  uint32_t* head;    // written by the GPU (release), read by the host (acquire)
  uint32_t* tail;    // written by the host (release), read by the GPU (acquire)
  uint32_t count;
  uint32_t entry_bytes;
  uint32_t head_local;  // the GPU's copy of head
  uint32_t tail_seen;   // the host's tail as last read: reading it costs a PCIe round trip
};

// One entry of the arrival ring (one_way = rx, same protocol as the exception ring): a frame the
// GPU consumed as the sink, with when it saw the frame's descriptor done, on the host's clock.
struct ArrivalRecord {
  uint64_t flow_seq;
  uint64_t send_time_ns;
  uint64_t seen_ns;
  uint32_t len;
  uint32_t agent_to_poll_ns;  // with GNF_TRACE_HANDOVERS=agent or found (util/trace.h), else 0
};
static_assert(sizeof(ArrivalRecord) == 32);

// What one block works on, in GPU memory: the refs of its rings and pools (rings.h; a QueueRings
// in GPU memory made them) and its rings to the host.
struct DevPlane {
  RxRingRef rx[nf::kMaxPorts];
  TxRingRef tx[nf::kMaxPorts];
  mem::SlotStackRef pool[nf::kMaxPorts];
  DevExceptionRing exceptions;
  DevExceptionRing arrivals;  // entries are ArrivalRecords; none without one_way = rx
  uint32_t ports;
};

// A plane's burst while the NF chain runs on it and NF blocks share the work (without them the refs
// stay in the block's shared memory: burst_refs), in GPU memory (nf/chain_device.cuh runs the chain
// over refs every thread of a block reaches); the host zeroes it before every launch. With
// nf_blocks (DriverOptions::nf_blocks), the burst is shared out: with W = 1 + nf_blocks ways,
// packet i of a burst is run by the ring's block when i % W == 0 and by NF block i % W - 1
// otherwise. The ring's block posts a burst (its refs, then `count`, then `posted`), runs its own
// share and waits until `done` says every NF block has finished; only then does it read the refs
// back and place the packets. Each word is written by one side and read by the other, and each hand-
// over is a fence and a relaxed store (or add) met by a relaxed poll and an acquire fence, at device
// scope (sync/ordering.h: polling on the GPU). The refs and the packets' bytes that the NF blocks
// rewrite are therefore seen by the ring's block, and through its doorbell fences by the NIC.
struct NfShare {
  uint32_t posted;  // bursts posted since launch
  uint32_t count;   // packets in the latest
  uint32_t stop;    // the ring's block has stopped: its NF blocks return
  uint32_t pad_[29];
  uint32_t done;    // bursts finished, summed over the NF blocks: posted * nf_blocks when all are
  uint32_t pad2_[31];
  nf::PacketRef refs[kMaxBurst];
};

// Tail batching and the tx completion mode travel in the rings' refs; the batching's timeouts
// count by the GPU's global timer.
struct KernelConfig {
  uint32_t burst;
  bool tx_full_wait;
  OneWay one_way;
  const int64_t* host_minus_gpu_ns;  // GPU memory (GpuClock): host time = global timer + this
  uint32_t planes;     // blocks 0 .. planes - 1 serve the rings; the rest are NF blocks
  uint32_t nf_blocks;  // per plane: block planes + q * nf_blocks + k is plane q's k-th
  NfShare* shares;     // per plane
  bool trace_agent;    // util/trace.h: each arrival notes the ns from the agent's traced time to the poll
};

// What the kernel publishes per plane, in the order of GpuPlaneCounters' first fields.
// kConsumed: frames the GPU took in as a one-way sink; kUnrecorded: those of them whose arrival
// found the arrival ring full (not measured).
enum Stat {
  kRx, kTx, kNfDrops, kToHost, kToHostOverflow, kTxFull, kBadPort, kAllocFail, kTails, kConsumed, kUnrecorded, kStatCount
};
// The phases of a round, published after the counters and the round count (kGpuDriverPhaseNames).
enum Phase { kReclaimPhase, kPollPhase, kTakePhase, kNfPhase, kPlacePhase, kCommitPhase, kRoundEndPhase, kPhaseCount };

// The host stops the kernel through the mailbox's stop word (the only part of it the kernel uses).
using Control = sync::Mailbox<>;

// Built for the NF kinds `kKinds`: the chain holds no other (bypass_kernel_for chooses).
template <nf::NfKindSet kKinds>
__global__ void bypass_kernel(DevPlane* planes, uint64_t* counters, uint32_t counters_stride, nf::NfChainView chain,
                              const Control* control, KernelConfig config);

using BypassKernel = void (*)(DevPlane*, uint64_t*, uint32_t, nf::NfChainView, const Control*, KernelConfig);
// The build for a chain of `kinds` (nf::kinds_of): one holding those kinds' NF code, and as little
// else as the builds there are allow (gpu_bypass_kernel.cu says which there are, and why).
BypassKernel bypass_kernel_for(nf::NfKindSet kinds);
// The build with every kind's code (gpu_bypass_kernel_all.cu).
BypassKernel bypass_kernel_with_every_kind();

}  // namespace gnf::driver::bypass
