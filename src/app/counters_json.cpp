#include "app/counters_json.h"

namespace gnf::app {

namespace {

nlohmann::json table_json(const nf::NfTableStats& table) {
  nlohmann::json entries = nlohmann::json::array();
  for (const nf::NfEntryStats& entry : table.entries) {
    nlohmann::json e = {{"line", entry.line}, {"action", entry.action}};
    for (const auto& [name, value] : entry.counters) e[name] = value;
    entries.push_back(e);
  }
  return {{"file", table.file}, {"reloads", table.reloads}, {"entries", entries}};
}

}  // namespace

void add_port_counters(nlohmann::json& port, const path::PortStats& p) {
  nlohmann::json& drops = port["drops"] = nlohmann::json::object();
  for (const auto& field : nic::PortCounterValues::kFields) {
    if (field.role != Role::Diagnostic) (dropped_at_nic(field.role) ? drops : port)[field.name] = p.*field.member;
  }
}

nlohmann::json nf_json(const path::NfStats& nf) {
  nlohmann::json counters = nlohmann::json::object();
  for (const auto& [name, value] : nf.counters) counters[name] = value;
  nlohmann::json element = {{"type", nf.name}, {"counters", counters}};
  if (nf.table) element[nf.table->name] = table_json(*nf.table);
  return element;
}

}  // namespace gnf::app
