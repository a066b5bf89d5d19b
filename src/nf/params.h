// An NF's configuration parameters as the control plane parsed them, with where each came from,
// so that an NF's configure() can reject a value naming the file, the line and the key.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace gnf::nf {

struct ParamValue {
  std::variant<bool, int64_t, double, std::string> value;
  int line = 0;
};

class Params {
 public:
  Params() = default;
  // `where` names the table the parameters came from, e.g. "nf[0]" or "nf.l2fwd".
  Params(std::string file, int line, std::string where) : file_(std::move(file)), line_(line), where_(std::move(where)) {}

  void set(const std::string& key, ParamValue v) { values_[key] = std::move(v); }

  std::string get_string(const std::string& key, const std::string& fallback) const;
  // Like get_string, but the value must be one of `allowed`.
  std::string get_choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed) const;
  int64_t get_int(const std::string& key, int64_t fallback, int64_t min, int64_t max) const;
  bool get_bool(const std::string& key, bool fallback) const;
  // A file name; a relative one starts at the config file's folder. Empty when absent.
  std::string get_path(const std::string& key) const;
  // Every key given, and a string value taken as get_path takes it ("" for other values), without
  // counting as asked for: for checks that look at every file a config names.
  std::vector<std::string> keys() const;
  std::string path_if_string(const std::string& key) const;
  // The line the key's value is on (the table's line when absent), for errors found later.
  int line_of(const std::string& key) const;
  const std::string& file() const { return file_; }

  // Throws for any key no get_*() asked for: a typo in a config must not be silently ignored.
  void reject_unknown() const;

  // Throws a gnf::UserError "file:line: where.key: message" (the key's own line if it has one).
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

 private:
  const ParamValue* find(const std::string& key) const;
  std::string resolve(const std::string& path) const;
  std::string file_ = "<command line>";
  int line_ = 0;
  std::string where_;
  std::map<std::string, ParamValue> values_;
  mutable std::set<std::string> used_;
};

}  // namespace gnf::nf
