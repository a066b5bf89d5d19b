// Unaligned loads and stores in network (big-endian) and little-endian byte order.
//
// Written with shifts rather than casts so that they are correct on any host and never read
// through a misaligned pointer; compilers turn them into single moves (plus bswap where needed).
#pragma once
#include <cstdint>

#include "util/hd.h"

namespace gnf::wire {

GNF_INLINE uint16_t load_be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }

GNF_INLINE void store_be16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}

GNF_INLINE uint32_t load_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

GNF_INLINE void store_be32(uint8_t* p, uint32_t v) {
  for (int i = 3; i >= 0; --i, v >>= 8) p[i] = uint8_t(v);
}

GNF_INLINE uint16_t load_le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

GNF_INLINE void store_le16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}

GNF_INLINE uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

GNF_INLINE void store_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i, v >>= 8) p[i] = uint8_t(v);
}

}  // namespace gnf::wire
