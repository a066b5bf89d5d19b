// The NIC's DMA engine: the only code that moves bytes between the NIC and the memory that rings
// and packet slots live in. It counts what crosses the bus per direction, so the papers' argument
// about how many times a packet crosses PCIe can be shown, not only told.
//
// Ordering contract (what a real NIC guarantees through PCIe's posted-write ordering):
//  - rx: the packet bytes are visible before the write-back that announces them; the status word
//    (DD) of a write-back is published last, with release semantics, so a driver that sees DD with
//    an acquire load also sees the length, the hash and the packet.
//  - tx: the driver publishes descriptors with a release write of TDT; the NIC reads TDT with an
//    acquire load (regs.h) and only then reads the descriptors and packets it covers.
#pragma once
#include <cstdint>

#include "nic/ixgbe_desc.h"
#include "util/counter.h"

namespace gnf::nic {

// `T` is Counter for the engine's live counters, uint64_t for a snapshot of them (util/counter.h).
template <typename T>
struct DmaCountersOf {
  T packet_bytes_to_memory{};    // NIC -> memory: received packets
  T packet_bytes_from_memory{};  // memory -> NIC: transmitted packets
  T desc_bytes_to_memory{};      // write-backs (rx and tx) and head write-backs
  T desc_bytes_from_memory{};    // descriptor fetches
  // How the engine worked, to tell where the NIC model's time goes: write batches issued (one
  // per flush with anything queued) and the copies in them, read batches (each one waited for),
  // and the time spent waiting, for reads and for staging to come free.
  T write_batches{};
  T write_copies{};
  T read_batches{};
  T read_wait_ns{};
  T write_wait_ns{};

  // Named as the JSON summary names them: bytes over the bus in a port's dma_bytes (both engines
  // together), the engine's work as a diagnostic in its nic_model (each engine apart).
  static constexpr CounterField<DmaCountersOf, T> kFields[] = {
      {"packets_to_memory", &DmaCountersOf::packet_bytes_to_memory},
      {"packets_from_memory", &DmaCountersOf::packet_bytes_from_memory},
      {"descriptors_to_memory", &DmaCountersOf::desc_bytes_to_memory},
      {"descriptors_from_memory", &DmaCountersOf::desc_bytes_from_memory},
      {"write_batches", &DmaCountersOf::write_batches, Role::Diagnostic},
      {"write_copies", &DmaCountersOf::write_copies, Role::Diagnostic},
      {"read_batches", &DmaCountersOf::read_batches, Role::Diagnostic},
      {"read_wait_ns", &DmaCountersOf::read_wait_ns, Role::Diagnostic},
      {"write_wait_ns", &DmaCountersOf::write_wait_ns, Role::Diagnostic},
  };
};
static_assert(std::size(DmaCountersOf<Counter>::kFields) * sizeof(Counter) == sizeof(DmaCountersOf<Counter>),
              "every DMA counter has a line in the table");
using DmaCounters = DmaCountersOf<Counter>;
using DmaCounterValues = DmaCountersOf<uint64_t>;

struct PacketRead {
  uint8_t* dst;
  uint64_t src;
  uint32_t len;
};

// `count` consecutive 16-byte descriptors from `first_desc_addr` (a real NIC prefetches
// descriptors in bursts).
struct DescRead {
  void* dst;
  uint64_t first_desc_addr;
  uint32_t count;
};

class DmaEngine {
 public:
  virtual ~DmaEngine() = default;

  // Writes may be queued: the engine copies `src` before returning. flush() sends every queued
  // write on its way; writes land in issue order (a later flush's writes after an earlier one's),
  // as PCIe posted writes do, but flush() need not wait for them to land. Reads are answered
  // before they return and see every write flushed before them.
  virtual void write_packet(uint64_t dst, const uint8_t* src, uint32_t len) = 0;
  virtual void read_packets(const PacketRead* reads, uint32_t count) = 0;
  // All `count` reads are issued together, as a NIC keeps several descriptor fetches outstanding.
  virtual void read_descs(const DescRead* reads, uint32_t count) = 0;
  // Writes the write-back format over an rx descriptor; status_error (DD) goes last, released.
  virtual void write_rx_writeback(uint64_t desc_addr, const ixgbe_adv_rx_desc& wb) = 0;
  // Sets DD in a tx descriptor's write-back status word, released.
  virtual void write_tx_writeback(uint64_t desc_addr) = 0;
  // Writes a 32-bit value (tx head write-back), released.
  virtual void write_u32(uint64_t addr, uint32_t value) = 0;
  virtual void flush() {}
  // Ends whatever the engine runs on its own (a GPU engine's persistent block); no call follows
  // but destruction. Every GPU engine must be stopped before GPU memory is freed anywhere, since
  // freeing waits for the whole device.
  virtual void stop() {}

  const DmaCounters& counters() const { return counters_; }

 protected:
  DmaCounters counters_;
};

// DMA into ordinary host memory: memcpy plus release stores. On the cpu path this is the whole cost
// of "DMA", which favours the CPU baseline over any path whose memory sits behind PCIe.
class HostDma final : public DmaEngine {
 public:
  void write_packet(uint64_t dst, const uint8_t* src, uint32_t len) override;
  void read_packets(const PacketRead* reads, uint32_t count) override;
  void read_descs(const DescRead* reads, uint32_t count) override;
  void write_rx_writeback(uint64_t desc_addr, const ixgbe_adv_rx_desc& wb) override;
  void write_tx_writeback(uint64_t desc_addr) override;
  void write_u32(uint64_t addr, uint32_t value) override;
};

}  // namespace gnf::nic
