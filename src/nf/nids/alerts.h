// Alerts of the nids NF on the cpu path: records from the planes to one writer thread through a
// bounded queue, written as Suricata's EVE JSON lines and Snort's fast.log lines.
//
// The queue is Vyukov's bounded MPMC ring: a producer claims a cell by a CAS on the enqueue
// position and publishes it by a release store of the cell's sequence; the writer acquires the
// sequence before reading the cell. A full queue refuses the record at once (the plane counts it as
// alerts_lost): the data path never waits for the writer. Host code only: the GPU paths refuse the
// nids NF until an alert ring in host memory exists for them (nids_rules.h).
#pragma once
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nf/nids/rule.h"

namespace gnf::nf {

struct NidsAlert {
  uint64_t unix_ns;  // when the packet was inspected (CLOCK_REALTIME)
  uint32_t generation;  // the rule set `rule` is an index into (NidsRuleSetView::generation)
  uint32_t rule;
  uint8_t family, proto;
  bool blocked;  // the packet was dropped (a drop rule matched it)
  uint8_t pad;
  uint16_t sport, dport;
  uint8_t src[16], dst[16];
};

class NidsAlertQueue {
 public:
  explicit NidsAlertQueue(uint32_t capacity);  // rounded up to a power of two, at least 2
  // False when the queue is full. Any thread.
  bool push(const NidsAlert& alert);
  // False when the queue is empty. One consumer.
  bool pop(NidsAlert& alert);

 private:
  struct Cell {
    std::atomic<uint64_t> sequence;
    NidsAlert alert;
  };
  std::unique_ptr<Cell[]> cells_;
  uint64_t mask_;
  alignas(64) std::atomic<uint64_t> enqueue_{0};
  alignas(64) std::atomic<uint64_t> dequeue_{0};
};

// What an alert line says about its rule.
struct NidsRuleInfo {
  uint32_t sid, rev, priority;
  std::string msg, classtype;
};

// Drains a queue into the files (either may be empty: not written) from a thread of its own, until
// destroyed; then the queue's last records are written and the files closed.
class NidsAlertWriter {
 public:
  // Throws gnf::UserError "path: problem" when a file cannot be opened.
  NidsAlertWriter(NidsAlertQueue& queue, const std::string& eve_path, const std::string& fast_path);
  ~NidsAlertWriter();
  NidsAlertWriter(const NidsAlertWriter&) = delete;
  NidsAlertWriter& operator=(const NidsAlertWriter&) = delete;

  // The rules of a rule set, before any packet sees it.
  void add_rule_set(uint32_t generation, std::shared_ptr<const std::vector<NidsRuleInfo>> rules);
  uint64_t written() const { return written_.load(std::memory_order_relaxed); }

 private:
  void run();
  void write(const NidsAlert& alert);

  NidsAlertQueue& queue_;
  std::FILE* eve_ = nullptr;
  std::FILE* fast_ = nullptr;
  std::mutex mutex_;  // rule_sets_
  std::map<uint32_t, std::shared_ptr<const std::vector<NidsRuleInfo>>> rule_sets_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> written_{0};
  std::thread thread_;
};

// One alert as its lines: EVE JSON, fast.log (no newline).
std::string nids_eve_line(const NidsAlert& alert, const NidsRuleInfo& rule);
std::string nids_fast_line(const NidsAlert& alert, const NidsRuleInfo& rule);

}  // namespace gnf::nf
