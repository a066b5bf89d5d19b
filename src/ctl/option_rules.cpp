#include "ctl/option_rules.h"

#include <algorithm>

#include <fmt/format.h>

namespace gnf::ctl {

namespace {

// "10, 25 and 40" (last_separator " and ")
std::string listing(const std::vector<int64_t>& values, const char* last_separator) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i)
    text += fmt::format("{}{}", i == 0 ? "" : i + 1 == values.size() ? last_separator : ", ", values[i]);
  return text;
}

// "[0, 1000000]", "(0, 400]"
std::string interval(const NumberRule& rule) {
  return fmt::format("{}{}, {}]", rule.above_min ? "(" : "[", rule.min, rule.max);
}

}  // namespace

std::string IntRule::problem(int64_t value, Given given) const {
  if (!only.empty()) {
    if (std::find(only.begin(), only.end(), value) != only.end()) return "";
    return fmt::format("supported {} are {}{}", only_what, listing(only, " and "), *unit ? fmt::format(" ({})", unit) : "");
  }
  if (value < min || value > max) return fmt::format("{} is out of range [{}, {}]", value, min, max);
  if (value % step == 0) return "";
  if (given == Given::InFile) return fmt::format("must be a multiple of {} ({})", step, step_reason);
  return fmt::format("{} is not a multiple of {} ({})", value, step, step_reason);
}

std::string IntRule::describe() const {
  if (!only.empty()) return listing(only, " or ");
  std::string range = fmt::format("in [{}, {}]", min, max);
  return step == 1 ? range : fmt::format("{}, a multiple of {}", range, step);
}

std::string NumberRule::problem(double value) const {
  if ((above_min ? value > min : value >= min) && value <= max) return "";
  return fmt::format("{} is out of range {}", value, interval(*this));
}

std::string NumberRule::describe() const { return "in " + interval(*this); }

std::string choice_problem(const std::string& value, const std::vector<std::string>& names) {
  if (std::find(names.begin(), names.end(), value) != names.end()) return "";
  return fmt::format("'{}' is not one of: {}", value, fmt::join(names, ", "));
}

}  // namespace gnf::ctl
