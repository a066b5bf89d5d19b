#include "ctl/toml_table.h"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::ctl {

TomlTable::TomlTable(const toml::table& table, std::string file, std::string where)
    : table_(table), file_(std::move(file)), where_(std::move(where)) {}

int TomlTable::line_of(const std::string& key) const {
  const toml::node* node = table_.get(key);
  int line = node ? int(node->source().begin.line) : 0;
  return line ? line : this->line();
}

void TomlTable::fail(const std::string& key, const std::string& message) const {
  std::string path = where_.empty() ? key : where_ + "." + key;
  throw UserError(fmt::format("{}:{}: {}: {}", file_, line_of(key), path, message));
}

const toml::node* TomlTable::find(const std::string& key) {
  used_.insert(key);
  return table_.get(key);
}

int64_t TomlTable::checked_int(const std::string& key, const toml::node& node, const char* expected,
                               const IntRule& rule) const {
  auto value = node.value_exact<int64_t>();
  if (!value) fail(key, expected);
  std::string problem = rule.problem(*value, Given::InFile);
  if (!problem.empty()) fail(key, problem);
  return *value;
}

int64_t TomlTable::get_int(const std::string& key, int64_t fallback, const IntRule& rule) {
  const toml::node* node = find(key);
  return node ? checked_int(key, *node, "expected an integer", rule) : fallback;
}

double TomlTable::get_number(const std::string& key, double fallback, const NumberRule& rule) {
  const toml::node* node = find(key);
  if (!node) return fallback;
  if (!node->is_number()) fail(key, "expected a number");
  // toml++ converts an integer to double only when the double holds it exactly; a larger one is
  // still a number, rounded here, and the rule then judges it (config_fuzz: duration = 8888888388888888888).
  const std::optional<int64_t> integer = node->value_exact<int64_t>();
  const double value = integer ? double(*integer) : *node->value<double>();
  std::string problem = rule.problem(value);
  if (!problem.empty()) fail(key, problem);
  return value;
}

bool TomlTable::get_bool(const std::string& key, bool fallback) {
  const toml::node* node = find(key);
  if (!node) return fallback;
  auto value = node->value_exact<bool>();
  if (!value) fail(key, "expected true or false");
  return *value;
}

std::string TomlTable::get_string(const std::string& key, const std::string& fallback) {
  const toml::node* node = find(key);
  if (!node) return fallback;
  auto value = node->value_exact<std::string>();
  if (!value) fail(key, "expected a string");
  return *value;
}

std::string TomlTable::get_path(const std::string& key) {
  std::string path = get_string(key, "");
  std::filesystem::path folder = std::filesystem::path(file_).parent_path();
  if (path.empty() || folder.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (folder / path).lexically_normal().string();
}

std::vector<int64_t> TomlTable::get_int_list(const std::string& key, const IntRule& rule) {
  const toml::node* node = find(key);
  std::vector<int64_t> out;
  if (!node) return out;
  const char* expected = "expected an integer or an array of integers";
  if (const toml::array* array = node->as_array()) {
    if (array->empty()) fail(key, "the array is empty");
    for (const toml::node& n : *array) out.push_back(checked_int(key, n, expected, rule));
  } else {
    out.push_back(checked_int(key, *node, expected, rule));
  }
  return out;
}

TomlTable TomlTable::sub_table(const std::string& key) {
  const toml::node* node = find(key);
  if (!node || !node->is_table()) fail(key, "expected a table");
  return TomlTable(*node->as_table(), file_, where_.empty() ? key : where_ + "." + key);
}

const toml::array* TomlTable::table_array(const std::string& key) {
  const toml::node* node = find(key);
  if (!node) return nullptr;
  const toml::array* array = node->as_array();
  if (!array || !array->is_array_of_tables()) fail(key, fmt::format("expected [[{}]] tables", key));
  return array;
}

void TomlTable::reject_unknown() const {
  for (auto&& [key, node] : table_) {
    std::string k(key.str());
    if (!used_.count(k)) fail(k, "unknown key");
  }
}

}  // namespace gnf::ctl
