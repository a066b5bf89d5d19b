#include "app/config_flags.h"

#include <fmt/format.h>

#include "util/cores.h"
#include "util/name_table.h"

namespace gnf::app {

namespace {

const char* table_name(Table table) {
  switch (table) {
    case Table::Top: return "";
    case Table::Port: return "port";
    case Table::Source: return "port.source";
    case Table::Sink: return "port.sink";
    case Table::Driver: return "driver";
    case Table::Nic: return "nic";
    case Table::Threads: return "threads";
  }
  return "?";
}

// The parser's check for a flag: what FlagOptions will say of the value when it is read.
template <typename Rule>
CLI::Validator check_by(const Rule& rule) {
  return CLI::Validator([rule](std::string& text) { return ctl::FlagOptions::problem(text, rule); }, rule.describe());
}

}  // namespace

CLI::Option* ConfigFlags::bind(CLI::Option* option, Table table, const std::string& key,
                               const std::string& switch_value) {
  bindings_.push_back(Binding{option, table, key, switch_value});
  return option;
}

CLI::Option* ConfigFlags::add(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                              const ctl::IntRule& rule, const std::string& help) {
  return bind(cmd.add_option(flag)->description(help)->type_name("INT")->check(check_by(rule)), table, key);
}

CLI::Option* ConfigFlags::add(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                              const ctl::NumberRule& rule, const std::string& help) {
  return bind(cmd.add_option(flag)->description(help)->type_name("NUMBER")->check(check_by(rule)), table, key);
}

CLI::Option* ConfigFlags::add(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                              const std::vector<std::string>& names, const std::string& help) {
  CLI::Validator check([names](std::string& text) { return ctl::choice_problem(text, names); }, "");
  return bind(cmd.add_option(flag)->description(help)->type_name(fmt::format("{}", fmt::join(names, "|")))->check(check),
              table, key);
}

CLI::Option* ConfigFlags::add_list(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                                   const ctl::IntRule& rule, const std::string& help) {
  CLI::Option* option = add(cmd, flag, table, key, rule, help);
  return option->expected(1, CLI::detail::expected_max_vector_size)->allow_extra_args(true);
}

CLI::Option* ConfigFlags::add_file(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                                   const std::string& help) {
  return bind(cmd.add_option(flag)->description(help)->type_name("FILE"), table, key);
}

CLI::Option* ConfigFlags::add_cpu_list(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                                       const std::string& help) {
  CLI::Validator check([](std::string& text) { return text.empty() ? "" : parse_cpu_list(text).problem; }, "");
  return bind(cmd.add_option(flag)->description(help)->type_name("CPUS")->check(check), table, key);
}

CLI::Option* ConfigFlags::add_switch(CLI::App& cmd, const std::string& flag, Table table, const std::string& key,
                                     const std::string& value, const std::string& help) {
  return bind(cmd.add_flag(flag)->description(help), table, key, value);
}

void add_thread_options(CLI::App& cmd, ConfigFlags& c) {
  c.add(cmd, "--nic-threads", Table::Nic, "threads", ctl::rule::kNicThreads,
        "NIC-model threads (a port's rx and tx sides may run apart)");
  c.add_switch(cmd, "--no-pin-threads", Table::Nic, "pin_threads", "false",
               "Leave the poll-mode threads (NIC model, CPU driver) to the scheduler instead of a core each");
  c.add(cmd, "--idle", Table::Threads, "idle", names_of(kIdleModeNames),
        "Poll-mode threads with nothing to do: spin, or back off (pause, yield, sleep); auto: spin while a generator "
        "feeds a port, else back off");
  c.add(cmd, "--idle-sleep-us-max", Table::Threads, "idle_sleep_us_max", ctl::rule::kIdleSleepUs,
        "Backing off: the longest sleep, in microseconds");
  c.add_cpu_list(cmd, "--cpus", Table::Threads, "cpus",
                 "CPUs for the poll-mode threads, one each in order (driver, then NIC model), e.g. 2-7,10");
  c.add_cpu_list(cmd, "--control-cpus", Table::Threads, "control_cpus",
                 "CPUs for every other thread (slow path, control socket, metrics, CUDA runtime)");
}

ctl::FlagOptions ConfigFlags::given(Table table) const {
  ctl::FlagOptions options(table_name(table));
  for (const Binding& b : bindings_) {
    if (b.table != table || b.option->count() == 0) continue;
    std::vector<std::string> values = b.switch_value.empty() ? b.option->results() : std::vector{b.switch_value};
    options.give(b.key, b.option->get_name(), values);
  }
  return options;
}

void ConfigFlags::note_origins(ctl::Config& config) const {
  for (const Binding& b : bindings_) {
    if (b.option->count() == 0) continue;
    const std::string flag = b.option->get_name();
    if (b.table == Table::Port) {
      for (size_t p = 0; p < config.ports.size(); ++p) config.origins.note(fmt::format("port[{}].{}", p, b.key), flag);
    } else if (b.table == Table::Source || b.table == Table::Sink) {
      config.origins.note(fmt::format("port[0].{}.{}", b.table == Table::Source ? "source" : "sink", b.key), flag);
    } else {
      const char* table = table_name(b.table);
      config.origins.note(*table ? fmt::format("{}.{}", table, b.key) : b.key, flag);
    }
  }
}

}  // namespace gnf::app
