// The port's on-NIC receive packet buffer (the 82599 has 512 KiB per port, section 7.1.3).
//
// Frames that arrive from the wire wait here until the DMA engine can place them into an rx
// descriptor's buffer. When the driver does not supply descriptors fast enough the buffer fills,
// and further arrivals are dropped and counted as missed packets (MPC): overload shows up at the
// NIC, where a real port shows it.
//
// Capacity is accounted in frame bytes (with FCS) against the configured size; storage is a byte
// ring sized so that record headers and wrap-around never make it refuse a frame that fits.
// One thread (the NIC model's) uses it.
#pragma once
#include <cstdint>
#include <vector>

namespace gnf::nic {

struct RxRecord {
  uint32_t len;          // frame bytes (without FCS)
  uint16_t queue;        // rx queue chosen by RSS at arrival
  uint16_t rss_type;     // IXGBE_RXDADV_RSSTYPE_*
  uint32_t rss_hash;
  uint32_t reserved;
  uint64_t arrival_ns;   // when the last bit arrived
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(this + 1); }
};
static_assert(sizeof(RxRecord) == 24);

class RxPacketBuffer {
 public:
  RxPacketBuffer(uint32_t capacity_bytes, uint32_t max_frame_bytes);

  // Whether a frame of `len` bytes (without FCS) fits in the remaining capacity now.
  bool fits(uint32_t len) const;
  // Stores a frame; false (nothing stored) when it does not fit in the remaining capacity.
  bool push(const RxRecord& meta, const uint8_t* data);
  const RxRecord* front() const { return frames_ ? reinterpret_cast<const RxRecord*>(&storage_[head_]) : nullptr; }
  void pop();

  uint32_t frames() const { return frames_; }
  uint64_t used_bytes() const { return used_bytes_; }
  uint32_t capacity_bytes() const { return capacity_; }

 private:
  static uint64_t record_bytes(uint32_t len) { return (sizeof(RxRecord) + len + 7) & ~uint64_t(7); }

  uint32_t capacity_;
  std::vector<uint8_t> storage_;
  uint64_t head_ = 0;  // offset of the oldest record
  uint64_t tail_ = 0;  // offset where the next record goes
  uint64_t wrap_at_ = 0;  // where the record before a wrap ended (head jumps to 0 there)
  uint64_t used_bytes_ = 0;
  uint32_t frames_ = 0;
};

}  // namespace gnf::nic
