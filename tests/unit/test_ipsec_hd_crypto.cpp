// The GPU's ESP primitives (nf/ipsec/aes.h, gcm.h, sha1.h), the very inline code kernels run,
// compiled for the host and held to vectors nobody here wrote: NIST CAVP's AES-CBC (KAT and MMT,
// every key size), AES-GCM (the 96-bit IV, 128-bit tag records ESP uses), SHA-1 (short and long
// messages) and RFC 2202's HMAC-SHA1.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cavp_records.h"
#include "nf/ipsec/aes.h"
#include "nf/ipsec/gcm.h"
#include "nf/ipsec/sha1.h"

using namespace gnf::nf;
using namespace gnf::test;

TEST(GpuCryptoOnHost, AesCbcMatchesNistCavpForEveryKeySize) {
  REQUIRE_CRYPTO_VECTORS();
  size_t checked = 0;
  for (const CbcRecord& r : cbc_records({"128", "192", "256"})) {
    AesKey schedule;
    ASSERT_TRUE(aes_encryption_key(r.key.data(), uint32_t(r.key.size()), schedule)) << r.where;
    std::vector<uint8_t> buffer = r.encrypt ? r.plain : r.cipher;
    if (r.encrypt)
      aes_cbc_encrypt(aes_tables(), schedule, r.iv.data(), buffer.data(), uint32_t(buffer.size()));
    else
      aes_cbc_decrypt(aes_tables(), aes_decryption_key(schedule), r.iv.data(), buffer.data(), uint32_t(buffer.size()));
    EXPECT_EQ(buffer, r.encrypt ? r.cipher : r.plain) << r.where;
    ++checked;
  }
  EXPECT_EQ(checked, 2138u);  // every record of the fifteen files
}

TEST(GpuCryptoOnHost, AesRefusesKeysOfOtherSizes) {
  const uint8_t key[33] = {};
  AesKey schedule;
  for (uint32_t bytes : {0u, 8u, 15u, 17u, 33u}) EXPECT_FALSE(aes_encryption_key(key, bytes, schedule)) << bytes;
}

TEST(GpuCryptoOnHost, Sha1MatchesNistCavpShortAndLongMessages) {
  REQUIRE_CRYPTO_VECTORS();
  size_t checked = 0;
  for (const char* file : {"SHA1ShortMsg.rsp", "SHA1LongMsg.rsp"}) {
    for (const Record& r : read_records(kCryptoVectors / "hashes/SHA1" / file)) {
      const auto msg = hex(r.at("Msg")), md = hex(r.at("MD"));
      const uint32_t bytes = uint32_t(std::stoul(r.at("Len")) / 8);
      // Whole, and fed in uneven pieces so that the buffered path meets the straight one.
      for (const uint32_t piece : {bytes + 1, 7u, 64u, 65u}) {
        Sha1 s;
        sha1_start(s);
        for (uint32_t at = 0; at < bytes; at += piece) sha1_update(s, msg.data() + at, std::min(piece, bytes - at));
        std::vector<uint8_t> digest(kSha1DigestBytes);
        sha1_finish(s, digest.data());
        EXPECT_EQ(digest, md) << file << " Len " << r.at("Len") << " in pieces of " << piece;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 65u + 64u);
}

TEST(GpuCryptoOnHost, HmacSha1MatchesRfc2202) {
  REQUIRE_CRYPTO_VECTORS();
  size_t checked = 0;
  for (const Record& r : read_records(kCryptoVectors / "HMAC/rfc-2202-sha1.txt")) {
    const auto key = hex(r.at("Key")), msg = hex(r.at("Msg")), md = hex(r.at("MD"));
    const HmacSha1Key midstates = hmac_sha1_key(key.data(), uint32_t(key.size()));
    const uint32_t half = uint32_t(msg.size() / 2);
    std::vector<uint8_t> whole(kSha1DigestBytes), split(kSha1DigestBytes);
    hmac_sha1(midstates, msg.data(), uint32_t(msg.size()), nullptr, 0, whole.data());
    hmac_sha1(midstates, msg.data(), half, msg.data() + half, uint32_t(msg.size()) - half, split.data());
    EXPECT_EQ(whole, md) << "Len " << r.at("Len");
    EXPECT_EQ(split, md) << "Len " << r.at("Len") << ", in two pieces";
    ++checked;
  }
  EXPECT_EQ(checked, 7u);
}

TEST(GpuCryptoOnHost, AesGcmMatchesNistCavp) {
  REQUIRE_CRYPTO_VECTORS();
  size_t sealed = 0, opened = 0, refused = 0;
  for (const GcmRecord& r : gcm_records({"128", "192", "256"})) {
    AesKey schedule;
    ASSERT_TRUE(aes_encryption_key(r.key.data(), uint32_t(r.key.size()), schedule));
    const GhashPowers h = ghash_powers(aes_tables(), schedule);
    std::vector<uint8_t> buffer = r.encrypt ? r.pt : r.ct, got_tag(16);
    aes_store(got_tag.data(), aes_gcm(aes_tables(), schedule, h, r.iv.data(), r.aad.data(), uint32_t(r.aad.size()),
                                      buffer.data(), uint32_t(buffer.size()), r.encrypt));
    const bool tag_matches = got_tag == r.tag;
    if (r.forged) {
      EXPECT_FALSE(tag_matches) << r.where << ": a forged tag would be accepted";
      ++refused;
      continue;
    }
    EXPECT_TRUE(tag_matches) << r.where;
    EXPECT_EQ(buffer, r.encrypt ? r.ct : r.pt) << r.where;
    ++(r.encrypt ? sealed : opened);
  }
  EXPECT_GT(sealed, 1000u);
  EXPECT_GT(opened, 200u);
  EXPECT_GT(refused, 100u);
}

// GCM dealt out over a tile's lanes (gcm.h's aes_gcm_lane), the lanes run one after the other: the
// same ciphertext, plaintext and tag as NIST's for every tile size a kernel may use (the records'
// block counts are mostly not multiples of them: the zero blocks in front are tested too).
TEST(GpuCryptoOnHost, AesGcmOnTileLanesMatchesNistCavp) {
  REQUIRE_CRYPTO_VECTORS();
  size_t checked = 0;
  for (const GcmRecord& r : gcm_records({"128", "256"})) {
    AesKey schedule;
    ASSERT_TRUE(aes_encryption_key(r.key.data(), uint32_t(r.key.size()), schedule));
    const GhashPowers h = ghash_powers(aes_tables(), schedule);
    for (const uint32_t size : {1u, 2u, 4u, 8u, 16u, 32u}) {
      std::vector<uint8_t> buffer = r.encrypt ? r.pt : r.ct, got_tag(16);
      Ghash s{0, 0};
      for (uint32_t lane = 0; lane < size; ++lane) {
        const Ghash part = aes_gcm_lane(aes_tables(), schedule, h, r.iv.data(), r.aad.data(), uint32_t(r.aad.size()),
                                        buffer.data(), uint32_t(buffer.size()), r.encrypt, lane, size);
        s.hi ^= part.hi, s.lo ^= part.lo;
      }
      aes_store(got_tag.data(), aes_gcm_tag(s));
      if (r.forged) {
        EXPECT_NE(got_tag, r.tag) << r.where << ", tile of " << size << ": a forged tag would be accepted";
        continue;
      }
      EXPECT_EQ(got_tag, r.tag) << r.where << ", tile of " << size;
      EXPECT_EQ(buffer, r.encrypt ? r.ct : r.pt) << r.where << ", tile of " << size;
      ++checked;
    }
  }
  EXPECT_GT(checked, 6u * 1000);
}
