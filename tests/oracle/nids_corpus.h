// Patterns and payloads for the nids automaton's and evaluator's checks (tests/oracle/
// nids_vs_hyperscan.cpp, tests/unit/test_nids_evaluator.cpp): patterns that overlap (a small
// alphabet, shared prefixes and suffixes), binary ones, HTTP tokens, half of them nocase; payloads
// of every kind the issue names: matches planted at the first and last byte and across a depth,
// HTTP-like text, random binary, runs of the patterns' own bytes, empty and 9000-byte ones.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "nf/nids/automaton.h"

namespace gnf::test {

inline std::string random_bytes(std::mt19937_64& rng, size_t size, const std::string& alphabet = "") {
  std::string out(size, '\0');
  for (char& c : out) c = alphabet.empty() ? char(rng() & 0xFF) : alphabet[rng() % alphabet.size()];
  return out;
}

inline std::vector<nf::NidsPattern> nids_patterns(size_t count, uint64_t seed) {
  static const char* const kTokens[] = {"GET ", "POST ", "/etc/passwd", "cmd.exe", "User-Agent: ", "HTTP/1.1",
                                        "\r\n\r\n", "select ", "<script>", "%00", "..%2f", "Host: "};
  std::mt19937_64 rng(seed);
  std::vector<nf::NidsPattern> patterns;
  while (patterns.size() < count) {
    nf::NidsPattern p;
    switch (patterns.size() % 4) {
      case 0: p.bytes = random_bytes(rng, 1 + rng() % 6, "abcdeABCDE"); break;
      case 1: p.bytes = random_bytes(rng, 2 + rng() % 10); break;
      case 2: p.bytes = kTokens[rng() % std::size(kTokens)] + random_bytes(rng, rng() % 4, "xyzXYZ/."); break;
      default: p.bytes = random_bytes(rng, 4 + rng() % 28, "abcdefghijklmnopqrstuvwxyz0123456789 -_/"); break;
    }
    p.nocase = rng() % 2;
    if (p.nocase)
      for (char& c : p.bytes) c = char(nf::nids_fold(uint8_t(c)));
    patterns.push_back(std::move(p));
  }
  return patterns;
}

// A pattern's bytes as they may appear in a payload: a nocase one in random case.
inline std::string occurrence(const nf::NidsPattern& p, std::mt19937_64& rng) {
  std::string out = p.bytes;
  if (p.nocase)
    for (char& c : out)
      if (c >= 'a' && c <= 'z' && rng() % 2) c = char(c - 'a' + 'A');
  return out;
}

inline std::vector<std::string> nids_payloads(const std::vector<nf::NidsPattern>& patterns, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto any_pattern = [&]() { return occurrence(patterns[rng() % patterns.size()], rng); };
  std::vector<std::string> payloads;
  while (payloads.size() < count) {
    std::string p;
    switch (payloads.size() % 6) {
      case 0:  // random binary, a few planted
        p = random_bytes(rng, rng() % 1500);
        for (int k = rng() % 4; k > 0 && !p.empty(); --k) {
          const std::string planted = any_pattern();
          p.replace(rng() % p.size(), planted.size(), planted);
        }
        break;
      case 1:  // at the first byte and ending at the last
        p = any_pattern() + random_bytes(rng, rng() % 64) + any_pattern();
        break;
      case 2:  // HTTP-like text
        p = (rng() % 2 ? "GET /" : "POST /") + random_bytes(rng, rng() % 40, "abcdefgh/.%2") + any_pattern() +
            " HTTP/1.1\r\nHost: " + random_bytes(rng, 8, "abcde.") + "\r\nUser-Agent: " + any_pattern() + "\r\n\r\n";
        break;
      case 3:  // across a depth: starting a byte either side of offsets rules use
        p = random_bytes(rng, 6 + rng() % 20) + any_pattern() + random_bytes(rng, rng() % 30);
        break;
      case 4:  // runs of the patterns' own bytes: overlapping and repeated matches
        for (int k = 2 + rng() % 12; k > 0; --k) p += any_pattern();
        break;
      default:  // edges: empty, one byte, 9000 bytes
        p = payloads.size() % 60 == 5 ? std::string() : random_bytes(rng, payloads.size() % 60 == 11 ? 9000 : 1);
        if (p.size() == 9000) p.replace(8990 - 8, 8, any_pattern().substr(0, 8));
        break;
    }
    payloads.push_back(std::move(p));
  }
  return payloads;
}

}  // namespace gnf::test
