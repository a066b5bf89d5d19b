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

// Host side: the table of a hash key `v` (H or a power of it): its multiples by every nibble (v·8
// is v itself in the reflected bit order, v·4, v·2, v·1 each one bit further; the rest are sums).
inline GhashKey ghash_table(Ghash v) {
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

// Host side, once per key: H = E_K(0).
inline Ghash ghash_h(const AesTables& t, const AesKey& k) { return ghash_of(aes_encrypt(t, k, AesBlock{{0, 0, 0, 0}})); }
// Its table.
inline GhashKey ghash_key(const AesTables& t, const AesKey& k) { return ghash_table(ghash_h(t, k)); }

// GCM on a tile of lanes (aes_gcm_lane below) multiplies by H^1 .. H^size: a table for each, 8 KiB
// per key for tiles of up to 32 lanes. of[0] is ghash_key's.
inline constexpr uint32_t kGcmMaxTile = 32;
struct GhashPowers {
  GhashKey of[kGcmMaxTile];  // of[k - 1]: H^k
};

inline GhashPowers ghash_powers(const AesTables& t, const AesKey& k) {
  GhashPowers out;
  Ghash power = ghash_h(t, k);
  out.of[0] = ghash_table(power);
  for (uint32_t i = 1; i < kGcmMaxTile; ++i) {
    power = ghash_multiply(out.of[0], power);
    out.of[i] = ghash_table(power);
  }
  return out;
}

// The blocks of SP 800-38D §7.1/§7.2, shared by aes_gcm and aes_gcm_lane.
// J0 = nonce | 1; the payload's counter blocks follow it (inc32).
GNF_INLINE AesBlock gcm_j0(const uint8_t* nonce) {
  return AesBlock{{wire::load_be32(nonce), wire::load_be32(nonce + 4), wire::load_be32(nonce + 8), 1}};
}
// AAD block `i`, zero-padded.
GNF_INLINE AesBlock gcm_aad_block(const uint8_t* aad, uint32_t aad_bytes, uint32_t i) {
  const uint32_t at = 16 * i, n = aad_bytes - at < 16 ? aad_bytes - at : 16;
  return aes_load_partial(aad + at, n);
}
// Payload block `b` of `bytes` at `data`, encrypted (or decrypted) in place with counter J0 + 1 + b;
// returns what GHASH takes of it: the ciphertext, zero-padded.
GNF_INLINE AesBlock gcm_payload_block(const AesTables& t, const AesKey& k, const AesBlock& j0, uint8_t* data,
                                      uint32_t bytes, uint32_t b, bool encrypt) {
  const uint32_t at = 16 * b, n = bytes - at < 16 ? bytes - at : 16;
  AesBlock counter = j0;
  counter.w[3] += 1 + b;
  // Whole blocks without the partial helpers' byte arrays: those live in local memory on a GPU.
  const AesBlock in = n == 16 ? aes_load(data + at) : aes_load_partial(data + at, n);
  const AesBlock out = aes_xor(in, aes_encrypt(t, k, counter));
  if (n == 16) aes_store(data + at, out);
  else aes_store_partial(data + at, out, n);
  return encrypt ? aes_truncate(out, n) : in;
}
// The lengths block: AAD and payload bits.
GNF_INLINE AesBlock gcm_lengths_block(uint32_t aad_bytes, uint32_t bytes) {
  const uint64_t aad_bits = uint64_t(aad_bytes) * 8, data_bits = uint64_t(bytes) * 8;
  return AesBlock{{uint32_t(aad_bits >> 32), uint32_t(aad_bits), uint32_t(data_bits >> 32), uint32_t(data_bits)}};
}
// The tag: E_K(J0) XOR GHASH.
GNF_INLINE AesBlock gcm_tag(const AesTables& t, const AesKey& k, const AesBlock& j0, const Ghash& s) {
  return aes_xor(aes_encrypt(t, k, j0), AesBlock{{uint32_t(s.hi >> 32), uint32_t(s.hi), uint32_t(s.lo >> 32), uint32_t(s.lo)}});
}

// Encrypts (or decrypts) `bytes` at `data` in place under `nonce` and returns the tag over `aad`
// and the ciphertext (SP 800-38D §7.1, §7.2). Open compares the tag itself, in constant time.
GNF_INLINE AesBlock aes_gcm(const AesTables& t, const AesKey& k, const GhashKey& h, const uint8_t* nonce,
                            const uint8_t* aad, uint32_t aad_bytes, uint8_t* data, uint32_t bytes, bool encrypt) {
  const AesBlock j0 = gcm_j0(nonce);
  Ghash state{0, 0};
  for (uint32_t i = 0; 16 * i < aad_bytes; ++i) ghash_absorb(h, state, gcm_aad_block(aad, aad_bytes, i));
  for (uint32_t b = 0; 16 * b < bytes; ++b) ghash_absorb(h, state, gcm_payload_block(t, k, j0, data, bytes, b, encrypt));
  ghash_absorb(h, state, gcm_lengths_block(aad_bytes, bytes));
  return gcm_tag(t, k, j0, state);
}

// GCM split over a tile of `size` lanes (1 to kGcmMaxTile; nf/tile.cuh), lane `lane`'s part: the
// same bytes as aes_gcm, with the counter blocks and GHASH's multiplications dealt out round-robin.
// GHASH is S = sum of X_i·H^(m-i) over the m blocks (aad, ciphertext, lengths). Zero blocks put in
// front change nothing (the state starts at zero), so with P of them m + P = R·size, and block j of
// the padded list is lane j % size's. Each lane runs Horner's rule with H^size over its R blocks and
// multiplies the result by H^(size - lane); the XOR of every lane's value is S. A lane's blocks
// are `size` blocks apart, so a tile's lanes read and write neighbouring bytes at every step.
// Encrypts (or decrypts) the lane's payload blocks in place and returns its part of S;
// aes_gcm_tag turns the XOR of the parts into the tag.
GNF_INLINE Ghash aes_gcm_lane(const AesTables& t, const AesKey& k, const GhashPowers& h, const uint8_t* nonce,
                              const uint8_t* aad, uint32_t aad_bytes, uint8_t* data, uint32_t bytes, bool encrypt,
                              uint32_t lane, uint32_t size) {
  const uint32_t aad_blocks = (aad_bytes + 15) / 16, data_blocks = (bytes + 15) / 16;
  const uint32_t blocks = aad_blocks + data_blocks + 1;
  const uint32_t padding = (size - blocks % size) % size;
  const GhashKey& step = h.of[size - 1];
  const AesBlock j0 = gcm_j0(nonce);
  Ghash y{0, 0};
  for (uint32_t j = lane; j < blocks + padding; j += size) {
    if (j >= size) y = ghash_multiply(step, y);
    if (j < padding) continue;
    const uint32_t i = j - padding;
    const Ghash g = ghash_of(i < aad_blocks                ? gcm_aad_block(aad, aad_bytes, i)
                             : i < aad_blocks + data_blocks ? gcm_payload_block(t, k, j0, data, bytes, i - aad_blocks, encrypt)
                                                            : gcm_lengths_block(aad_bytes, bytes));
    y.hi ^= g.hi, y.lo ^= g.lo;
  }
  return ghash_multiply(h.of[size - 1 - lane], y);
}

// The tag from S, the XOR of every lane's aes_gcm_lane.
GNF_INLINE AesBlock aes_gcm_tag(const AesTables& t, const AesKey& k, const uint8_t* nonce, const Ghash& s) {
  return gcm_tag(t, k, gcm_j0(nonce), s);
}

}  // namespace gnf::nf
