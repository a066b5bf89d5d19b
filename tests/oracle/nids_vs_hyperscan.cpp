// The nids automaton (nf/nids/automaton.h) against Hyperscan in literal mode: on every payload of
// a 120 k-payload corpus (tests/oracle/nids_corpus.h), for 2,000 and for 147 patterns, the
// (pattern, end offset) pairs gnf's scan reports are the ones Hyperscan reports, and so are those
// its scan of the payload in 3 and in 32 pieces reports, each once. Exits 1 on the
// first payload that differs, naming it and the pairs only one side found.
#include <hs/hs.h>

#include <cstdio>
#include <set>
#include <utility>
#include <vector>

#include "nf/nids/automaton.h"
#include "nids_corpus.h"
#include "nids_hyperscan.h"

using namespace gnf;

namespace {

using Occurrences = std::set<std::pair<uint32_t, uint32_t>>;

struct Collect {
  Occurrences* found;
  size_t calls = 0;
  void operator()(uint32_t pattern, uint32_t end) {
    ++calls;
    found->insert({pattern, end});
  }
};

int on_hyperscan_match(unsigned int id, unsigned long long, unsigned long long to, unsigned int, void* context) {
  static_cast<Occurrences*>(context)->insert({id, uint32_t(to)});
  return 0;
}

hs_database_t* hyperscan_database(const std::vector<nf::NidsPattern>& patterns) {
  std::string error;
  hs_database_t* db = test::hyperscan_literals(patterns, error);
  if (!db) {
    std::fprintf(stderr, "hs_compile_lit_multi: %s\n", error.c_str());
    std::exit(2);
  }
  return db;
}

void print_only(const char* side, const Occurrences& a, const Occurrences& b) {
  for (const auto& [pattern, end] : a)
    if (!b.count({pattern, end})) std::fprintf(stderr, "  only %s: pattern %u ending at %u\n", side, pattern, end);
}

bool compare(size_t pattern_count, uint64_t seed) {
  const std::vector<nf::NidsPattern> patterns = test::nids_patterns(pattern_count, seed);
  const std::vector<std::string> payloads = test::nids_payloads(patterns, 120'000, seed + 1);
  const nf::NidsAutomaton automaton(patterns, size_t(1) << 30);
  const nf::NidsDfaView dfa = automaton.view();
  hs_database_t* db = hyperscan_database(patterns);
  hs_scratch_t* scratch = nullptr;
  if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) return false;
  size_t occurrences = 0;
  bool same = true;
  for (size_t i = 0; i < payloads.size() && same; ++i) {
    const std::string& payload = payloads[i];
    Occurrences ours, theirs;
    Collect collect{&ours};
    nf::nids_scan(dfa, reinterpret_cast<const uint8_t*>(payload.data()), uint32_t(payload.size()), collect);
    hs_scan(db, payload.data(), unsigned(payload.size()), 0, scratch, on_hyperscan_match, &theirs);
    occurrences += theirs.size();
    if (ours != theirs) {
      std::fprintf(stderr, "payload %zu (%zu bytes), %zu patterns: the sets differ\n", i, payload.size(), pattern_count);
      print_only("gnf", ours, theirs);
      print_only("hyperscan", theirs, ours);
      same = false;
    }
    // The payload's pieces, as a GPU tile's lanes scan them (nids_scan_piece): each pair once.
    for (const uint32_t pieces : {3u, 32u}) {
      Occurrences pieced;
      Collect collect_pieces{&pieced};
      for (uint32_t k = 0; k < pieces; ++k)
        nf::nids_scan_piece(dfa, reinterpret_cast<const uint8_t*>(payload.data()), uint32_t(payload.size()), k, pieces,
                            collect_pieces);
      if (pieced != theirs || collect_pieces.calls != pieced.size()) {
        std::fprintf(stderr, "payload %zu (%zu bytes), %zu patterns, %u pieces: %zu reports of %zu pairs\n", i,
                     payload.size(), pattern_count, pieces, collect_pieces.calls, pieced.size());
        print_only("gnf's pieces", pieced, theirs);
        print_only("hyperscan", theirs, pieced);
        same = false;
      }
    }
  }
  std::printf("%zu patterns (%u states, %zu bytes): %zu payloads, %zu occurrences: %s\n", pattern_count,
              automaton.states(), automaton.arena_bytes(), payloads.size(), occurrences, same ? "identical" : "DIFFERENT");
  hs_free_scratch(scratch);
  hs_free_database(db);
  return same;
}

}  // namespace

int main() {
  const bool same = compare(2000, 14) && compare(147, 147);
  return same ? 0 : 1;
}
