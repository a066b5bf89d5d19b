#include "nf/params.h"

#include <filesystem>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nf {

const ParamValue* Params::find(const std::string& key) const {
  used_.insert(key);
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

void Params::fail(const std::string& key, const std::string& message) const {
  auto it = values_.find(key);
  int line = it != values_.end() && it->second.line ? it->second.line : line_;
  throw UserError(fmt::format("{}:{}: {}.{}: {}", file_, line, where_, key, message));
}

std::string Params::get_string(const std::string& key, const std::string& fallback) const {
  const ParamValue* v = find(key);
  if (!v) return fallback;
  if (auto* s = std::get_if<std::string>(&v->value)) return *s;
  fail(key, "expected a string");
}

std::string Params::get_choice(const std::string& key, const std::string& fallback,
                               const std::vector<std::string>& allowed) const {
  std::string value = get_string(key, fallback);
  for (const auto& a : allowed)
    if (a == value) return value;
  fail(key, fmt::format("'{}' is not one of: {}", value, fmt::join(allowed, ", ")));
}

int64_t Params::get_int(const std::string& key, int64_t fallback, int64_t min, int64_t max) const {
  const ParamValue* v = find(key);
  if (!v) return fallback;
  auto* i = std::get_if<int64_t>(&v->value);
  if (!i) fail(key, "expected an integer");
  if (*i < min || *i > max) fail(key, fmt::format("{} is out of range [{}, {}]", *i, min, max));
  return *i;
}

bool Params::get_bool(const std::string& key, bool fallback) const {
  const ParamValue* v = find(key);
  if (!v) return fallback;
  if (auto* b = std::get_if<bool>(&v->value)) return *b;
  fail(key, "expected true or false");
}

std::string Params::resolve(const std::string& path) const {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  std::filesystem::path dir = std::filesystem::path(file_).parent_path();
  if (file_ == "<command line>" || dir.empty()) return path;
  return (dir / path).lexically_normal().string();
}

std::string Params::get_path(const std::string& key) const { return resolve(get_string(key, "")); }

std::vector<std::string> Params::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : values_) out.push_back(entry.first);
  return out;
}

std::string Params::path_if_string(const std::string& key) const {
  auto it = values_.find(key);
  const std::string* text = it == values_.end() ? nullptr : std::get_if<std::string>(&it->second.value);
  return text ? resolve(*text) : "";
}

int Params::line_of(const std::string& key) const {
  auto it = values_.find(key);
  return it != values_.end() && it->second.line ? it->second.line : line_;
}

void Params::reject_unknown() const {
  for (const auto& [key, value] : values_)
    if (!used_.count(key)) fail(key, "unknown parameter");
}

}  // namespace gnf::nf
