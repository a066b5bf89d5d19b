// SHA-1 (FIPS 180-4 §6.1) and HMAC-SHA1 (RFC 2104) for the GPU's ESP cipher (device_cipher.h),
// host and device from one source, tested on the host against NIST's and RFC 2202's vectors.
//
// HMAC's two keyed blocks (key ^ ipad, key ^ opad) are compressed once per SA, on the host, and
// kept as midstates (HmacSha1Key): a packet then costs the compressions of its own bytes plus one
// for the outer hash, not two more. SHA-1 has no tables, so nothing here depends on data timing.
#pragma once
#include <cstdint>
#include <initializer_list>

#include "util/hd.h"
#include "util/unroll.h"
#include "wire/bytes.h"

namespace gnf::nf {

inline constexpr uint32_t kSha1BlockBytes = 64;
inline constexpr uint32_t kSha1DigestBytes = 20;

GNF_INLINE uint32_t sha1_rol(uint32_t x, uint32_t bits) { return x << bits | x >> (32 - bits); }

GNF_INLINE void sha1_compress(uint32_t h[5], const uint8_t* block) {
  uint32_t w[16];
  GNF_UNROLL
  for (int i = 0; i < 16; ++i) w[i] = wire::load_be32(block + 4 * i);
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  GNF_UNROLL
  for (int i = 0; i < 80; ++i) {
    if (i >= 16) w[i & 15] = sha1_rol(w[(i - 3) & 15] ^ w[(i - 8) & 15] ^ w[(i - 14) & 15] ^ w[i & 15], 1);
    const uint32_t f = i < 20 ? (b & c) | (~b & d) : i < 40 ? b ^ c ^ d : i < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
    const uint32_t k = i < 20 ? 0x5A827999u : i < 40 ? 0x6ED9EBA1u : i < 60 ? 0x8F1BBCDCu : 0xCA62C1D6u;
    const uint32_t next = sha1_rol(a, 5) + f + e + k + w[i & 15];
    e = d, d = c, c = sha1_rol(b, 30), b = a, a = next;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

// A hash in progress: whole blocks are compressed straight from the input, only a block's
// remainder is buffered.
struct Sha1 {
  uint32_t h[5];
  uint64_t bytes;  // hashed so far, the keyed block of a midstate included
  uint32_t fill;   // bytes in `buffer`
  uint8_t buffer[kSha1BlockBytes];
};

GNF_INLINE void sha1_start(Sha1& s) {
  s.h[0] = 0x67452301u, s.h[1] = 0xEFCDAB89u, s.h[2] = 0x98BADCFEu, s.h[3] = 0x10325476u, s.h[4] = 0xC3D2E1F0u;
  s.bytes = 0;
  s.fill = 0;
}

// From a midstate: `h` after one compressed block.
GNF_INLINE void sha1_resume(Sha1& s, const uint32_t h[5]) {
  for (int i = 0; i < 5; ++i) s.h[i] = h[i];
  s.bytes = kSha1BlockBytes;
  s.fill = 0;
}

GNF_INLINE void sha1_update(Sha1& s, const uint8_t* data, uint32_t n) {
  s.bytes += n;
  while (n > 0) {
    if (s.fill == 0 && n >= kSha1BlockBytes) {
      sha1_compress(s.h, data);
      data += kSha1BlockBytes, n -= kSha1BlockBytes;
      continue;
    }
    const uint32_t take = n < kSha1BlockBytes - s.fill ? n : kSha1BlockBytes - s.fill;
    for (uint32_t i = 0; i < take; ++i) s.buffer[s.fill + i] = data[i];
    s.fill += take, data += take, n -= take;
    if (s.fill == kSha1BlockBytes) {
      sha1_compress(s.h, s.buffer);
      s.fill = 0;
    }
  }
}

// FIPS 180-4 §5.1.1: 0x80, zeros, and the message's length in bits in the last 8 bytes.
GNF_INLINE void sha1_finish(Sha1& s, uint8_t digest[kSha1DigestBytes]) {
  const uint64_t bits = s.bytes * 8;
  s.buffer[s.fill++] = 0x80;
  if (s.fill > kSha1BlockBytes - 8) {
    while (s.fill < kSha1BlockBytes) s.buffer[s.fill++] = 0;
    sha1_compress(s.h, s.buffer);
    s.fill = 0;
  }
  while (s.fill < kSha1BlockBytes - 8) s.buffer[s.fill++] = 0;
  wire::store_be32(s.buffer + 56, uint32_t(bits >> 32));
  wire::store_be32(s.buffer + 60, uint32_t(bits));
  sha1_compress(s.h, s.buffer);
  for (int i = 0; i < 5; ++i) wire::store_be32(digest + 4 * i, s.h[i]);
}

// HMAC-SHA1's key as the states after its ipad and opad blocks.
struct HmacSha1Key {
  uint32_t inner[5];
  uint32_t outer[5];
};

// RFC 2104 §2: a key longer than a block is hashed first. Host side, once per SA.
inline HmacSha1Key hmac_sha1_key(const uint8_t* key, uint32_t key_bytes) {
  uint8_t block[kSha1BlockBytes] = {};
  if (key_bytes > kSha1BlockBytes) {
    Sha1 s;
    sha1_start(s);
    sha1_update(s, key, key_bytes);
    sha1_finish(s, block);
  } else {
    for (uint32_t i = 0; i < key_bytes; ++i) block[i] = key[i];
  }
  HmacSha1Key out;
  for (const bool inner : {true, false}) {
    uint8_t padded[kSha1BlockBytes];
    for (uint32_t i = 0; i < kSha1BlockBytes; ++i) padded[i] = block[i] ^ (inner ? 0x36 : 0x5C);
    Sha1 s;
    sha1_start(s);
    sha1_compress(s.h, padded);
    for (int i = 0; i < 5; ++i) (inner ? out.inner : out.outer)[i] = s.h[i];
  }
  return out;
}

// HMAC-SHA1 over `data` then `extra` (ESN's high sequence bits; extra_bytes may be 0).
GNF_INLINE void hmac_sha1(const HmacSha1Key& key, const uint8_t* data, uint32_t bytes, const uint8_t* extra,
                          uint32_t extra_bytes, uint8_t digest[kSha1DigestBytes]) {
  Sha1 s;
  sha1_resume(s, key.inner);
  sha1_update(s, data, bytes);
  sha1_update(s, extra, extra_bytes);
  uint8_t inner[kSha1DigestBytes];
  sha1_finish(s, inner);
  sha1_resume(s, key.outer);
  sha1_update(s, inner, kSha1DigestBytes);
  sha1_finish(s, digest);
}

}  // namespace gnf::nf
