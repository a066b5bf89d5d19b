// The IPv4 sources no packet is forwarded from that depend on the router's addresses: its own
// addresses (Linux calls a packet from one a martian) and the directed broadcast addresses of its
// networks of /30 or shorter (RFC 1812 5.3.7). The router keeps the list as addresses come and go,
// from the config file or netlink; l3fwd reads it per IPv4 packet, on CPU and GPU.
//
// Layout: one array of words, word 0 how many follow, then the addresses (host order; 0 a hole a
// removed address left), at most kMaxMartianSources. An address never moves while it is listed, so
// a reader racing a change never misses one that stays. A new one fills a hole or goes after the
// last, stored before the count that takes it in: on the host the count is stored with release and
// the reader fences (acquire) after loading it; on the GPU the addresses replay with the records and
// the count with the entries, in a later kernel (records.h).
#pragma once
#include <cstdint>
#include <vector>

#include "nf/l3fwd/records.h"
#include "sync/table_log.h"
#include "util/hd.h"

namespace gnf::nf {

inline constexpr uint32_t kMaxMartianSources = 64;

GNF_INLINE bool martian_source_listed(const uint32_t* words, uint32_t source) {
  const uint32_t count = load_shared_word(words);
  record_acquire_fence();
  for (uint32_t i = 0; i < count && i < kMaxMartianSources; ++i)
    if (load_shared_word(words + 1 + i) == source) return true;
  return false;
}

// The host-side owner. One writer (the router, under its lock); readers anywhere.
class MartianSources {
 public:
  MartianSources() : words_(1 + kMaxMartianSources, 0) {}

  // Makes the list `wanted` (duplicates allowed), changing only what differs. The caller checks
  // that it fits (at most kMaxMartianSources distinct addresses); what does not is left out.
  void set(const std::vector<uint32_t>& wanted);
  // Stores are also recorded (see Lpm4Table::record_stores): addresses into `addresses_log`, the
  // count into `count_log`, replayed after it.
  void record_stores(sync::TableLog* addresses_log, sync::TableLog* count_log, uint32_t region);

  const uint32_t* words() const { return words_.data(); }
  size_t word_count() const { return words_.size(); }

 private:
  void store(uint32_t index, uint32_t value, sync::TableLog* log);

  std::vector<uint32_t> words_;
  sync::TableLog* addresses_log_ = nullptr;
  sync::TableLog* count_log_ = nullptr;
  uint32_t region_ = 0;
};

}  // namespace gnf::nf
