#include "nf/l3fwd/martian_sources.h"

#include <algorithm>

namespace gnf::nf {

void MartianSources::record_stores(sync::TableLog* addresses_log, sync::TableLog* count_log, uint32_t region) {
  addresses_log_ = addresses_log;
  count_log_ = count_log;
  region_ = region;
}

void MartianSources::store(uint32_t index, uint32_t value, sync::TableLog* log) {
  // The count with release: the addresses stored before it are seen by a reader that sees it.
  __atomic_store_n(&words_[index], value, index == 0 ? __ATOMIC_RELEASE : __ATOMIC_RELAXED);
  if (log) log->store(region_, index, value);
}

void MartianSources::set(const std::vector<uint32_t>& wanted) {
  uint32_t count = words_[0];
  const auto listed = [&](uint32_t address) { return std::find(&words_[1], &words_[1] + count, address); };
  for (uint32_t i = 1; i <= count; ++i)
    if (words_[i] && std::find(wanted.begin(), wanted.end(), words_[i]) == wanted.end()) store(i, 0, addresses_log_);
  for (uint32_t address : wanted) {
    if (address == 0 || listed(address) != &words_[1] + count) continue;
    if (uint32_t* hole = listed(0); hole != &words_[1] + count) {
      store(uint32_t(hole - words_.data()), address, addresses_log_);
    } else if (count < kMaxMartianSources) {
      store(1 + count, address, addresses_log_);
      store(0, ++count, count_log_);
    }
  }
}

}  // namespace gnf::nf
