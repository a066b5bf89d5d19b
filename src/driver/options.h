#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gnf::driver {

// How the driver learns that the NIC is done with a tx descriptor (82599 section 7.2.3.5).
enum class TxCompletion : uint8_t {
  Auto,           // the path's own choice: DescWriteback on the cpu and staged paths (DPDK ixgbe's
                  // way), HeadWriteback on bypass (one 4-byte write per burst into GPU memory)
  HeadRegister,   // read TDH (on hardware an MMIO read across PCIe; here a register load)
  HeadWriteback,  // the NIC writes TDH into memory the driver polls (TDWBAL/TDWBAH)
  DescWriteback,  // the NIC sets DD in each descriptor sent with RS: write-back flow control
  None,           // bypass only: no completion at all. The driver reuses a descriptor when the ring
                  // comes round, trusting the NIC to have sent it; a NIC slower than the driver
                  // then loses and reorders packets (the FPGA paper's ring overrun, SEEDS.md 2)
};

// How the staged path gets a burst to the GPU and back (gpu_nf_runner.h).
enum class StagedMode : uint8_t { ZeroCopy, Copy, Persistent };

// One-way measurements on the bypass path (the FPGA paper's scenario 4, SEEDS.md 2): which side
// of the GPU is timed. Rx: the GPU is the sink; it notes when it saw each frame (its global timer
// on the host's clock, gpu_clock.h) and consumes the frame instead of sending it. Tx: the GPU
// writes the time it hands each frame to the NIC into the frame's stamp, and the wire's sink
// times the frame from there.
enum class OneWay : uint8_t { Off, Rx, Tx };

// Packets per rx burst at most: the bypass kernel gives each packet of a burst a thread of one
// block, and a block has at most 1024 threads.
inline constexpr uint32_t kMaxBurst = 1024;

struct DriverOptions {
  uint32_t rx_ring_size = 512;  // descriptors; a multiple of 8 (RDLEN must be a multiple of 128 B)
  uint32_t tx_ring_size = 512;
  uint32_t burst = 32;          // packets per rx burst, at most kMaxBurst
  uint32_t slot_size = 2048;    // bytes the NIC may write per packet; a multiple of 1 KiB (SRRCTL.BSIZEPACKET)
  // Bytes of each slot before the frame (DPDK's RTE_PKTMBUF_HEADROOM): rx descriptors point past
  // them, so an NF can put a header in front of a frame (a tunnel's) without moving it. A slot is
  // headroom + slot_size bytes, as an mbuf is headroom + data room: inside a slot of slot_size the
  // NIC's buffer, counted in whole KiB, would be 1 KiB short of a standard frame's.
  uint32_t headroom = 128;
  uint32_t pool_slots = 0;      // slots per rx ring's pool; 0 = rx ring + tx ring + 2 bursts
  // Tail batching: RDT/TDT are written once this many descriptors are pending, or once the oldest
  // pending one has waited tail_timeout_ns. 1 = every burst (DPDK's behaviour).
  uint32_t rx_tail_batch = 1;
  uint32_t tx_tail_batch = 1;
  uint64_t tail_timeout_ns = 2500;
  TxCompletion tx_completion = TxCompletion::Auto;
  // SRRCTL.DROP_EN for every rx queue: a queue without descriptors drops (and counts) its own
  // packets instead of stalling the whole port.
  bool drop_en = true;
  // A forwarded packet that finds its tx ring full: dropped and counted (DPDK's usual tx_burst
  // handling), or held until the NIC frees room (lossless; the rx side backs up instead).
  bool tx_full_wait = false;
  // The staged path: how bursts reach the GPU, and how many may be on the GPU at once per plane
  // (the driver receives the next bursts meanwhile; they complete in order).
  StagedMode staged_mode = StagedMode::ZeroCopy;
  uint32_t staged_depth = 4;
  OneWay one_way = OneWay::Off;
  // The bypass path: thread blocks per queue beside the ring's own that share each burst's NF work
  // (a thread per packet in every block), so that an NF heavier than a queue's one SM can carry
  // (ipsec, nids) runs on 1 + nf_blocks SMs per queue. 0: the ring's block runs the NF alone.
  uint32_t nf_blocks = 0;

  uint32_t slot_bytes() const { return headroom + slot_size; }
  uint32_t slots_per_pool() const { return pool_slots ? pool_slots : rx_ring_size + tx_ring_size + 2 * burst; }
  uint64_t pool_bytes() const { return uint64_t(slots_per_pool()) * slot_bytes(); }
  // A pool spans less than 4 GiB: a slot that comes back is found by its 32-bit offset from the
  // pool's base (mem::SlotStackRef::release). "" if these options keep to that, else what is
  // wrong; ctl::validate refuses a config with the problem, so that QueueRings never meets one.
  std::string pool_problem() const;
  // These options with Auto resolved for a path whose driver runs on the GPU or not.
  DriverOptions resolved(bool gpu_driver) const {
    DriverOptions o = *this;
    if (o.tx_completion == TxCompletion::Auto)
      o.tx_completion = gpu_driver ? TxCompletion::HeadWriteback : TxCompletion::DescWriteback;
    return o;
  }
};

// The names config files, command lines and JSON use (tx_completion = "head-writeback", ...), one
// table for all (util/name_table.h): *_names() in the order users are shown them; *_from_name()
// takes one of those names (std::invalid_argument for anything else: callers check first).
const char* tx_completion_name(TxCompletion c);
TxCompletion tx_completion_from_name(const std::string& name);
std::vector<std::string> tx_completion_names();
const char* staged_mode_name(StagedMode m);
StagedMode staged_mode_from_name(const std::string& name);
std::vector<std::string> staged_mode_names();
const char* one_way_name(OneWay w);
OneWay one_way_from_name(const std::string& name);
std::vector<std::string> one_way_names();
// tx_full_wait: "drop" (false) or "wait" (true).
const char* tx_full_name(bool wait);
bool tx_full_wait_from_name(const std::string& name);
std::vector<std::string> tx_full_names();

}  // namespace gnf::driver
