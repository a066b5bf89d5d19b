// AES-GCM (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag, as ESP uses it (RFC 4106), for
// the GPU's ESP cipher (device_cipher.h): CTR over aes.h's block function and GHASH, host and
// device from one source, tested on the host against NIST's vectors.
//
// GHASH multiplies by H with Shoup's 4-bit tables (SP 800-38D's reference shape; OpenSSL's
// gcm_gmult_4bit): H·i for the 16 values of a nibble, 256 bytes per key, made on the host when the
// SA is loaded (ghash_key). A block is then 32 lookups with a 4-bit shift and XORs each, 64-bit
// operations throughout. Why not a bitsliced (carry-less by integer multiply) GHASH: it is
// constant time, but it costs about 4x the 64-bit multiplies per block, and 64-bit multiplies are
// several instructions each on a GPU; why not 8-bit tables: 4 KiB per key would not stay in L1
// next to other SAs'. The per-key table is read from global memory through L1 (it cannot live in
// shared memory beside every SA's), and the reduction constants are computed, not looked up. The
// lookups are indexed by the hash state, so GHASH shares aes.h's timing property.
#pragma once
#include <cstdint>

#include "nf/ipsec/aes.h"
#include "util/hd.h"

namespace gnf::nf {

// GHASH's key: H·i for every nibble i, as 128-bit big-endian (hi, lo) pairs.
struct GhashKey {
  uint64_t hi[16];
  uint64_t lo[16];
};

// A 128-bit GHASH value, big-endian halves.
struct Ghash {
  uint64_t hi;
  uint64_t lo;
};

GNF_INLINE Ghash ghash_of(const AesBlock& b) {
  return Ghash{uint64_t(b.w[0]) << 32 | b.w[1], uint64_t(b.w[2]) << 32 | b.w[3]};
}

// Multiplication by x^4 in GHASH's reflected field: the four bits shifted out of the low end come
// back reduced by the polynomial (OpenSSL's rem_4bit table, computed instead of looked up).
GNF_INLINE void ghash_shift4(Ghash& z) {
  const uint32_t out = uint32_t(z.lo & 0xF);
  const uint64_t reduction = ((0u - (out & 1)) & 0x1C20u) ^ ((0u - (out >> 1 & 1)) & 0x3840u) ^
                             ((0u - (out >> 2 & 1)) & 0x7080u) ^ ((0u - (out >> 3 & 1)) & 0xE100u);
  z.lo = z.hi << 60 | z.lo >> 4;
  z.hi = z.hi >> 4 ^ reduction << 48;
}

// x·H, nibble by nibble from the last byte to the first.
GNF_INLINE Ghash ghash_multiply(const GhashKey& key, const Ghash& x) {
  Ghash z{0, 0};
  for (int byte = 15; byte >= 0; --byte) {
    const uint32_t b = uint32_t((byte < 8 ? x.hi : x.lo) >> (8 * (7 - (byte & 7)))) & 0xFF;
    ghash_shift4(z);
    z.hi ^= key.hi[b & 0xF], z.lo ^= key.lo[b & 0xF];
    ghash_shift4(z);
    z.hi ^= key.hi[b >> 4], z.lo ^= key.lo[b >> 4];
  }
  return z;
}

GNF_INLINE void ghash_absorb(const GhashKey& key, Ghash& state, const AesBlock& block) {
  const Ghash b = ghash_of(block);
  state = ghash_multiply(key, Ghash{state.hi ^ b.hi, state.lo ^ b.lo});
}

// Host side, once per key: H = E_K(0) and its multiples by every nibble (H·8 is H itself in the
// reflected bit order, H·4, H·2, H·1 each one bit further; the rest are sums of those).
inline GhashKey ghash_key(const AesTables& t, const AesKey& k) {
  Ghash v = ghash_of(aes_encrypt(t, k, AesBlock{{0, 0, 0, 0}}));
  GhashKey out{};
  for (uint32_t bit = 8; bit >= 1; bit /= 2) {
    out.hi[bit] = v.hi, out.lo[bit] = v.lo;
    const uint64_t carry = v.lo & 1 ? 0xE100000000000000ull : 0;
    v.lo = v.hi << 63 | v.lo >> 1;
    v.hi = v.hi >> 1 ^ carry;
  }
  for (uint32_t i = 3; i < 16; ++i) {
    const uint32_t top = i >= 8 ? 8 : i >= 4 ? 4 : 2;
    if (i == top) continue;
    out.hi[i] = out.hi[top] ^ out.hi[i - top];
    out.lo[i] = out.lo[top] ^ out.lo[i - top];
  }
  return out;
}

// Encrypts (or decrypts) `bytes` at `data` in place under `nonce` and returns the tag over `aad`
// and the ciphertext (SP 800-38D §7.1, §7.2). Open compares the tag itself, in constant time.
GNF_INLINE AesBlock aes_gcm(const AesTables& t, const AesKey& k, const GhashKey& h, const uint8_t* nonce,
                            const uint8_t* aad, uint32_t aad_bytes, uint8_t* data, uint32_t bytes, bool encrypt) {
  Ghash state{0, 0};
  for (uint32_t at = 0; at < aad_bytes; at += 16) {
    const uint32_t n = aad_bytes - at < 16 ? aad_bytes - at : 16;
    ghash_absorb(h, state, aes_load_partial(aad + at, n));
  }
  // J0 = nonce | 1; the payload's counter blocks follow it (inc32).
  AesBlock counter{{wire::load_be32(nonce), wire::load_be32(nonce + 4), wire::load_be32(nonce + 8), 1}};
  const AesBlock tag_mask = aes_encrypt(t, k, counter);
  for (uint32_t at = 0; at < bytes; at += 16) {
    const uint32_t n = bytes - at < 16 ? bytes - at : 16;
    ++counter.w[3];
    const AesBlock in = aes_load_partial(data + at, n);
    const AesBlock out = aes_xor(in, aes_encrypt(t, k, counter));
    aes_store_partial(data + at, out, n);
    ghash_absorb(h, state, encrypt ? aes_truncate(out, n) : in);
  }
  const uint64_t aad_bits = uint64_t(aad_bytes) * 8, data_bits = uint64_t(bytes) * 8;
  ghash_absorb(h, state, AesBlock{{uint32_t(aad_bits >> 32), uint32_t(aad_bits), uint32_t(data_bits >> 32), uint32_t(data_bits)}});
  return aes_xor(tag_mask, AesBlock{{uint32_t(state.hi >> 32), uint32_t(state.hi), uint32_t(state.lo >> 32), uint32_t(state.lo)}});
}

}  // namespace gnf::nf
