// The CPU's ESP primitives (nf/ipsec/openssl_primitives.h), as wrapped, against vectors nobody here
// wrote: NIST CAVP's AES-CBC (CBC*128.rsp) and AES-GCM (gcmEncryptExtIV*, gcmDecrypt*: the
// 96-bit IV, 128-bit tag ones ESP uses) and RFC 2202's HMAC-SHA1, as Debian's
// python3-cryptography-vectors ships them (cavp_records.h reads them).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cavp_records.h"
#include "nf/ipsec/openssl_primitives.h"

using namespace gnf::nf;
using gnf::test::hex;
using gnf::test::kCryptoVectors;
using gnf::test::read_records;
using gnf::test::Record;

TEST(IpsecCrypto, AesCbc128MatchesNistCavp) {
  REQUIRE_CRYPTO_VECTORS();
  size_t checked = 0;
  for (const gnf::test::CbcRecord& r : gnf::test::cbc_records({"128"})) {
    std::vector<uint8_t> buffer = r.encrypt ? r.plain : r.cipher;
    AesCbc128 aes(r.key.data(), r.encrypt);
    ASSERT_TRUE(aes.run(r.iv.data(), buffer.data(), buffer.data(), uint32_t(buffer.size())));  // in place, as ESP does
    EXPECT_EQ(buffer, r.encrypt ? r.cipher : r.plain) << r.where;
    ++checked;
  }
  EXPECT_EQ(checked, 588u);  // every record of the five files
}

TEST(IpsecCrypto, AesGcmMatchesNistCavp) {
  REQUIRE_CRYPTO_VECTORS();
  size_t sealed = 0, opened = 0, refused = 0;
  for (const gnf::test::GcmRecord& r : gnf::test::gcm_records({"128", "256"})) {
    AesGcm gcm(r.key.data(), uint32_t(r.key.size()), r.encrypt);
    if (r.encrypt) {
      std::vector<uint8_t> buffer = r.pt, got_tag(16);
      ASSERT_TRUE(gcm.seal(r.iv.data(), r.aad.data(), uint32_t(r.aad.size()), buffer.data(), buffer.data(),
                           uint32_t(buffer.size()), got_tag.data()));
      EXPECT_EQ(buffer, r.ct) << r.where;
      EXPECT_EQ(got_tag, r.tag) << r.where;
      ++sealed;
      continue;
    }
    std::vector<uint8_t> buffer = r.ct;
    const bool ok = gcm.open(r.iv.data(), r.aad.data(), uint32_t(r.aad.size()), buffer.data(), buffer.data(),
                             uint32_t(buffer.size()), r.tag.data());
    if (r.forged) {
      EXPECT_FALSE(ok) << r.where << ": a forged tag was accepted";
      ++refused;
    } else {
      EXPECT_TRUE(ok) << r.where;
      EXPECT_EQ(buffer, r.pt) << r.where;
      ++opened;
    }
  }
  EXPECT_GT(sealed, 500u);
  EXPECT_GT(opened, 100u);
  EXPECT_GT(refused, 100u);
}

TEST(IpsecCrypto, HmacSha1MatchesRfc2202) {
  REQUIRE_CRYPTO_VECTORS();
  size_t checked = 0;
  for (const Record& r : read_records(kCryptoVectors / "HMAC/rfc-2202-sha1.txt")) {
    const auto key = hex(r.at("Key")), msg = hex(r.at("Msg")), md = hex(r.at("MD"));
    HmacSha1 hmac(key.data(), uint32_t(key.size()));
    uint8_t digest[20];
    // Twice, the message split in two the second time: the key is kept between packets, and ESN's
    // high sequence bits come as a second piece.
    ASSERT_TRUE(hmac.mac(msg.data(), uint32_t(msg.size()), nullptr, 0, digest));
    EXPECT_EQ(std::vector<uint8_t>(digest, digest + 20), md) << "Len " << r.at("Len");
    const uint32_t half = uint32_t(msg.size() / 2);
    ASSERT_TRUE(hmac.mac(msg.data(), half, msg.data() + half, uint32_t(msg.size()) - half, digest));
    EXPECT_EQ(std::vector<uint8_t>(digest, digest + 20), md) << "Len " << r.at("Len") << ", in two pieces";
    ++checked;
  }
  EXPECT_EQ(checked, 7u);
}
