#include "driver/options.h"

#include <utility>

#include <fmt/format.h>

#include "util/name_table.h"

namespace gnf::driver {

namespace {

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
const std::pair<bool, const char*> kTxFull[] = {
    {false, "drop"},
    {true, "wait"},
};

}  // namespace

std::string DriverOptions::pool_problem() const {
  constexpr uint64_t kPoolBytesLimit = uint64_t(1) << 32;
  if (pool_bytes() < kPoolBytesLimit) return "";
  return fmt::format("a pool of {} slots of {} B spans 4 GiB or more, and slots are found by 32-bit offsets in "
                     "their pool: at most {} slots of {} B",
                     slots_per_pool(), slot_bytes(), (kPoolBytesLimit - 1) / slot_bytes(), slot_bytes());
}

const char* tx_completion_name(TxCompletion c) { return name_of(kTxCompletions, c); }
TxCompletion tx_completion_from_name(const std::string& name) { return from_name(kTxCompletions, name); }
std::vector<std::string> tx_completion_names() { return names_of(kTxCompletions); }

const char* staged_mode_name(StagedMode m) { return name_of(kStagedModes, m); }
StagedMode staged_mode_from_name(const std::string& name) { return from_name(kStagedModes, name); }
std::vector<std::string> staged_mode_names() { return names_of(kStagedModes); }

const char* one_way_name(OneWay w) { return name_of(kOneWays, w); }
OneWay one_way_from_name(const std::string& name) { return from_name(kOneWays, name); }
std::vector<std::string> one_way_names() { return names_of(kOneWays); }

const char* tx_full_name(bool wait) { return name_of(kTxFull, wait); }
bool tx_full_wait_from_name(const std::string& name) { return from_name(kTxFull, name); }
std::vector<std::string> tx_full_names() { return names_of(kTxFull); }

}  // namespace gnf::driver
