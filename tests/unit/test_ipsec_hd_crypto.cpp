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
using gnf::test::hex;
using gnf::test::kCryptoVectors;
using gnf::test::read_records;
using gnf::test::Record;

TEST(GpuCryptoOnHost, AesCbcMatchesNistCavpForEveryKeySize) {
  REQUIRE_CRYPTO_VECTORS();
  size_t checked = 0;
  for (const char* bits : {"128", "192", "256"}) {
    for (const char* kind : {"CBCGFSbox", "CBCKeySbox", "CBCVarKey", "CBCVarTxt", "CBCMMT"}) {
      const std::string file = std::string(kind) + bits + ".rsp";
      for (const Record& r : read_records(kCryptoVectors / "ciphers/AES/CBC" / file)) {
        const bool encrypt = r.at("Section") == "ENCRYPT";
        const auto key = hex(r.at("KEY")), iv = hex(r.at("IV")), plain = hex(r.at("PLAINTEXT")),
                   cipher = hex(r.at("CIPHERTEXT"));
        AesKey schedule;
        ASSERT_TRUE(aes_encryption_key(key.data(), uint32_t(key.size()), schedule)) << file;
        std::vector<uint8_t> buffer = encrypt ? plain : cipher;
        if (encrypt)
          aes_cbc_encrypt(aes_tables(), schedule, iv.data(), buffer.data(), uint32_t(buffer.size()));
        else
          aes_cbc_decrypt(aes_tables(), aes_decryption_key(schedule), iv.data(), buffer.data(), uint32_t(buffer.size()));
        EXPECT_EQ(buffer, encrypt ? cipher : plain) << file << " " << r.at("Section") << " COUNT " << r.at("COUNT");
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2138u);  // every record of the fifteen files
}

TEST(GpuCryptoOnHost, AesRefusesKeysOfOtherSizes) {
  const uint8_t key[33] = {};
  AesKey schedule;
  for (uint32_t bytes : {0u, 8u, 15u, 17u, 33u}) EXPECT_FALSE(aes_encryption_key(key, bytes, schedule)) << bytes;
}

TEST(GpuCryptoOnHost, AesGcmMatchesNistCavp) {
  REQUIRE_CRYPTO_VECTORS();
  size_t sealed = 0, opened = 0, refused = 0;
  for (const char* bits : {"128", "192", "256"}) {
    for (const bool encrypt : {true, false}) {
      const std::string file = std::string(encrypt ? "gcmEncryptExtIV" : "gcmDecrypt") + bits + ".rsp";
      for (const Record& r : read_records(kCryptoVectors / "ciphers/AES/GCM" / file)) {
        if (r.at("IVlen") != "96" || r.at("Taglen") != "128") continue;
        const auto key = hex(r.at("Key")), iv = hex(r.at("IV")), aad = hex(r.at("AAD")), ct = hex(r.at("CT")),
                   tag = hex(r.at("Tag"));
        AesKey schedule;
        ASSERT_TRUE(aes_encryption_key(key.data(), uint32_t(key.size()), schedule));
        const GhashKey h = ghash_key(aes_tables(), schedule);
        const std::string where = file + " Count " + r.at("Count") + " Keylen " + r.at("Keylen");
        std::vector<uint8_t> buffer = encrypt ? hex(r.at("PT")) : ct, got_tag(16);
        aes_store(got_tag.data(), aes_gcm(aes_tables(), schedule, h, iv.data(), aad.data(), uint32_t(aad.size()),
                                          buffer.data(), uint32_t(buffer.size()), encrypt));
        if (encrypt) {
          EXPECT_EQ(buffer, ct) << where;
          EXPECT_EQ(got_tag, tag) << where;
          ++sealed;
        } else if (r.count("FAIL")) {
          EXPECT_NE(got_tag, tag) << where << ": a forged tag would be accepted";
          ++refused;
        } else {
          EXPECT_EQ(got_tag, tag) << where;
          EXPECT_EQ(buffer, hex(r.at("PT"))) << where;
          ++opened;
        }
      }
    }
  }
  EXPECT_GT(sealed, 1000u);
  EXPECT_GT(opened, 200u);
  EXPECT_GT(refused, 100u);
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
