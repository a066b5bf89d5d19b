#include "nf/ipsec/aes.h"

namespace gnf::nf {

namespace {

// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS 197 §4.2).
uint8_t gf_multiply(uint8_t a, uint8_t b) {
  uint8_t product = 0;
  for (; b != 0; b >>= 1) {
    if (b & 1) product ^= a;
    a = uint8_t(a << 1 ^ (a & 0x80 ? 0x1B : 0));
  }
  return product;
}

uint8_t rotl8(uint8_t x, int bits) { return uint8_t(x << bits | x >> (8 - bits)); }

// FIPS 197 §5.1.1: the multiplicative inverse, then the affine map.
uint8_t sbox_of(uint8_t x) {
  uint8_t inverse = 0;
  for (int y = 1; y < 256 && x != 0; ++y)
    if (gf_multiply(x, uint8_t(y)) == 1) inverse = uint8_t(y);
  return uint8_t(inverse ^ rotl8(inverse, 1) ^ rotl8(inverse, 2) ^ rotl8(inverse, 3) ^ rotl8(inverse, 4) ^ 0x63);
}

uint32_t column(uint8_t s, uint8_t m0, uint8_t m1, uint8_t m2, uint8_t m3) {
  return uint32_t(gf_multiply(s, m0)) << 24 | uint32_t(gf_multiply(s, m1)) << 16 | uint32_t(gf_multiply(s, m2)) << 8 |
         gf_multiply(s, m3);
}

AesTables make_tables() {
  AesTables t{};
  for (int x = 0; x < 256; ++x) {
    const uint8_t s = sbox_of(uint8_t(x));
    t.inv_sbox[s] = uint8_t(x);
    t.te[x] = column(s, 2, 1, 1, 3);
  }
  for (int x = 0; x < 256; ++x) t.td[x] = column(t.inv_sbox[x], 14, 9, 13, 11);
  return t;
}

}  // namespace

const AesTables& aes_tables() {
  static const AesTables tables = make_tables();
  return tables;
}

bool aes_encryption_key(const uint8_t* key, uint32_t key_bytes, AesKey& out) {
  if (key_bytes != 16 && key_bytes != 24 && key_bytes != 32) return false;
  const AesTables& t = aes_tables();
  const uint32_t nk = key_bytes / 4;
  out.rounds = nk + 6;
  const uint32_t words = 4 * (out.rounds + 1);
  for (uint32_t i = 0; i < nk; ++i) out.words[i] = wire::load_be32(key + 4 * i);
  uint32_t rcon = 1;
  for (uint32_t i = nk; i < words; ++i) {
    uint32_t w = out.words[i - 1];
    const auto sub_word = [&](uint32_t v) { return aes_last_column(t, false, v, v, v, v); };
    if (i % nk == 0) {
      w = sub_word(aes_ror(w, 24)) ^ rcon << 24;
      rcon = gf_multiply(uint8_t(rcon), 2);
    } else if (nk > 6 && i % nk == 4) {
      w = sub_word(w);
    }
    out.words[i] = out.words[i - nk] ^ w;
  }
  return true;
}

AesKey aes_decryption_key(const AesKey& encryption) {
  const AesTables& t = aes_tables();
  AesKey out;
  out.rounds = encryption.rounds;
  for (uint32_t round = 0; round <= out.rounds; ++round) {
    const uint32_t* from = encryption.words + 4 * (out.rounds - round);
    uint32_t* to = out.words + 4 * round;
    for (int i = 0; i < 4; ++i) {
      const uint32_t w = from[i];
      // InvMixColumns of the middle rounds' keys: td is Si then InvMixColumns, so S first cancels Si.
      to[i] = round == 0 || round == out.rounds
                  ? w
                  : aes_column(t, true, aes_sbox(t, w, 3) << 24, aes_sbox(t, w, 2) << 16, aes_sbox(t, w, 1) << 8,
                               aes_sbox(t, w, 0));
    }
  }
  return out;
}

}  // namespace gnf::nf
