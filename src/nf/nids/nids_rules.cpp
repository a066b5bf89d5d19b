#include "nf/nids/nids_rules.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include <fmt/format.h>

#include "util/error.h"
#include "util/files.h"

namespace gnf::nf {

// One rule set and everything its views point into: on the GPU, its image (rule_set.h).
struct NidsRules::RuleSet {
  NidsRuleFile file;
  std::unique_ptr<NidsCompiledRules> compiled;
  sync::DeviceCopy device;

  NidsRuleSetView device_view() const { return device.data() ? compiled->view_at(device.data()) : NidsRuleSetView{}; }
};

NidsRules::NidsRules(NidsOptions options)
    : options_(std::move(options)),
      host_ring_(options_.alert_queue, mem::Domain::Host, mem::Domain::Host),
      writer_(std::make_unique<NidsAlertWriter>(options_.eve_log, options_.fast_log)) {
  writer_->add_ring(host_ring_);
  current_ = build();
  table_ = std::make_unique<sync::SwappedTable<NidsRuleSetView>>(current_->compiled->host_view(), current_);
}

NidsRules::~NidsRules() = default;

std::shared_ptr<NidsRules::RuleSet> NidsRules::build() {
  NidsVars vars;
  if (!options_.vars_file.empty()) read_nids_vars_file(options_.vars_file, vars);
  for (const auto& [name, value] : options_.vars) vars[name] = value;
  auto set = std::make_shared<RuleSet>();
  set->file = read_nids_rule_file(options_.rules_file, vars, options_.unsupported);
  const uint32_t generation = generations_++;
  try {
    set->compiled = std::make_unique<NidsCompiledRules>(set->file.rules, options_.max_bytes, generation);
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}", options_.rules_file, e.what()));
  }
  auto info = std::make_shared<std::vector<NidsRuleInfo>>();
  for (const NidsRule& r : set->file.rules) info->push_back({r.sid, r.rev, r.priority, r.msg, r.classtype});
  writer_->add_rule_set(generation, std::move(info));
  for (const std::string& skipped : set->file.skipped) fmt::print(stderr, "gnf: nids: rule skipped: {}\n", skipped);
  return set;
}

void NidsRules::set_readers(sync::ReaderRegistry* readers) {
  std::lock_guard lock(mutex_);
  table_->set_readers(readers);
}

void NidsRules::copy_to_device(RuleSet& set) {
  const std::vector<uint64_t> image = set.compiled->device_image();
  set.device = sync::DeviceCopy(*mirror_, image.data(), image.size() * sizeof(uint64_t));
}

void NidsRules::device_view(NidsNfView& view) {
  std::lock_guard lock(mutex_);
  if (!table_->on_device()) {
    mirror_ = std::make_unique<sync::DeviceMirror>();
    copy_to_device(*current_);
    device_view_ = table_->make_device_view(*mirror_, current_->device_view(), current_);
    unix_minus_gpu_timer_ns_ = nids_unix_minus_gpu_timer_ns();
    gpu_ring_ = std::make_unique<NidsAlertRing>(options_.alert_queue, mem::Domain::HostPinned, mem::Domain::Device);
    writer_->add_ring(*gpu_ring_);
  }
  view.rule_set = device_view_;
  view.alerts = gpu_ring_->ref();
  view.unix_minus_gpu_timer_ns = unix_minus_gpu_timer_ns_;
}

std::optional<std::string> NidsRules::reload() {
  std::shared_ptr<RuleSet> next = build();  // off the data path, the current set still in use
  std::lock_guard lock(mutex_);
  if (table_->on_device()) copy_to_device(*next);
  table_->publish(next->compiled->host_view(), next, next->device_view(), next);
  current_ = next;
  ++reloads_;
  return fmt::format("{} rules ({} skipped) from {}", next->file.rules.size(), next->file.skipped.size(),
                     options_.rules_file);
}

std::optional<NfTableStats> NidsRules::table_stats() const {
  std::lock_guard lock(mutex_);
  const RuleSet& set = *current_;
  const NidsRuleSetView view = set.compiled->host_view();
  std::vector<unsigned long long> device_hits(set.file.rules.size(), 0);
  if (set.device.data() && !device_hits.empty())
    mirror_->copy_out(device_hits.data(), set.device_view().hits, device_hits.size() * sizeof(unsigned long long));
  NfTableStats stats{"rules", options_.rules_file, reloads_, {}};
  for (size_t r = 0; r < set.file.rules.size(); ++r) {
    const NidsRule& rule = set.file.rules[r];
    const uint64_t hits = __atomic_load_n(&view.hits[r], __ATOMIC_RELAXED) + device_hits[r];
    stats.entries.push_back({rule.line, nids_action_name(rule.action), {{"sid", rule.sid}, {"hits", hits}}});
  }
  return stats;
}

std::unique_ptr<NidsRules> configure_nids(const Params& params, const NfContext&, NidsNfView& view) {
  NidsOptions options;
  options.rules_file = params.get_path("rules");
  options.vars_file = params.get_path("vars");
  options.unsupported =
      params.get_choice("unsupported", "refuse", {"refuse", "skip"}) == "skip" ? UnsupportedRules::Skip : UnsupportedRules::Refuse;
  options.eve_log = params.get_path("eve_log");
  options.fast_log = params.get_path("fast_log");
  options.alert_queue = uint32_t(params.get_int("alert_queue", options.alert_queue, 1, 1 << 24));
  options.max_bytes = size_t(params.get_int("max_mib", int64_t(kNidsDefaultMaxBytes >> 20), 1, 1 << 20)) << 20;
  for (const std::string& key : params.keys()) {
    const bool variable = std::any_of(key.begin(), key.end(), [](char c) { return std::isupper(uint8_t(c)); }) &&
                          std::none_of(key.begin(), key.end(), [](char c) { return std::islower(uint8_t(c)); });
    if (variable) options.vars[key] = params.get_string(key, "");
  }
  params.reject_unknown();
  if (options.rules_file.empty()) params.fail("rules", "a nids needs a Snort rule file: rules = \"FILE\"");
  for (const char* key : {"rules", "vars"}) {
    try {
      if (!params.get_path(key).empty()) check_input_file(params.get_path(key));
    } catch (const UserError& e) {
      params.fail(key, e.what());
    }
  }
  for (const char* key : {"eve_log", "fast_log"}) {
    try {
      if (!params.get_path(key).empty()) check_output_file(params.get_path(key));
    } catch (const UserError& e) {
      params.fail(key, e.what());
    }
  }
  auto tables = std::make_unique<NidsRules>(std::move(options));
  view = NidsNfView{};
  view.rule_set = tables->host_view();
  view.alerts = tables->host_alerts();
  return tables;
}

}  // namespace gnf::nf
