// The owner of a nids element's rule set and alert output (nf/tables.h): reads the rules, builds
// the automaton and the compiled rules off the data path, publishes each set whole
// (sync/swapped.h), and runs the alert writer (alerts.h).
//
// Live swap, as acl's: reload() (SIGHUP) reads the files again and builds the next set while
// packets still go through the current one; one store publishes it; a bad file changes nothing.
// The new set's hit counters start at zero; the old set is freed at the next reload, after the
// readers' grace period. Alert records name their set by generation, so the writer words a record
// queued before a reload by the rules it was made with.
//
// GPU paths (staged, bypass): device_view() copies the set into GPU memory as one buffer (its
// layout and its size per rule-set size: rule_set.h; a reload copies the next set in before
// publishing it, so two are there until the grace period ends), measures the GPU timer's offset to
// the host's clock (alert_clock.h), and makes the GPU's alert ring, which the writer drains beside
// the host's: each side's producers have a ring of their own, since they cannot share a claim
// counter (alert_ring.h). Its records cross PCIe into pinned memory, alert_queue x 64 B of it. The
// hit counters the GPU adds to are read back for table_stats() and added to the host's.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nf/context.h"
#include "nf/nids/alerts.h"
#include "nf/nids/nids.h"
#include "nf/nids/rule_parser.h"
#include "nf/params.h"
#include "nf/tables.h"
#include "sync/device_mirror.h"
#include "sync/swapped.h"

namespace gnf::nf {

struct NidsOptions {
  std::string rules_file, vars_file;
  NidsVars vars;  // the config's, over the vars file's
  UnsupportedRules unsupported = UnsupportedRules::Refuse;
  std::string eve_log, fast_log;
  uint32_t alert_queue = 65536;
  size_t max_bytes = kNidsDefaultMaxBytes;
};

class NidsRules final : public NfTablesFor<NidsNfView> {
 public:
  // Reads and builds the rules, opens the alert files. Throws gnf::UserError: a rule's
  // "file:line: field: problem" (under refuse), "file: problem" for a file that cannot be read or
  // written, or an automaton over max_bytes.
  explicit NidsRules(NidsOptions options);
  ~NidsRules() override;

  sync::SwappedView<NidsRuleSetView> host_view() const { return table_->host_view(); }
  NidsAlertRingRef host_alerts() const { return host_ring_.ref(); }

  void set_readers(sync::ReaderRegistry* readers) override;
  void device_view(NidsNfView& view) override;
  std::optional<std::string> reload() override;
  std::optional<NfTableStats> table_stats() const override;

 private:
  struct RuleSet;
  std::shared_ptr<RuleSet> build();
  void copy_to_device(RuleSet& set);

  const NidsOptions options_;
  NidsAlertRing host_ring_;
  std::unique_ptr<NidsAlertRing> gpu_ring_;  // once on a GPU
  std::unique_ptr<NidsAlertWriter> writer_;  // after the rings: it drains them until destroyed
  mutable std::mutex mutex_;  // reload against table_stats and device_view
  std::atomic<uint32_t> generations_{0};  // build() runs outside the mutex
  std::unique_ptr<sync::DeviceMirror> mirror_;  // before the sets: their GPU memory goes back to it
  std::shared_ptr<RuleSet> current_;
  std::unique_ptr<sync::SwappedTable<NidsRuleSetView>> table_;
  sync::SwappedView<NidsRuleSetView> device_view_{};  // once on a GPU
  int64_t unix_minus_gpu_timer_ns_ = 0;
  uint64_t reloads_ = 0;
};

// Validates the parameters (nids.h), reads the rules and builds the view over the host copy.
std::unique_ptr<NidsRules> configure_nids(const Params& params, const NfContext& context, NidsNfView& view);

}  // namespace gnf::nf
