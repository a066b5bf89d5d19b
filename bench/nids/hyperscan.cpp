#include "hyperscan.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "nids_hyperscan.h"

namespace gnf::nids_bench {

namespace {

using Clock = std::chrono::steady_clock;

int count_match(unsigned int, unsigned long long, unsigned long long, unsigned int, void* context) {
  ++*static_cast<uint64_t*>(context);
  return 0;  // go on
}

struct Scratch {
  hs_scratch_t* scratch = nullptr;
  explicit Scratch(const hs_database_t* database) {
    if (hs_alloc_scratch(database, &scratch) != HS_SUCCESS) throw std::runtime_error("hs_alloc_scratch failed");
  }
  ~Scratch() { hs_free_scratch(scratch); }
};

uint64_t one_pass(const hs_database_t* database, hs_scratch_t* scratch, const Corpus& corpus) {
  uint64_t matches = 0;
  for (uint32_t i = 0; i < corpus.packets(); ++i) {
    const char* payload = reinterpret_cast<const char*>(corpus.bytes.data() + corpus.offsets[i]);
    if (hs_scan(database, payload, corpus.offsets[i + 1] - corpus.offsets[i], 0, scratch, count_match, &matches) !=
        HS_SUCCESS)
      throw std::runtime_error("hs_scan failed");
  }
  return matches;
}

}  // namespace

Hyperscan::Hyperscan(const std::vector<nf::NidsPattern>& patterns) {
  std::string error;
  const Clock::time_point start = Clock::now();
  database_ = test::hyperscan_literals(patterns, error);
  if (!database_) throw std::runtime_error("hs_compile_lit_multi: " + error);
  build_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Hyperscan::~Hyperscan() { hs_free_database(database_); }

uint64_t Hyperscan::matches(const Corpus& corpus) const {
  Scratch scratch(database_);
  return one_pass(database_, scratch.scratch, corpus);
}

Rate Hyperscan::rate(const Corpus& corpus, unsigned threads, double seconds) const {
  std::vector<double> passes_per_second(threads, 0);
  std::vector<std::exception_ptr> failures(threads);
  std::atomic<unsigned> ready{0};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      try {
        Scratch scratch(database_);
        ready.fetch_add(1);
        while (ready.load() < threads) std::this_thread::yield();  // all start together
        const Clock::time_point start = Clock::now(), deadline = start + std::chrono::duration_cast<Clock::duration>(
                                                                               std::chrono::duration<double>(seconds));
        uint64_t passes = 0;
        do {
          one_pass(database_, scratch.scratch, corpus);
          ++passes;
        } while (Clock::now() < deadline);
        passes_per_second[t] = double(passes) / std::chrono::duration<double>(Clock::now() - start).count();
      } catch (...) {
        failures[t] = std::current_exception();
        ready.fetch_add(1);
      }
    });
  for (std::thread& w : workers) w.join();
  double passes = 0;
  for (unsigned t = 0; t < threads; ++t) {
    if (failures[t]) std::rethrow_exception(failures[t]);
    passes += passes_per_second[t];
  }
  return Rate{passes * double(corpus.bytes.size()) * 8 / 1e9, passes * corpus.packets() / 1e6};
}

}  // namespace gnf::nids_bench
