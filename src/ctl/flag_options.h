// Options given on a command line, by their config keys. `gnf run` and `gnf bench` hand the flags
// that set one config table's keys over as one of these (app/config_flags.h), and the readers of
// ctl/config_builder.h take a flag's value as they take its key's in a config file: through the
// same rule, with errors that name the flag.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ctl/option_source.h"

namespace gnf::ctl {

class FlagOptions final : public OptionSource {
 public:
  // `table` names the config table in errors about a key no flag gave ("driver"; "" for the top).
  explicit FlagOptions(std::string table) : table_(std::move(table)) {}

  // `flag` gave `key` these values, as typed.
  void give(const std::string& key, std::string flag, std::vector<std::string> values);
  // The flag that gave `key` (has(key) first).
  const std::string& flag_of(const std::string& key) const { return given_.at(key).flag; }

  // What is wrong with `text` as a value of an option with this rule ("" if nothing): what a flag
  // is checked by as the command line is parsed, and again when it is read.
  static std::string problem(const std::string& text, const IntRule& rule);
  static std::string problem(const std::string& text, const NumberRule& rule);

  bool has(const std::string& key) const override { return given_.count(key) != 0; }
  int64_t get_int(const std::string& key, int64_t fallback, const IntRule& rule) override;
  double get_number(const std::string& key, double fallback, const NumberRule& rule) override;
  bool get_bool(const std::string& key, bool fallback) override;
  std::string get_string(const std::string& key, const std::string& fallback) override;
  std::string get_path(const std::string& key) override { return get_string(key, ""); }
  std::vector<int64_t> get_int_list(const std::string& key, const IntRule& rule) override;
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const override;

 private:
  struct Entry {
    std::string flag;
    std::vector<std::string> values;
  };
  // The value of a flag given once (the last, if given more than once); null when not given.
  const std::string* value(const std::string& key) const;
  int64_t int_of(const std::string& key, const std::string& text, const IntRule& rule) const;
  std::string table_;
  std::map<std::string, Entry> given_;
};

}  // namespace gnf::ctl
