// Reading a TOML table field by field with errors that name the file, the line and the key, and
// with unknown keys rejected (a misspelt key must not be silently ignored).
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "ctl/option_source.h"

namespace gnf::ctl {

class TomlTable final : public OptionSource {
 public:
  // `where` is the table's path for messages, e.g. "port[1].source".
  TomlTable(const toml::table& table, std::string file, std::string where);

  bool has(const std::string& key) const override { return table_.contains(key); }
  int64_t get_int(const std::string& key, int64_t fallback, const IntRule& rule) override;
  double get_number(const std::string& key, double fallback, const NumberRule& rule) override;
  bool get_bool(const std::string& key, bool fallback) override;
  std::string get_string(const std::string& key, const std::string& fallback) override;
  std::string get_path(const std::string& key) override;
  std::vector<int64_t> get_int_list(const std::string& key, const IntRule& rule) override;
  TomlTable sub_table(const std::string& key);  // must exist and be a table
  const toml::array* table_array(const std::string& key);  // array of tables, or null when absent

  void reject_unknown() const;
  [[noreturn]] void fail(const std::string& key, const std::string& message) const override;

  int line() const { return int(table_.source().begin.line); }
  int line_of(const std::string& key) const;
  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }
  const toml::table& raw() const { return table_; }

 private:
  const toml::node* find(const std::string& key);
  int64_t checked_int(const std::string& key, const toml::node& node, const char* expected, const IntRule& rule) const;
  const toml::table& table_;
  std::string file_;
  std::string where_;
  std::set<std::string> used_;
};

}  // namespace gnf::ctl
