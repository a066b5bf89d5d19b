#include "nf/acl/acl_rules.h"

#include <cstring>

#include <fmt/format.h>

#include "util/error.h"
#include "util/files.h"

namespace gnf::nf {

// One rule set and everything its views point into. On the GPU one buffer holds the classifier's
// arena, the hit counters and the actions, in that order (each starts 8-byte aligned).
struct AclRules::RuleSet {
  std::vector<AclRule> rules;
  std::unique_ptr<AclClassifier> classifier;
  std::vector<AclAction> actions;
  std::vector<unsigned long long> hits;  // the host readers'
  sync::DeviceCopy device;

  unsigned long long* device_hits() const {
    return reinterpret_cast<unsigned long long*>(device.data() + classifier->arena_bytes());
  }
  AclRuleSetView host_view() {
    return {classifier->view(), actions.data(), hits.data(), uint32_t(rules.size())};
  }
  AclRuleSetView device_view() const {
    if (!device.data()) return {};
    return {classifier->view_at(device.data()), reinterpret_cast<const AclAction*>(device_hits() + rules.size()),
            device_hits(), uint32_t(rules.size())};
  }
};

AclRules::AclRules(std::string file, size_t max_bytes) : file_(std::move(file)), max_bytes_(max_bytes) {
  current_ = build();
  table_ = std::make_unique<sync::SwappedTable<AclRuleSetView>>(current_->host_view(), current_);
}

AclRules::~AclRules() = default;

std::shared_ptr<AclRules::RuleSet> AclRules::build() const {
  auto set = std::make_shared<RuleSet>();
  set->rules = read_acl_rule_file(file_);
  try {
    set->classifier = std::make_unique<AclClassifier>(acl_matches_of(set->rules), max_bytes_);
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}", file_, e.what()));
  }
  for (const AclRule& rule : set->rules) set->actions.push_back(rule.action);
  set->hits.assign(set->rules.size(), 0);
  return set;
}

void AclRules::copy_to_device(RuleSet& set) {
  const size_t arena_words = set.classifier->arena_bytes() / sizeof(uint64_t), rules = set.rules.size();
  std::vector<uint64_t> staging(arena_words + rules + (rules + 7) / 8, 0);  // the hits start at zero
  std::memcpy(staging.data(), set.classifier->arena(), set.classifier->arena_bytes());
  std::memcpy(staging.data() + arena_words + rules, set.actions.data(), rules);
  set.device = sync::DeviceCopy(*mirror_, staging.data(), staging.size() * sizeof(uint64_t));
}

void AclRules::set_readers(sync::ReaderRegistry* readers) {
  std::lock_guard lock(mutex_);
  table_->set_readers(readers);
}

void AclRules::device_view(AclNfView& view) {
  std::lock_guard lock(mutex_);
  if (!table_->on_device()) {
    mirror_ = std::make_unique<sync::DeviceMirror>();
    copy_to_device(*current_);
    device_view_ = table_->make_device_view(*mirror_, current_->device_view(), current_);
  }
  view.rule_set = device_view_;
}

std::optional<std::string> AclRules::reload() {
  std::shared_ptr<RuleSet> next = build();  // off the data path, the current set still in use
  std::lock_guard lock(mutex_);
  if (table_->on_device()) copy_to_device(*next);
  table_->publish(next->host_view(), next, next->device_view(), next);
  current_ = next;
  ++reloads_;
  return fmt::format("{} rules from {}", next->rules.size(), file_);
}

std::optional<NfTableStats> AclRules::table_stats() const {
  std::lock_guard lock(mutex_);
  const RuleSet& set = *current_;
  std::vector<unsigned long long> device_hits(set.rules.size(), 0);
  if (set.device.data()) mirror_->copy_out(device_hits.data(), set.device_hits(), device_hits.size() * sizeof(uint64_t));
  NfTableStats stats{"rules", file_, reloads_, {}};
  for (size_t r = 0; r < set.rules.size(); ++r) {
    const uint64_t hits = __atomic_load_n(&set.hits[r], __ATOMIC_RELAXED) + device_hits[r];
    stats.entries.push_back({set.rules[r].line, acl_action_name(set.rules[r].action), {{"hits", hits}}});
  }
  return stats;
}

std::unique_ptr<AclRules> configure_acl(const Params& params, const NfContext&, AclNfView& view) {
  const std::string rules = params.get_path("rules");
  const std::string default_action = params.get_choice("default", "deny", {"deny", "permit"});
  const int64_t max_mib = params.get_int("max_mib", int64_t(kAclDefaultMaxBytes >> 20), 1, int64_t(1) << 20);
  params.reject_unknown();
  if (rules.empty()) params.fail("rules", "an acl needs a rule file (DPDK l3fwd-acl's format): rules = \"FILE\"");
  try {
    check_input_file(rules);
  } catch (const UserError& e) {
    params.fail("rules", e.what());
  }
  auto tables = std::make_unique<AclRules>(rules, size_t(max_mib) << 20);
  view = AclNfView{};
  view.rule_set = tables->host_view();
  view.default_action = default_action == "permit" ? AclAction::Permit : AclAction::Deny;
  return tables;
}

}  // namespace gnf::nf
