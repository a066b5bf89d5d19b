// The flags of `gnf run` and `gnf bench` that set config options. Each is declared for one key of
// a config table, and the command-line parser checks it by that key's rule (ctl/option_rules.h,
// through ctl::FlagOptions::problem: a bad value is refused while parsing, with the parser's exit
// code). After parsing, the flags given are handed to the config builder (ctl/config_builder.h)
// as the options of their tables, so a flag takes what its key takes, with the same default.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ctl/config.h"
#include "ctl/flag_options.h"
#include "ctl/option_rules.h"

namespace gnf::app {

// The config file's tables: the top level, [[port]], [port.source], [port.sink], [driver], [nic],
// [threads].
enum class Table { Top, Port, Source, Sink, Driver, Nic, Threads };

class ConfigFlags {
 public:
  CLI::Option* add(CLI::App& cmd, const std::string& flag, Table table, const std::string& key, const ctl::IntRule& rule,
                   const std::string& help);
  CLI::Option* add(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                   const ctl::NumberRule& rule, const std::string& help);
  // One of `names`.
  CLI::Option* add(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                   const std::vector<std::string>& names, const std::string& help);
  // One or more values, each by `rule` ("--size 64 1518").
  CLI::Option* add_list(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                        const ctl::IntRule& rule, const std::string& help);
  // A file name.
  CLI::Option* add_file(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                        const std::string& help);
  // A CPU list ("2-7,10", util/cores.h; "" for none).
  CLI::Option* add_cpu_list(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                            const std::string& help);
  // A flag without a value that gives `key` the value `value` ("--no-drop-en": drop_en = false).
  CLI::Option* add_switch(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                          const std::string& value, const std::string& help);

  // After parsing: the flags given for `table`.
  ctl::FlagOptions given(Table table) const;
  // After the Config is built: the keys the flags gave are theirs in its origins (errors found
  // later name the flag). Port flags name every port's key; source and sink flags port 0's.
  void note_origins(ctl::Config& config) const;

 private:
  CLI::Option* bind(CLI::Option* option, Table table, const std::string& key, const std::string& switch_value = "");
  struct Binding {
    CLI::Option* option;
    Table table;
    std::string key;
    std::string switch_value;  // a switch's value; "" for a flag that takes values
  };
  std::vector<Binding> bindings_;
};

// The flags of [nic] and [threads] that `gnf run` and `gnf bench` share: the poll-mode threads,
// how they wait when idle and where every thread runs.
void add_thread_options(CLI::App& cmd, ConfigFlags& flags);

}  // namespace gnf::app
