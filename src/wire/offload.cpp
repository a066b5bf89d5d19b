#include "wire/offload.h"

#include <cstring>

#include "wire/bytes.h"
#include "wire/checksum.h"
#include "wire/frame_size.h"

namespace gnf::wire {

namespace {

constexpr uint32_t kUdpChecksumOffset = 6, kTcpChecksumOffset = 16;

}  // namespace

uint32_t pad_to_minimum(uint8_t* frame, uint32_t len) {
  if (len >= kMinFrameBytes) return len;
  std::memset(frame + len, 0, kMinFrameBytes - len);
  return kMinFrameBytes;
}

bool complete_checksum_at(uint8_t* frame, uint32_t len, uint32_t start, uint32_t offset) {
  // Only the Internet checksum's fields: SCTP's CRC32c (offset 8) is left partial the same way.
  if (offset != kUdpChecksumOffset && offset != kTcpChecksumOffset) return false;
  if (start >= len || offset > len - start || len - start - offset < 2) return false;
  uint16_t sum = checksum_finish(checksum_add(0, frame + start, len - start));
  if (offset == kUdpChecksumOffset && sum == 0) sum = 0xffff;
  store_be16(frame + start + offset, sum);
  return true;
}

}  // namespace gnf::wire
