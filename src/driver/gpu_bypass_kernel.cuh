// The bypass path's persistent kernel and the device-side state it works on. Included by
// gpu_bypass.cu only; split out so that the driver's data path reads top to bottom on its own.
//
// One thread block per plane q; the block serves rx queue q of every port, then, per burst:
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
#include <cuda/atomic>

#include <cstdint>

#include "driver/options.h"
#include "nf/chain.h"
#include "nic/ixgbe_desc.h"
#include "wire/stamp.h"

namespace gnf::driver::bypass {

inline constexpr uint32_t kWarpSize = 32;
inline constexpr uint32_t kNoPort = 0xFFFF;

struct DevRxRing {
  nic::ixgbe_adv_rx_desc* descs;
  uint64_t* slots;  // the slot each descriptor holds (the write-back overwrites pkt_addr)
  uint32_t entries;
  uint32_t next;
  uint32_t* rdt;         // the NIC's register, in pinned host memory
  uint32_t unpublished;  // refilled descriptors not yet handed over through RDT
  uint64_t unpublished_since_ns;
};

struct DevTxRing {
  nic::ixgbe_adv_tx_desc* descs;
  uint64_t* slots;
  uint32_t entries;
  uint32_t tail;
  uint32_t clean;        // oldest descriptor whose slot has not come back
  uint32_t* tdt;         // the NIC's registers, in pinned host memory
  uint32_t* tdh;
  uint32_t* head_wb;     // TDH written back by the NIC (TDWBAL), in GPU memory
  uint32_t unpublished;  // descriptors filled but not yet announced through TDT
  uint64_t unpublished_since_ns;
};

struct DevPool {
  uint32_t* free_stack;  // indices of free slots; [0, top) are free
  uint32_t top;
  uint32_t slot_size;
  uint32_t count;
  uint64_t base;
};

// Frames for the host's slow path, in pinned host memory: the GPU fills entries and moves `head`,
// the host copies them out and moves `tail`. Both are free-running counters.
struct DevExceptionRing {
  uint8_t* entries;  // `count` entries of `entry_bytes`: a 16-byte header (port, length), the frame
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
  uint32_t reserved;
};
static_assert(sizeof(ArrivalRecord) == 32);

struct DevPlane {
  DevRxRing rx[nf::kMaxPorts];
  DevTxRing tx[nf::kMaxPorts];
  DevPool pool[nf::kMaxPorts];
  DevExceptionRing exceptions;
  DevExceptionRing arrivals;  // entries are ArrivalRecords; none without one_way = rx
  uint32_t ports;
};

// Tail batching, as the CPU driver does it (options.h): a tail is written once `batch`
// descriptors are pending, or once the oldest pending one has waited `timeout_ns` by the GPU's
// global timer. With batch 1 every burst writes its tails.
struct KernelConfig {
  uint32_t burst;
  uint32_t rx_tail_batch;
  uint32_t tx_tail_batch;
  uint64_t tail_timeout_ns;
  TxCompletion tx_completion;
  bool tx_full_wait;
  OneWay one_way;
  const int64_t* host_minus_gpu_ns;  // GPU memory (GpuClock): host time = global timer + this
};

// What the kernel publishes per plane, in the order of GpuPlaneCounters' first fields.
// kConsumed: frames the GPU took in as a one-way sink; kUnrecorded: those of them whose arrival
// found the arrival ring full (not measured).
enum Stat {
  kRx, kTx, kNfDrops, kToHost, kToHostOverflow, kTxFull, kBadPort, kAllocFail, kTails, kConsumed, kUnrecorded, kStatCount
};

__global__ void bypass_kernel(DevPlane* planes, uint64_t* counters, uint32_t counters_stride, nf::NfChainView chain,
                              uint32_t* stop_flag, KernelConfig config);

}  // namespace gnf::driver::bypass
