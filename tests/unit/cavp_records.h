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

}  // namespace gnf::test

#define REQUIRE_CRYPTO_VECTORS()                                                                          \
  if (!std::filesystem::exists(::gnf::test::kCryptoVectors))                                              \
  GTEST_SKIP() << ::gnf::test::kCryptoVectors                                                             \
               << " is missing: apt-get install python3-cryptography-vectors (scripts/install-deps.sh)"
