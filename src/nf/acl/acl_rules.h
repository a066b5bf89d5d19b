// The owner of an acl element's rule set (nf/tables.h): reads the rule file, builds the classifier
// off the data path, and publishes each rule set whole (sync/swapped.h), on the host and, once the
// path runs the chain on a GPU, in GPU memory, with its hit counters.
//
// Live swap: reload() (gnf run does it on SIGHUP, as daemons reload their configuration) reads the
// file again and builds the new classifier while packets still go through the old one; then one
// store publishes it. A bad file changes nothing. The new set's hit counters start at zero. The old
// set's memory is freed at the next reload, after the readers' grace period: two sets at most.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nf/acl/acl.h"
#include "nf/context.h"
#include "nf/params.h"
#include "nf/tables.h"
#include "sync/device_mirror.h"
#include "sync/swapped.h"

namespace gnf::nf {

class AclRules final : public NfTablesFor<AclNfView> {
 public:
  // Reads and builds `file`'s rules. Throws gnf::UserError: "file:line: field: problem" for a bad
  // rule (rule_file.h), "file: problem" for a file that cannot be read or rules whose tables would
  // take more than max_bytes.
  AclRules(std::string file, size_t max_bytes);
  ~AclRules() override;

  sync::SwappedView<AclRuleSetView> host_view() const { return table_->host_view(); }

  void set_readers(sync::ReaderRegistry* readers) override;
  void device_view(AclNfView& view) override;
  std::optional<std::string> reload() override;
  std::optional<NfTableStats> table_stats() const override;

 private:
  struct RuleSet;
  std::shared_ptr<RuleSet> build() const;
  void copy_to_device(RuleSet& set);

  const std::string file_;
  const size_t max_bytes_;
  mutable std::mutex mutex_;  // reload against table_stats and device_view
  std::unique_ptr<sync::DeviceMirror> mirror_;  // before the sets: their GPU memory goes back to it
  std::shared_ptr<RuleSet> current_;
  std::unique_ptr<sync::SwappedTable<AclRuleSetView>> table_;
  sync::SwappedView<AclRuleSetView> device_view_{};  // once the chain runs on a GPU
  uint64_t reloads_ = 0;
};

// Validates the parameters, reads the rule file and builds the view over the host copy. Throws
// gnf::UserError naming file, line and key (a bad rule: the rule file's own file:line: field).
std::unique_ptr<AclRules> configure_acl(const Params& params, const NfContext& context, AclNfView& view);

}  // namespace gnf::nf
