// NIST CAVP response files (.rsp) and RFC 2202's text as the crypto tests read them, from Debian's
// python3-cryptography-vectors (scripts/install-deps.sh installs it): vectors nobody here wrote.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace gnf::test {

inline const std::filesystem::path kCryptoVectors = "/usr/lib/python3/dist-packages/cryptography_vectors";

std::vector<uint8_t> hex(const std::string& text);

// One record of a CAVP .rsp file (or RFC 2202's text): its "Name = value" lines, with the
// "[Name = value]" section lines above it and a bare "[ENCRYPT]"/"[DECRYPT]" as "Section"; a bare
// word such as FAIL is a name with an empty value.
using Record = std::map<std::string, std::string>;

std::vector<Record> read_records(const std::filesystem::path& path);

// Every record of the AES-CBC KAT and MMT files (CBCGFSbox, CBCKeySbox, CBCVarKey, CBCVarTxt,
// CBCMMT) for each of `key_bits`, decoded.
struct CbcRecord {
  std::string where;
  bool encrypt;
  std::vector<uint8_t> key, iv, plain, cipher;
};
std::vector<CbcRecord> cbc_records(const std::vector<std::string>& key_bits);

// The AES-GCM records ESP can use (96-bit IV, 128-bit tag) of gcmEncryptExtIV<bits>.rsp and
// gcmDecrypt<bits>.rsp for each of `key_bits` ("128", "256", ...), decoded.
struct GcmRecord {
  std::string where;  // file, count and key length, for failure messages
  bool encrypt;
  bool forged;        // a decryption record whose tag must be refused (FAIL); it has no PT
  std::vector<uint8_t> key, iv, aad, pt, ct, tag;
};
std::vector<GcmRecord> gcm_records(const std::vector<std::string>& key_bits);

}  // namespace gnf::test

#define REQUIRE_CRYPTO_VECTORS()                                                                          \
  if (!std::filesystem::exists(::gnf::test::kCryptoVectors))                                              \
  GTEST_SKIP() << ::gnf::test::kCryptoVectors                                                             \
               << " is missing: apt-get install python3-cryptography-vectors (scripts/install-deps.sh)"
