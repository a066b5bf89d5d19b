#include "wire/stamp.h"

namespace gnf::wire {

std::optional<Stamp> decode_stamp(const uint8_t* frame, uint32_t len) {
  const StampPlace place = find_stamp(frame, len);
  if (place.offset == 0) return std::nullopt;
  const uint8_t* p = frame + place.offset;
  Stamp s{load_le64(p), load_le64(p + 8), 0};
  if (load_le16(p + 16) == kStampMagicDeparted) {
    if (place.room < kStampBytes + kDepartureBytes) return std::nullopt;
    s.departure_ns = load_le64(p + kStampBytes);
  }
  return s;
}

}  // namespace gnf::wire
