// Unaligned loads and stores in network (big-endian) and little-endian byte order.
//
// Never through a misaligned pointer: on the host a memcpy of the width (one move) and a byte
// swap where the order needs it, as the NIC model and the sinks do this for every frame; on the
// GPU, where a misaligned access faults, 32-bit words go as one access where the address allows,
// as two 16-bit ones at an even address (the NFs' headers and ESP payloads sit at 2-byte
// offsets: a frame starts at an aligned slot offset, and 14 B of Ethernet follow), else byte by
// byte. Cipher loops load every payload word this way: a quarter or half the load instructions.
#pragma once
#include <cstdint>
#include <cstring>

#include "util/hd.h"

namespace gnf::wire {

#if defined(__CUDA_ARCH__)
#define GNF_BYTES_DEVICE 1
#else
#define GNF_BYTES_DEVICE 0
#endif

GNF_INLINE uint16_t load_be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }

GNF_INLINE void store_be16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}

GNF_INLINE uint32_t load_be32(const uint8_t* p) {
#if GNF_BYTES_DEVICE
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  uint32_t le;  // the four bytes as a little-endian word
  if ((at & 3) == 0) {
    le = *reinterpret_cast<const uint32_t*>(p);
  } else if ((at & 1) == 0) {
    const uint16_t* half = reinterpret_cast<const uint16_t*>(p);
    le = uint32_t(half[0]) | uint32_t(half[1]) << 16;
  } else {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
  }
  return __byte_perm(le, 0, 0x0123);
#else
  uint32_t v;
  std::memcpy(&v, p, 4);
  return __builtin_bswap32(v);
#endif
}

GNF_INLINE void store_be32(uint8_t* p, uint32_t v) {
#if GNF_BYTES_DEVICE
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  const uint32_t le = __byte_perm(v, 0, 0x0123);
  if ((at & 3) == 0) {
    *reinterpret_cast<uint32_t*>(p) = le;
  } else if ((at & 1) == 0) {
    uint16_t* half = reinterpret_cast<uint16_t*>(p);
    half[0] = uint16_t(le);
    half[1] = uint16_t(le >> 16);
  } else {
    for (int i = 3; i >= 0; --i, v >>= 8) p[i] = uint8_t(v);
  }
#else
  v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
#endif
}

GNF_INLINE uint16_t load_le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

GNF_INLINE void store_le16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the host loads below assume a little-endian host");

GNF_INLINE uint64_t load_le64(const uint8_t* p) {
#if GNF_BYTES_DEVICE
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
#else
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
#endif
}

GNF_INLINE void store_le64(uint8_t* p, uint64_t v) {
#if GNF_BYTES_DEVICE
  for (int i = 0; i < 8; ++i, v >>= 8) p[i] = uint8_t(v);
#else
  std::memcpy(p, &v, 8);
#endif
}

#undef GNF_BYTES_DEVICE

}  // namespace gnf::wire
