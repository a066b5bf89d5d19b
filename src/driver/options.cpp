#include "driver/options.h"

#include <stdexcept>
#include <utility>

namespace gnf::driver {

namespace {

// Each mode with the name config files and command lines use, in the order users are shown them.
const std::pair<TxCompletion, const char*> kTxCompletions[] = {
    {TxCompletion::Auto, "auto"},
    {TxCompletion::DescWriteback, "writeback"},
    {TxCompletion::HeadRegister, "head"},
    {TxCompletion::HeadWriteback, "head-writeback"},
    {TxCompletion::None, "none"},
};
const std::pair<StagedMode, const char*> kStagedModes[] = {
    {StagedMode::ZeroCopy, "zero-copy"},
    {StagedMode::Copy, "copy"},
    {StagedMode::Persistent, "persistent"},
};
const std::pair<OneWay, const char*> kOneWays[] = {
    {OneWay::Off, "off"},
    {OneWay::Rx, "rx"},
    {OneWay::Tx, "tx"},
};

template <typename Mode, size_t N>
const char* name_of(const std::pair<Mode, const char*> (&table)[N], Mode mode) {
  for (const auto& [m, name] : table)
    if (m == mode) return name;
  return "?";
}

template <typename Mode, size_t N>
Mode from_name(const std::pair<Mode, const char*> (&table)[N], const std::string& name) {
  for (const auto& [m, n] : table)
    if (name == n) return m;
  throw std::invalid_argument("unknown mode name '" + name + "'");
}

template <typename Mode, size_t N>
std::vector<std::string> names_of(const std::pair<Mode, const char*> (&table)[N]) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.push_back(entry.second);
  return names;
}

}  // namespace

const char* tx_completion_name(TxCompletion c) { return name_of(kTxCompletions, c); }
TxCompletion tx_completion_from_name(const std::string& name) { return from_name(kTxCompletions, name); }
std::vector<std::string> tx_completion_names() { return names_of(kTxCompletions); }

const char* staged_mode_name(StagedMode m) { return name_of(kStagedModes, m); }
StagedMode staged_mode_from_name(const std::string& name) { return from_name(kStagedModes, name); }
std::vector<std::string> staged_mode_names() { return names_of(kStagedModes); }

const char* one_way_name(OneWay w) { return name_of(kOneWays, w); }
OneWay one_way_from_name(const std::string& name) { return from_name(kOneWays, name); }
std::vector<std::string> one_way_names() { return names_of(kOneWays); }

}  // namespace gnf::driver
