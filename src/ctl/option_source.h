// Where the options of one config table come from: the table in a config file (ctl/toml_table.h)
// or the command-line flags that set its keys (ctl/flag_options.h). The readers of
// ctl/config_builder.h take every option through one of these by its config key, so an option
// has one rule and one default whoever gives it, and an error names "file:line: table.key" or
// the flag.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ctl/option_rules.h"

namespace gnf::ctl {

class OptionSource {
 public:
  virtual ~OptionSource() = default;

  virtual bool has(const std::string& key) const = 0;
  // Each returns `fallback` when the key is not given and fails naming it when its value is not
  // of the key's type or breaks its rule.
  virtual int64_t get_int(const std::string& key, int64_t fallback, const IntRule& rule) = 0;
  virtual double get_number(const std::string& key, double fallback, const NumberRule& rule) = 0;
  virtual bool get_bool(const std::string& key, bool fallback) = 0;
  virtual std::string get_string(const std::string& key, const std::string& fallback) = 0;
  // A file name; a config file's relative one starts at the file's folder. Empty when absent.
  virtual std::string get_path(const std::string& key) = 0;
  // A number, or a list of them; empty when absent.
  virtual std::vector<int64_t> get_int_list(const std::string& key, const IntRule& rule) = 0;

  // Throws gnf::UserError naming the key as the user gave it.
  [[noreturn]] virtual void fail(const std::string& key, const std::string& problem) const = 0;

  // One of `names` (util/name_table.h).
  std::string get_choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& names) {
    std::string value = get_string(key, fallback);
    std::string problem = choice_problem(value, names);
    if (!problem.empty()) fail(key, problem);
    return value;
  }
};

}  // namespace gnf::ctl
