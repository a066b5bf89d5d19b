// Frame size arithmetic shared by the wire, the NIC's pacing and the reports.
#pragma once
#include <cstdint>

namespace gnf::wire {

inline constexpr uint32_t kFcsBytes = 4;
// Preamble (7) + start frame delimiter (1) + minimum inter-frame gap (12).
inline constexpr uint32_t kPreambleIfgBytes = 20;
inline constexpr uint32_t kMinFrameBytes = 60;    // 64 B on the wire with FCS
inline constexpr uint32_t kMaxStdFrameBytes = 1514;
inline constexpr uint32_t kMaxJumboFrameBytes = 9014;

// Layer-2 bytes counted in statistics: the frame plus its FCS (what the 82599's GORC/GOTC count).
constexpr uint64_t l2_bytes(uint32_t len_without_fcs) { return uint64_t(len_without_fcs) + kFcsBytes; }
// Layer-1 bytes: what the frame occupies on the line.
constexpr uint64_t l1_bytes(uint32_t len_without_fcs) { return l2_bytes(len_without_fcs) + kPreambleIfgBytes; }

}  // namespace gnf::wire
