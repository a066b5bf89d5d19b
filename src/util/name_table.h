// The names users write for the values of a setting (config files, flags, JSON): each setting has
// one table {value, name}, in the order users are shown the names, and these three read it.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gnf {

template <typename Value, size_t N>
const char* name_of(const std::pair<Value, const char*> (&table)[N], Value value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "?";
}

// std::invalid_argument for a name not in the table: callers check against names_of() first.
template <typename Value, size_t N>
Value from_name(const std::pair<Value, const char*> (&table)[N], const std::string& name) {
  for (const auto& [v, n] : table)
    if (name == n) return v;
  throw std::invalid_argument("unknown name '" + name + "'");
}

template <typename Value, size_t N>
std::vector<std::string> names_of(const std::pair<Value, const char*> (&table)[N]) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.push_back(entry.second);
  return names;
}

}  // namespace gnf
