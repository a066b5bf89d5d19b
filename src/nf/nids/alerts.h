// Alerts of the nids NF written out: records from the alert rings (alert_ring.h: the planes' on the
// cpu path, the GPU's on the others) drained by one writer thread into Suricata's EVE JSON lines and
// Snort's fast.log lines.
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

#include "nf/nids/alert_ring.h"
#include "nf/nids/rule.h"

namespace gnf::nf {

// What an alert line says about its rule.
struct NidsRuleInfo {
  uint32_t sid, rev, priority;
  std::string msg, classtype;
};

// Drains alert rings into the files (either may be empty: not written) from a thread of its own,
// until destroyed; then the rings' last records are written and the files closed. The rings must
// outlive it.
class NidsAlertWriter {
 public:
  // Throws gnf::UserError "path: problem" when a file cannot be opened.
  NidsAlertWriter(const std::string& eve_path, const std::string& fast_path);
  ~NidsAlertWriter();
  NidsAlertWriter(const NidsAlertWriter&) = delete;
  NidsAlertWriter& operator=(const NidsAlertWriter&) = delete;

  // The rules of a rule set, before any packet sees it.
  void add_rule_set(uint32_t generation, std::shared_ptr<const std::vector<NidsRuleInfo>> rules);
  // A ring to drain, before any producer has its ref; this thread becomes its one consumer.
  void add_ring(NidsAlertRing& ring);
  uint64_t written() const { return written_.load(std::memory_order_relaxed); }

 private:
  void run();
  void write(const NidsAlert& alert);

  std::FILE* eve_ = nullptr;
  std::FILE* fast_ = nullptr;
  std::mutex mutex_;  // rule_sets_, rings_
  std::map<uint32_t, std::shared_ptr<const std::vector<NidsRuleInfo>>> rule_sets_;
  std::vector<NidsAlertRing*> rings_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> written_{0};
  std::thread thread_;
};

// One alert as its lines: EVE JSON, fast.log (no newline).
std::string nids_eve_line(const NidsAlert& alert, const NidsRuleInfo& rule);
std::string nids_fast_line(const NidsAlert& alert, const NidsRuleInfo& rule);

}  // namespace gnf::nf
