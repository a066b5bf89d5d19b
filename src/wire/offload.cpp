#include "wire/offload.h"

#include <cstring>

#include "wire/bytes.h"
#include "wire/checksum.h"
#include "wire/frame_size.h"

namespace gnf::wire {

namespace {

constexpr uint16_t kEtherIpv4 = 0x0800, kEtherIpv6 = 0x86dd, kEtherVlan = 0x8100, kEtherQinQ = 0x88a8;
constexpr uint8_t kProtoTcp = 6, kProtoUdp = 17;

}  // namespace

uint32_t pad_to_minimum(uint8_t* frame, uint32_t len) {
  if (len >= kMinFrameBytes) return len;
  std::memset(frame + len, 0, kMinFrameBytes - len);
  return kMinFrameBytes;
}

bool complete_l4_checksum(uint8_t* frame, uint32_t len) {
  uint32_t l3 = 14;
  if (len < l3) return false;
  uint16_t type = load_be16(frame + 12);
  if (type == kEtherVlan || type == kEtherQinQ) {
    l3 += 4;
    if (len < l3) return false;
    type = load_be16(frame + l3 - 2);
  }
  uint8_t proto = 0;
  uint32_t l4 = 0, l4_len = 0;
  if (type == kEtherIpv4 && len >= l3 + 20) {
    uint32_t ihl = (frame[l3] & 0x0f) * 4u;
    uint32_t total = load_be16(frame + l3 + 2);
    if (ihl < 20 || total < ihl || len < l3 + total) return false;
    proto = frame[l3 + 9];
    l4 = l3 + ihl;
    l4_len = total - ihl;
  } else if (type == kEtherIpv6 && len >= l3 + 40) {
    proto = frame[l3 + 6];
    l4 = l3 + 40;
    l4_len = load_be16(frame + l3 + 4);
    if (len < l4 + l4_len) return false;
  } else {
    return false;
  }
  uint32_t field = proto == kProtoTcp ? 16 : proto == kProtoUdp ? 6 : 0;
  if (!field || l4_len < field + 2) return false;
  // The field already holds the pseudo-header's sum, so the sum over the segment as it stands is
  // the whole checksum (RFC 768, RFC 9293): the hardware's job, done here.
  uint16_t sum = checksum_finish(checksum_add(0, frame + l4, l4_len));
  if (proto == kProtoUdp && sum == 0) sum = 0xffff;  // 0 means "no checksum" in UDP over IPv4
  store_be16(frame + l4 + field, sum);
  return true;
}

}  // namespace gnf::wire
