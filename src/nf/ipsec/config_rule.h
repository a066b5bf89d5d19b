// The words of ipsec-secgw configuration rules, each with the line it stands on, for config_file.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gnf::nf {

// One rule's words, taken in order; a problem names the line of the word it is about.
class RuleReader {
 public:
  struct Word {
    std::string text;
    uint32_t line;
  };
  RuleReader(std::vector<Word> words, const std::string& name) : words_(std::move(words)), name_(name) {}

  // Throws UserError "name:line: field: problem" for the word last taken (the first before any).
  [[noreturn]] void fail(const char* field, const std::string& problem) const;
  const std::string& next(const char* field);
  // Takes the next word, which must be `keyword` (a key after its algorithm).
  RuleReader& expect(const char* keyword);
  bool at_end() const { return next_ == words_.size(); }
  uint32_t first_line() const { return words_.front().line; }

 private:
  std::vector<Word> words_;
  size_t next_ = 0;
  const std::string& name_;
};

// The rules of a file: '#' comments dropped, a line ending in '\' joined with the next, blank
// lines skipped. Throws UserError on a NUL byte.
std::vector<RuleReader> split_rules(std::string_view text, const std::string& name);

}  // namespace gnf::nf
