// AES-GCM (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag, as ESP uses it (RFC 4106), for
// the GPU's ESP cipher (device_cipher.h): CTR over aes.h's block function and GHASH, host and
// device from one source, tested on the host against NIST's vectors.
//
// GHASH's Horner steps multiply by a fixed power of H with a GhashMultiplier: the product x·v
// is linear in x, so it is the XOR of 32 table entries, one per nibble of x, each entry that
// nibble's product with v already reduced (8 KiB per power, made on the host when the SA is
// loaded). A step is then 32 16-byte loads and XORs: a quarter of the instructions of Shoup's
// 4-bit tables (SP 800-38D's reference shape, OpenSSL's gcm_gmult_4bit: 256 bytes per key, but a
// 4-bit shift and a reduction per nibble), which measured 40 % slower in the GCM kernel on the
// H100 (bench/results/2026-11-25-session20). Shoup's tables stay for the one multiplication per
// lane and packet by a lane's own power of H (aes_gcm_lane), where 32 multipliers per key would
// not pay. The tables are read from global memory through L1 (they cannot live in shared memory
// beside every SA's). Why not a bitsliced (carry-less by integer multiply) GHASH: it is constant
// time, but costs several times the instructions. The lookups are indexed by the hash state, so
// GHASH shares aes.h's timing property.
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

