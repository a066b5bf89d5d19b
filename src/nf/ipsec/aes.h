// AES (FIPS 197) for the GPU's ESP cipher (device_cipher.h), host and device from one source: the
// host keys it and tests it against NIST's vectors, kernels run the very same inline functions.
// The CPU path never uses it: it has OpenSSL (openssl_primitives.h says why).
//
// The shape is the classic 32-bit T-table one (Daemen and Rijmen §5.2, OpenSSL's aes_core.c): a
// round is 16 table lookups, 12 rotations and 16 XORs per block. One table per direction (`te`,
// `td`); the other three columns' tables are its byte rotations, so the tables are 2.25 KiB, not
// 8.25. The rounds are templates over how the tables are read (`enc`, `dec`, `inv` of a state
// word's byte): AesTables itself on the host and, by address (AesTablesAt), in global memory
// through L1 where the NF runs inside the drivers' kernels; in the cipher's own kernels a copy per
// shared-memory bank (aes_lanes.cuh: conflict-free, 1.8x the flat tables' speed on the H100). Not
// __constant__: the constant cache serves one address per warp per cycle and serialises the rest,
// and the 32 lanes of a warp each look up a different byte, the pattern it is worst at.
//
// Known property, not a defect of this code alone: table lookups indexed by key-dependent bytes
// leak through timing (Bernstein 2005; on GPUs through shared-memory bank conflicts, Jiang et al.
// 2016, "A complete key recovery timing attack on a GPU"). An attacker who can time the GPU's
// work for chosen packets, or share the GPU, could recover keys. A bitsliced AES would close it
// at a higher cost per block; gnf's threat model (a dedicated GPU in a gateway) accepts it.
#pragma once
#include <cstdint>

#include "util/hd.h"
#include "util/unroll.h"
#include "wire/bytes.h"

namespace gnf::nf {

inline constexpr uint32_t kAesMaxRounds = 14;

struct AesTables {
  uint32_t te[256];        // S[x]·(2, 1, 1, 3) as a big-endian column; S[x] itself is byte 2
  uint32_t td[256];        // Si[x]·(14, 9, 13, 11)
  uint8_t inv_sbox[256];   // Si, for decryption's last round

