// Hyperscan's literal matcher over nids patterns (hs_compile_lit_multi, block mode): a pattern's id
// is its index, a nocase one is HS_FLAG_CASELESS. The oracle's (nids_vs_hyperscan) and
// gnf-nids-bench's.
#pragma once
#include <hs/hs.h>

#include <string>
#include <vector>

#include "nf/nids/automaton.h"

namespace gnf::test {

// The database, or null with Hyperscan's message in `error`.
inline hs_database_t* hyperscan_literals(const std::vector<nf::NidsPattern>& patterns, std::string& error) {
  std::vector<const char*> expressions;
  std::vector<size_t> lengths;
  std::vector<unsigned> flags, ids;
  for (uint32_t p = 0; p < patterns.size(); ++p) {
    expressions.push_back(patterns[p].bytes.data());
    lengths.push_back(patterns[p].bytes.size());
    flags.push_back(patterns[p].nocase ? HS_FLAG_CASELESS : 0);
    ids.push_back(p);
  }
  hs_database_t* database = nullptr;
  hs_compile_error_t* compile_error = nullptr;
  if (hs_compile_lit_multi(expressions.data(), flags.data(), ids.data(), lengths.data(), unsigned(patterns.size()),
                           HS_MODE_BLOCK, nullptr, &database, &compile_error) != HS_SUCCESS) {
    error = compile_error->message;
    hs_free_compile_error(compile_error);
    return nullptr;
  }
  return database;
}

}  // namespace gnf::test