// A 128-bit GHASH value, big-endian halves (aligned so that a table entry is one 16-byte load).
struct alignas(16) Ghash {
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

// x·v for one v: of[i][n] is v times the value whose nibble i (0 = the top one of hi) is n and
// every other nibble zero.
struct GhashMultiplier {
  Ghash of[32][16];
};

GNF_INLINE Ghash ghash_times(const GhashMultiplier& m, const Ghash& x) {
  Ghash z{0, 0};
  GNF_UNROLL_BY(8)
  for (uint32_t i = 0; i < 32; ++i) {
    const Ghash& e = m.of[i][uint32_t((i < 16 ? x.hi : x.lo) >> (60 - 4 * (i & 15))) & 0xF];
    z.hi ^= e.hi, z.lo ^= e.lo;
  }
  return z;
}

// Host side: the multiplier by the value whose Shoup table is `v`.
inline GhashMultiplier ghash_multiplier(const GhashKey& v) {
  GhashMultiplier m{};
  for (uint32_t i = 0; i < 32; ++i)
    for (uint64_t n = 0; n < 16; ++n) {
      const uint64_t at = n << (60 - 4 * (i & 15));
      m.of[i][n] = ghash_multiply(v, i < 16 ? Ghash{at, 0} : Ghash{0, at});
    }
  return m;
}

// Host side, once per key: H = E_K(0).
inline Ghash ghash_h(const AesTables& t, const AesKey& k) { return ghash_of(aes_encrypt(t, k, AesBlock{{0, 0, 0, 0}})); }

// GCM on a tile of `size` lanes (aes_gcm_lane below) steps by H^size and closes each lane's part
// with one multiplication by H^1 .. H^size: 48 KiB per key for tiles of 1 to 32 lanes. A lone lane
// steps with Shoup's table of H, so the step tables start at H^2.
inline constexpr uint32_t kGcmMaxTile = 32;
inline constexpr uint32_t kGcmTileSizes = 6;  // 1, 2, 4, .. 32
struct GhashPowers {
  GhashKey of[kGcmMaxTile];               // of[k - 1]: H^k, Shoup's table
  GhashMultiplier step[kGcmTileSizes - 1];  // step[i - 1]: H^(2^i)
};

// Which step a tile of `size` lanes (a power of two) takes.
GNF_INLINE uint32_t gcm_step_of(uint32_t size) {
  uint32_t i = 0;
  while ((1u << i) < size) ++i;
  return i;
}

inline GhashPowers ghash_powers(const AesTables& t, const AesKey& k) {
  GhashPowers out;
  Ghash power = ghash_h(t, k);
  out.of[0] = ghash_table(power);
  for (uint32_t i = 1; i < kGcmMaxTile; ++i) {
    power = ghash_multiply(out.of[0], power);
    out.of[i] = ghash_table(power);
  }
  for (uint32_t i = 1; i < kGcmTileSizes; ++i) out.step[i - 1] = ghash_multiplier(out.of[(1u << i) - 1]);
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
// Payload block `b` of `bytes` at `data`, XORed in place with `keystream` (E_K(J0 + 1 + b));
// returns what GHASH takes of it: the ciphertext, zero-padded.
GNF_INLINE AesBlock gcm_payload_block(const AesBlock& keystream, uint8_t* data, uint32_t bytes, uint32_t b, bool encrypt) {
  const uint32_t at = 16 * b, n = bytes - at < 16 ? bytes - at : 16;
  // Whole blocks without the partial helpers' byte arrays: those live in local memory on a GPU.
  const AesBlock in = n == 16 ? aes_load(data + at) : aes_load_partial(data + at, n);
  const AesBlock out = aes_xor(in, keystream);
  if (n == 16) aes_store(data + at, out);
  else aes_store_partial(data + at, out, n);
  return encrypt ? aes_truncate(out, n) : in;
}
// The lengths block: AAD and payload bits.
GNF_INLINE AesBlock gcm_lengths_block(uint32_t aad_bytes, uint32_t bytes) {
  const uint64_t aad_bits = uint64_t(aad_bytes) * 8, data_bits = uint64_t(bytes) * 8;
  return AesBlock{{uint32_t(aad_bits >> 32), uint32_t(aad_bits), uint32_t(data_bits >> 32), uint32_t(data_bits)}};
}
GNF_INLINE void ghash_xor(Ghash& into, const AesBlock& b) {
  const Ghash g = ghash_of(b);
  into.hi ^= g.hi, into.lo ^= g.lo;
}

// aes_gcm_lane's loop, for AesRoundKeys<10> or an AesKey read from memory (the choice aes.h's
// aes_with_round_keys makes, here without a lambda around the loop).
template <class Tables, class Keys>
GNF_INLINE Ghash gcm_lane_blocks(const Tables& t, const Keys& k, const GhashPowers& h, const AesBlock& j0,
                                 const uint8_t* aad, uint32_t aad_bytes, uint8_t* data, uint32_t bytes, bool encrypt,
                                 uint32_t lane, uint32_t size) {
  const uint32_t aad_blocks = (aad_bytes + 15) / 16, data_blocks = (bytes + 15) / 16;
  const uint32_t blocks = aad_blocks + data_blocks + 1;
  const uint32_t padding = (size - blocks % size) % size;
  const GhashMultiplier& step = h.step[size > 1 ? gcm_step_of(size) - 1 : 0];  // unused by a lone lane
  Ghash y{0, 0};
  AesBlock tag_mask{};  // E_K(J0), lane 0's
  bool masked = false;
  for (uint32_t j = lane; j < blocks + padding; j += size) {
    if (j >= size) y = size == 1 ? ghash_multiply(h.of[0], y) : ghash_times(step, y);
    const uint32_t i = j - padding;  // wraps for the zero blocks in front
    const bool payload = j >= padding && i >= aad_blocks && i < aad_blocks + data_blocks;
    // Lane 0's first zero block is where it encrypts J0, beside the other lanes' counter blocks:
    // one AES call site, so a tile's lanes run it together instead of one after the other.
    const bool j0_slot = j == 0 && padding > 0;
    if (payload || j0_slot) {
      AesBlock counter = j0;
      if (payload) counter.w[3] += 1 + (i - aad_blocks);
      const AesBlock keystream = aes_cipher(t, k, counter, false);
      if (payload) ghash_xor(y, gcm_payload_block(keystream, data, bytes, i - aad_blocks, encrypt));
      else tag_mask = keystream, masked = true;
    } else if (j >= padding) {
      ghash_xor(y, i < aad_blocks ? gcm_aad_block(aad, aad_bytes, i) : gcm_lengths_block(aad_bytes, bytes));
    }
  }
  Ghash share = ghash_multiply(h.of[size - 1 - lane], y);
  if (lane == 0) {
    if (!masked) tag_mask = aes_cipher(t, k, j0, false);
    ghash_xor(share, tag_mask);
  }
  return share;
}

// GCM split over a tile of `size` lanes (a power of two, 1 to kGcmMaxTile; nf/tile.cuh), lane `lane`'s
// part: the same bytes as SP 800-38D's GCM, with the counter blocks and GHASH's multiplications
// dealt out round-robin. GHASH is S = sum of X_i·H^(m-i) over the m blocks (aad, ciphertext,
// lengths). Zero blocks put in front change nothing (the state starts at zero), so with P of them
// m + P = R·size, and block j of the padded list is lane j % size's. Each lane runs Horner's rule
// with H^size over its R blocks and multiplies the result by H^(size - lane); the XOR of every
// lane's value is S, and the tag is E_K(J0) XOR S: lane 0 adds E_K(J0) to its share, computed in
// its first zero block where there is one. A lane's blocks are `size` blocks apart, so a tile's
// lanes read and write neighbouring bytes at every step. A lone lane (a thread per packet) steps
// with Shoup's table instead of the multiplier: a warp's threads then hold 32 packets of up to 32
// SAs, and 32 lookups into 32 multipliers of 8 KiB cost L1 more than Shoup's 256 bytes each
// (measured 35 % slower). Encrypts (or decrypts) the lane's payload blocks in place and returns its
// share of the tag; aes_gcm_tag turns the XOR of the shares into the tag.
template <class Tables>
GNF_INLINE Ghash aes_gcm_lane(const Tables& t, const AesKey& key, const GhashPowers& h, const uint8_t* nonce,
                              const uint8_t* aad, uint32_t aad_bytes, uint8_t* data, uint32_t bytes, bool encrypt,
                              uint32_t lane, uint32_t size) {
  const AesBlock j0 = gcm_j0(nonce);
  if (key.rounds == 10)
    return gcm_lane_blocks(t, aes_round_keys<10>(key), h, j0, aad, aad_bytes, data, bytes, encrypt, lane, size);
  return gcm_lane_blocks(t, key, h, j0, aad, aad_bytes, data, bytes, encrypt, lane, size);
}

// The tag: the XOR of every lane's aes_gcm_lane, as a block.
GNF_INLINE AesBlock aes_gcm_tag(const Ghash& shares) {
  return AesBlock{{uint32_t(shares.hi >> 32), uint32_t(shares.hi), uint32_t(shares.lo >> 32), uint32_t(shares.lo)}};
}

// Encrypts (or decrypts) `bytes` at `data` in place under `nonce` and returns the tag over `aad`
// and the ciphertext (SP 800-38D §7.1, §7.2): a tile of one lane. Open compares the tag itself, in
// constant time.
template <class Tables>
GNF_INLINE AesBlock aes_gcm(const Tables& t, const AesKey& k, const GhashPowers& h, const uint8_t* nonce,
                            const uint8_t* aad, uint32_t aad_bytes, uint8_t* data, uint32_t bytes, bool encrypt) {
  return aes_gcm_tag(aes_gcm_lane(t, k, h, nonce, aad, aad_bytes, data, bytes, encrypt, 0, 1));
}

}  // namespace gnf::nf
