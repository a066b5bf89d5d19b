// Reading a TOML table field by field with errors that name the file, the line and the key, and
// with unknown keys rejected (a misspelt key must not be silently ignored).
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace gnf::ctl {

class TomlTable {
 public:
  // `where` is the table's path for messages, e.g. "port[1].source".
  TomlTable(const toml::table& table, std::string file, std::string where);

  bool has(const std::string& key) const { return table_.contains(key); }
  int64_t get_int(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  double get_number(const std::string& key, double fallback, double min, double max);
  bool get_bool(const std::string& key, bool fallback);
  std::string get_string(const std::string& key, const std::string& fallback);
  std::string get_choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed);
  std::vector<int64_t> get_int_list(const std::string& key, int64_t min, int64_t max);  // a number or an array
  TomlTable sub_table(const std::string& key);  // must exist and be a table
  const toml::array* table_array(const std::string& key);  // array of tables, or null when absent

  void reject_unknown() const;
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  int line() const { return int(table_.source().begin.line); }
  int line_of(const std::string& key) const;
  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }
  const toml::table& raw() const { return table_; }
  void mark_used(const std::string& key) { used_.insert(key); }

 private:
  const toml::node* find(const std::string& key);
  const toml::table& table_;
  std::string file_;
  std::string where_;
  std::set<std::string> used_;
};

}  // namespace gnf::ctl
