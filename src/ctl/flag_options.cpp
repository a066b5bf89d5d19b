#include "ctl/flag_options.h"

#include <charconv>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::ctl {

namespace {

std::optional<int64_t> parse_int(const std::string& text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_number(const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

void FlagOptions::give(const std::string& key, std::string flag, std::vector<std::string> values) {
  given_[key] = Entry{std::move(flag), std::move(values)};
}

std::string FlagOptions::problem(const std::string& text, const IntRule& rule) {
  std::optional<int64_t> value = parse_int(text);
  return value ? rule.problem(*value, Given::AsFlag) : "expected an integer";
}

std::string FlagOptions::problem(const std::string& text, const NumberRule& rule) {
  std::optional<double> value = parse_number(text);
  return value ? rule.problem(*value) : "expected a number";
}

const std::string* FlagOptions::value(const std::string& key) const {
  auto it = given_.find(key);
  return it == given_.end() || it->second.values.empty() ? nullptr : &it->second.values.back();
}

void FlagOptions::fail(const std::string& key, const std::string& problem) const {
  auto it = given_.find(key);
  throw UserError(it != given_.end() ? fmt::format("{}: {}", it->second.flag, problem)
                                     : fmt::format("{}{}: {}", table_.empty() ? "" : table_ + ".", key, problem));
}

int64_t FlagOptions::int_of(const std::string& key, const std::string& text, const IntRule& rule) const {
  std::string why = problem(text, rule);
  if (!why.empty()) fail(key, why);
  return *parse_int(text);
}

int64_t FlagOptions::get_int(const std::string& key, int64_t fallback, const IntRule& rule) {
  const std::string* text = value(key);
  return text ? int_of(key, *text, rule) : fallback;
}

double FlagOptions::get_number(const std::string& key, double fallback, const NumberRule& rule) {
  const std::string* text = value(key);
  if (!text) return fallback;
  std::string why = problem(*text, rule);
  if (!why.empty()) fail(key, why);
  return *parse_number(*text);
}

bool FlagOptions::get_bool(const std::string& key, bool fallback) {
  const std::string* text = value(key);
  if (!text) return fallback;
  if (*text != "true" && *text != "false") fail(key, "expected true or false");
  return *text == "true";
}

std::string FlagOptions::get_string(const std::string& key, const std::string& fallback) {
  const std::string* text = value(key);
  return text ? *text : fallback;
}

std::vector<int64_t> FlagOptions::get_int_list(const std::string& key, const IntRule& rule) {
  std::vector<int64_t> out;
  auto it = given_.find(key);
  if (it == given_.end()) return out;
  for (const std::string& text : it->second.values) out.push_back(int_of(key, text, rule));
  return out;
}

}  // namespace gnf::ctl
