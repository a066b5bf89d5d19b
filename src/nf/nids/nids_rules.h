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
// GPU paths (staged, bypass): refused in device_view(), with a UserError that says so, until alert
// records have a ring in host memory to leave the GPU by.
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
  NidsAlertQueue* alert_queue() { return &queue_; }

  void set_readers(sync::ReaderRegistry* readers) override;
  void device_view(NidsNfView& view) override;
  std::optional<std::string> reload() override;
  std::optional<NfTableStats> table_stats() const override;

 private:
  struct RuleSet;
  std::shared_ptr<RuleSet> build();

  const NidsOptions options_;
  NidsAlertQueue queue_;
  std::unique_ptr<NidsAlertWriter> writer_;
  mutable std::mutex mutex_;  // reload against table_stats
  std::atomic<uint32_t> generations_{0};  // build() runs outside the mutex
  std::shared_ptr<RuleSet> current_;
  std::unique_ptr<sync::SwappedTable<NidsRuleSetView>> table_;
  uint64_t reloads_ = 0;
};

// Validates the parameters (nids.h), reads the rules and builds the view over the host copy.
std::unique_ptr<NidsRules> configure_nids(const Params& params, const NfContext& context, NidsNfView& view);

}  // namespace gnf::nf