  // The three lookups a round makes, each at byte k (0 = the low one) of a state word: the shape
  // every table layout gives the rounds below (aes_lanes.cuh is the GPU's shared-memory one).
  GNF_INLINE uint32_t enc(uint32_t word, uint32_t k) const { return te[(word >> 8 * k) & 0xFF]; }
  GNF_INLINE uint32_t dec(uint32_t word, uint32_t k) const { return td[(word >> 8 * k) & 0xFF]; }
  GNF_INLINE uint32_t inv(uint32_t word, uint32_t k) const { return inv_sbox[(word >> 8 * k) & 0xFF]; }
};

// The tables by address: how a kernel passes tables in global memory (by value, trivially copyable).
struct AesTablesAt {
  const AesTables* at;
  GNF_INLINE uint32_t enc(uint32_t word, uint32_t k) const { return at->enc(word, k); }
  GNF_INLINE uint32_t dec(uint32_t word, uint32_t k) const { return at->dec(word, k); }
  GNF_INLINE uint32_t inv(uint32_t word, uint32_t k) const { return at->inv(word, k); }
};

// Round keys as big-endian words; for decryption those of the equivalent inverse cipher (FIPS 197 §5.3.5).
struct AesKey {
  uint32_t rounds;  // 10, 12 or 14
  uint32_t words[4 * (kAesMaxRounds + 1)];
};

// The tables, made once from GF(2^8) arithmetic (not typed in): host memory.
const AesTables& aes_tables();
// Key expansion (FIPS 197 §5.2); false unless key_bytes is 16, 24 or 32.
bool aes_encryption_key(const uint8_t* key, uint32_t key_bytes, AesKey& out);
// The decryption schedule of an encryption one.
AesKey aes_decryption_key(const AesKey& encryption);

// One 16-byte block as four big-endian words.
struct AesBlock {
  uint32_t w[4];
};

GNF_INLINE AesBlock aes_load(const uint8_t* p) {
  return AesBlock{{wire::load_be32(p), wire::load_be32(p + 4), wire::load_be32(p + 8), wire::load_be32(p + 12)}};
}
GNF_INLINE void aes_store(uint8_t* p, const AesBlock& b) {
  for (int i = 0; i < 4; ++i) wire::store_be32(p + 4 * i, b.w[i]);
}
// The first `bytes` (at most 16) of a block, zero-padded; and its first `bytes` stored.
GNF_INLINE AesBlock aes_load_partial(const uint8_t* p, uint32_t bytes) {
  uint8_t full[16] = {};
  for (uint32_t i = 0; i < bytes; ++i) full[i] = p[i];
  return aes_load(full);
}
GNF_INLINE void aes_store_partial(uint8_t* p, const AesBlock& b, uint32_t bytes) {
  uint8_t full[16];
  aes_store(full, b);
  for (uint32_t i = 0; i < bytes; ++i) p[i] = full[i];
}
// The block with its bytes from `bytes` on zeroed.
GNF_INLINE AesBlock aes_truncate(const AesBlock& b, uint32_t bytes) {
  AesBlock out;
  for (uint32_t i = 0; i < 4; ++i) {
    const uint32_t kept = bytes > 4 * i ? bytes - 4 * i : 0;
    out.w[i] = kept >= 4 ? b.w[i] : kept == 0 ? 0 : b.w[i] & ~0u << (32 - 8 * kept);
  }
  return out;
}
GNF_INLINE AesBlock aes_xor(const AesBlock& a, const AesBlock& b) {
  return AesBlock{{a.w[0] ^ b.w[0], a.w[1] ^ b.w[1], a.w[2] ^ b.w[2], a.w[3] ^ b.w[3]}};
}

GNF_INLINE uint32_t aes_ror(uint32_t x, uint32_t bits) { return x >> bits | x << (32 - bits); }

// One output column of a round: the table at the four bytes (a's top, b's second, c's third, d's low).
template <class Tables>
GNF_INLINE uint32_t aes_column(const Tables& t, bool inverse, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  if (inverse) return t.dec(a, 3) ^ aes_ror(t.dec(b, 2), 8) ^ aes_ror(t.dec(c, 1), 16) ^ aes_ror(t.dec(d, 0), 24);
  return t.enc(a, 3) ^ aes_ror(t.enc(b, 2), 8) ^ aes_ror(t.enc(c, 1), 16) ^ aes_ror(t.enc(d, 0), 24);
}

// S[byte k of word], from te.
template <class Tables>
GNF_INLINE uint32_t aes_sbox(const Tables& t, uint32_t word, uint32_t k) { return (t.enc(word, k) >> 8) & 0xFF; }

// The last round's column: SubBytes (or its inverse) and ShiftRows without MixColumns.
template <class Tables>
GNF_INLINE uint32_t aes_last_column(const Tables& t, bool inverse, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  if (inverse) return t.inv(a, 3) << 24 | t.inv(b, 2) << 16 | t.inv(c, 1) << 8 | t.inv(d, 0);
  return aes_sbox(t, a, 3) << 24 | aes_sbox(t, b, 2) << 16 | aes_sbox(t, c, 1) << 8 | aes_sbox(t, d, 0);
}

// Where row `row` of output column `column` comes from: ShiftRows takes it from the column `row`
// to the right, InvShiftRows from the one `row` to the left.
GNF_INLINE uint32_t aes_shifted(uint32_t column, uint32_t row, bool inverse) {
  return (inverse ? column + 4 - row : column + row) & 3;
}

// One round, keyed with `rk`: the last has no MixColumns.
template <class Tables>
GNF_INLINE AesBlock aes_round(const Tables& t, bool inverse, bool last, const AesBlock& s, const uint32_t* rk) {
  AesBlock out;
  GNF_UNROLL
  for (uint32_t c = 0; c < 4; ++c) {
    const uint32_t a = s.w[c], b = s.w[aes_shifted(c, 1, inverse)], d = s.w[aes_shifted(c, 2, inverse)],
                   e = s.w[aes_shifted(c, 3, inverse)];
    out.w[c] = (last ? aes_last_column(t, inverse, a, b, d, e) : aes_column(t, inverse, a, b, d, e)) ^ rk[c];
  }
  return out;
}

// The cipher or, with a decryption schedule (aes_decryption_key), the equivalent inverse cipher.
template <class Tables>
GNF_INLINE AesBlock aes_cipher(const Tables& t, const AesKey& k, const AesBlock& in, bool inverse) {
  AesBlock s = aes_xor(in, AesBlock{{k.words[0], k.words[1], k.words[2], k.words[3]}});
  for (uint32_t round = 1; round < k.rounds; ++round) s = aes_round(t, inverse, false, s, k.words + 4 * round);
  return aes_round(t, inverse, true, s, k.words + 4 * k.rounds);
}

template <class Tables>
GNF_INLINE AesBlock aes_encrypt(const Tables& t, const AesKey& k, const AesBlock& in) { return aes_cipher(t, k, in, false); }
template <class Tables>
GNF_INLINE AesBlock aes_decrypt(const Tables& t, const AesKey& decryption, const AesBlock& in) {
  return aes_cipher(t, decryption, in, true);
}

// A key schedule of a round count known at compile time: the loops over a packet's blocks copy the
// schedule into one (aes_with_round_keys below; gcm.h's aes_gcm_lane) and the rounds unroll, so
// that on a GPU the round keys stay in registers instead of being loaded again from global memory
// for every block (about a fifth of a GCM kernel's time, measured: bench/results/2026-11-25-session20).
template <uint32_t kRounds>
struct AesRoundKeys {
  uint32_t w[4 * (kRounds + 1)];
};

template <uint32_t kRounds>
GNF_INLINE AesRoundKeys<kRounds> aes_round_keys(const AesKey& k) {
  AesRoundKeys<kRounds> out;
  GNF_UNROLL
  for (uint32_t i = 0; i < 4 * (kRounds + 1); ++i) out.w[i] = k.words[i];
  return out;
}

template <uint32_t kRounds, class Tables>
GNF_INLINE AesBlock aes_cipher(const Tables& t, const AesRoundKeys<kRounds>& k, const AesBlock& in, bool inverse) {
  AesBlock s = aes_xor(in, AesBlock{{k.w[0], k.w[1], k.w[2], k.w[3]}});
  GNF_UNROLL
  for (uint32_t round = 1; round < kRounds; ++round) s = aes_round(t, inverse, false, s, k.w + 4 * round);
  return aes_round(t, inverse, true, s, k.w + 4 * kRounds);
}

// f(keys) for the schedule `k`: AES-128's as AesRoundKeys<10>, the others as they are (AES-256's
// 60 words in registers beside a GCM lane's state spilled at the 85 registers a thread its
// kernels run with, and the spills cost more than the loads through L1 they save).
template <class F>
GNF_INLINE void aes_with_round_keys(const AesKey& k, F&& f) {
  if (k.rounds == 10) f(aes_round_keys<10>(k));
  else f(k);
}

// CBC (NIST SP 800-38A §6.2) in place over `bytes`, a multiple of 16.
template <class Tables>
GNF_INLINE void aes_cbc_encrypt(const Tables& t, const AesKey& key, const uint8_t* iv, uint8_t* data, uint32_t bytes) {
  aes_with_round_keys(key, [&](const auto& k) {
    AesBlock chain = aes_load(iv);
    for (uint32_t at = 0; at < bytes; at += 16) {
      chain = aes_cipher(t, k, aes_xor(aes_load(data + at), chain), false);
      aes_store(data + at, chain);
    }
  });
}
template <class Tables>
GNF_INLINE void aes_cbc_decrypt(const Tables& t, const AesKey& decryption, const uint8_t* iv, uint8_t* data,
                                uint32_t bytes) {
  aes_with_round_keys(decryption, [&](const auto& k) {
    AesBlock previous = aes_load(iv);
    for (uint32_t at = 0; at < bytes; at += 16) {
      const AesBlock cipher = aes_load(data + at);
      aes_store(data + at, aes_xor(aes_cipher(t, k, cipher, true), previous));
      previous = cipher;
    }
  });
}

}  // namespace gnf::nf
