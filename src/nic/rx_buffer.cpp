#include "nic/rx_buffer.h"

#include <cstring>

#include "wire/frame_size.h"

namespace gnf::nic {

RxPacketBuffer::RxPacketBuffer(uint32_t capacity_bytes, uint32_t max_frame_bytes) : capacity_(capacity_bytes) {
  // Worst case: minimum-size frames, each carrying a 24-byte header (< 0.5x overhead), plus one
  // maximum record lost at the wrap point and one more to tell full from empty.
  storage_.resize(capacity_bytes * 2ull + 2 * record_bytes(max_frame_bytes) + 64);
}

bool RxPacketBuffer::fits(uint32_t len) const { return used_bytes_ + wire::l2_bytes(len) <= capacity_; }

bool RxPacketBuffer::push(const RxRecord& meta, const uint8_t* data) {
  uint64_t l2 = wire::l2_bytes(meta.len);
  if (!fits(meta.len)) return false;
  uint64_t need = record_bytes(meta.len);
  if (frames_ == 0) head_ = tail_ = 0;
  if (tail_ >= head_ && tail_ + need > storage_.size()) {
    wrap_at_ = tail_;
    tail_ = 0;
  }
  auto* rec = reinterpret_cast<RxRecord*>(&storage_[tail_]);
  *rec = meta;
  std::memcpy(rec + 1, data, meta.len);
  tail_ += need;
  used_bytes_ += l2;
  ++frames_;
  return true;
}

void RxPacketBuffer::pop() {
  const RxRecord* rec = front();
  used_bytes_ -= wire::l2_bytes(rec->len);
  head_ += record_bytes(rec->len);
  --frames_;
  if (frames_ != 0 && head_ == wrap_at_ && tail_ < head_) head_ = 0;
}

}  // namespace gnf::nic
