// The register block of a softnic port: what a real driver reaches through the NIC's BAR0.
//
// Names follow the 82599 datasheet (section 8.2.3): per rx queue RDBAL/RDBAH/RDLEN/RDH/RDT/SRRCTL,
// per tx queue TDBAL/TDBAH/TDLEN/TDH/TDT/TXDCTL plus the head write-back address TDWBAL/TDWBAH.
// The block lives in host memory; for the GPU driver it is mapped into the GPU's address space,
// just as a real BAR would be.
//
// Every access goes through reg_read()/reg_write() below, the one audited place for their
// memory ordering:
//  - reg_write is a release store: everything the writer did before (descriptor contents) is
//    visible to whoever reads the register value with an acquire load. This is the ordering a
//    real driver gets from the wmb() before its MMIO tail write.
//  - reg_read is an acquire load, pairing with the releases above.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sync/ordering.h"

namespace gnf::nic {

inline constexpr uint32_t kMaxQueues = 64;
inline constexpr uint32_t kRetaEntries = 128;

inline constexpr uint32_t IXGBE_SRRCTL_DROP_EN = 0x10000000;  // drop when no descriptor (8.2.3.8.7)
inline constexpr uint32_t IXGBE_RXDCTL_ENABLE = 0x02000000;
inline constexpr uint32_t IXGBE_TXDCTL_ENABLE = 0x02000000;
inline constexpr uint32_t IXGBE_TDWBAL_HEAD_WB_EN = 0x1;      // head write-back enable (7.2.3.5.2)

// Each queue's registers take two cache lines: the first holds what the driver writes (the tail
// and the queue's set-up), the second what the NIC writes (the head). The driver's tail writes and
// the NIC's head writes, each once per burst from different cores (or from the GPU), never
// contend for one line.
struct alignas(64) RxQueueRegs {
  uint32_t RDBAL;   // ring base, low 32 bits
  uint32_t RDBAH;   // ring base, high 32 bits
  uint32_t RDLEN;   // ring length in bytes (descriptors * 16)
  uint32_t RDT;     // tail: one past the last descriptor the driver gave the NIC
  uint32_t SRRCTL;  // BSIZEPACKET, DROP_EN
  uint32_t RXDCTL;  // ENABLE
  alignas(64) uint32_t RDH;  // head: next descriptor the NIC fills (written by the NIC)
};
static_assert(sizeof(RxQueueRegs) == 128 && offsetof(RxQueueRegs, RDH) == 64);

struct alignas(64) TxQueueRegs {
  uint32_t TDBAL;
  uint32_t TDBAH;
  uint32_t TDLEN;
  uint32_t TDT;     // tail: one past the last descriptor the driver queued
  uint32_t TXDCTL;  // ENABLE
  uint32_t TDWBAL;  // head write-back address low (bit 0: enable)
  uint32_t TDWBAH;
  // gnf's own, not the 82599's: where a driver on the GPU also writes each TDT, in GPU memory, with
  // the time it wrote it (TailMirror), or 0. See TailMirror.
  uint32_t TDTMAL;
  uint32_t TDTMAH;
  alignas(64) uint32_t TDH;  // head: next descriptor the NIC sends (written by the NIC)
};
static_assert(sizeof(TxQueueRegs) == 128 && offsetof(TxQueueRegs, TDH) == 64);

// A tail's copy in GPU memory for the GPU agent (gpu_agent.cu), which otherwise reads TDT across
// PCIe in every round: a real NIC sees its doorbell register written, the agent has to poll for it,
// and that poll (a pinned read, 1.2 us on the H100 machine) made most of its tx round (session 22).
// The driver writes TDT as before (the posted write a real GPU driver pays) and then this copy; the
// agent takes a tail from it only once kPostedWriteNs have passed since it was written, the time
// the posted write would take to reach a NIC (half the pinned read's round trip), so that the model
// does not see a doorbell sooner than hardware would.
struct TailMirror {
  uint32_t tail;
  uint32_t written_ns;  // the low 32 bits of the GPU's global timer when it was written
};
inline constexpr uint32_t kPostedWriteNs = 600;

struct PortRegs {
  RxQueueRegs rx[kMaxQueues];
  TxQueueRegs tx[kMaxQueues];
};

inline uint32_t reg_read(const uint32_t& reg) { return load_acquire_sys(&reg); }
inline void reg_write(uint32_t& reg, uint32_t value) { store_release_sys(&reg, value); }

inline uint64_t reg_addr64(uint32_t lo, uint32_t hi) { return uint64_t(hi) << 32 | lo; }

}  // namespace gnf::nic
