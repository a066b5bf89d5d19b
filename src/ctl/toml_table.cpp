#include "ctl/toml_table.h"

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

int64_t TomlTable::get_int(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  const toml::node* node = find(key);
  if (!node) return fallback;
  auto value = node->value_exact<int64_t>();
  if (!value) fail(key, "expected an integer");
  if (*value < min || *value > max) fail(key, fmt::format("{} is out of range [{}, {}]", *value, min, max));
  return *value;
}

double TomlTable::get_number(const std::string& key, double fallback, double min, double max) {
  const toml::node* node = find(key);
  if (!node) return fallback;
  if (!node->is_number()) fail(key, "expected a number");
  double value = node->value<double>().value();
  if (value < min || value > max) fail(key, fmt::format("{} is out of range [{}, {}]", value, min, max));
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

std::string TomlTable::get_choice(const std::string& key, const std::string& fallback,
                                  const std::vector<std::string>& allowed) {
  std::string value = get_string(key, fallback);
  for (const auto& a : allowed)
    if (a == value) return value;
  fail(key, fmt::format("'{}' is not one of: {}", value, fmt::join(allowed, ", ")));
}

std::vector<int64_t> TomlTable::get_int_list(const std::string& key, int64_t min, int64_t max) {
  const toml::node* node = find(key);
  std::vector<int64_t> out;
  if (!node) return out;
  auto check = [&](const toml::node& n) {
    auto value = n.value_exact<int64_t>();
    if (!value) fail(key, "expected an integer or an array of integers");
    if (*value < min || *value > max) fail(key, fmt::format("{} is out of range [{}, {}]", *value, min, max));
    out.push_back(*value);
  };
  if (const toml::array* array = node->as_array()) {
    if (array->empty()) fail(key, "the array is empty");
    for (const toml::node& n : *array) check(n);
  } else {
    check(*node);
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
