// What the fuzz targets share: a broken invariant prints what broke and traps (libFuzzer keeps the
// input as a crash), and a scratch file for the readers that take a path, not bytes.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

// tests/fuzz/CMakeLists.txt defines it as the target's name, which every report starts with.
#ifndef GNF_FUZZ_TARGET
#error "GNF_FUZZ_TARGET (the fuzz target's name) is not defined"
#endif

namespace gnf::fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: invariant broken: %s (%s)\n", GNF_FUZZ_TARGET, what, detail.c_str());
  __builtin_trap();
}
[[noreturn]] inline void fail(const char* what, unsigned long long a = 0, unsigned long long b = 0) {
  fail(what, std::to_string(a) + " vs " + std::to_string(b));
}

// Text from the input quoted in a report, bytes that are no printable ASCII as \xNN.
inline std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += char(c);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  return out;
}

// The whole message of a std::runtime_error (UserError is one). what() is a C string, so a NUL
// in the message would end it early; the message itself is a reference-counted string (libstdc++'s
// __cow_string, libc++'s __libcpp_refstring), both with its length and capacity in the two words
// three and two words before the characters, a layout frozen by both ABIs.
#if !defined(__GLIBCXX__) && !defined(_LIBCPP_VERSION)
#error "full_message() knows the message layout of libstdc++ and libc++ only"
#endif
inline std::string_view full_message(const std::runtime_error& e) {
  const char* text = e.what();
  const size_t* header = reinterpret_cast<const size_t*>(text);
  const size_t length = header[-3], capacity = header[-2];
  if (length < std::strlen(text) || length > capacity)
    fail("the runtime_error message layout is not what full_message() expects", length, capacity);
  return {text, length};
}

// A rule file's error, "NAME:LINE: FIELD: PROBLEM": checks that it starts with `name` and a line
// `input` has, and returns what follows the line, for the caller to check the field.
inline std::string_view after_name_and_line(std::string_view message, std::string_view input, std::string_view name) {
  const std::string prefix = std::string(name) + ":";
  if (message.rfind(prefix, 0) != 0) fail("an error that does not start with the name", printable(message));
  std::string_view rest = message.substr(prefix.size());
  const size_t colon = rest.find(": ");
  const std::string line_text(rest.substr(0, colon));
  const unsigned long line = line_text.empty() || line_text.size() > 9 ||
                                     line_text.find_first_not_of("0123456789") != line_text.npos
                                 ? 0
                                 : std::stoul(line_text);
  size_t lines = 1;
  for (char c : input) lines += c == '\n';
  if (line < 1 || line > lines) fail("an error that does not name a line of the input", printable(message));
  return colon == rest.npos ? std::string_view() : rest.substr(colon + 2);
}

// A file in $TMPDIR (else /tmp) named after the target and the process, so that parallel fuzzer
// processes (-jobs, -fork) never share one; each input replaces its contents.
class ScratchFile {
 public:
  explicit ScratchFile(const char* suffix) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir && *dir ? dir : "/tmp") + "/" + GNF_FUZZ_TARGET + "-" + std::to_string(getpid()) + suffix;
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& path() const { return path_; }
  void write(const uint8_t* data, size_t size) const {
    FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
      fail("cannot write the scratch file", path_);
  }

 private:
  std::string path_;
};

}  // namespace gnf::fuzz

#define FUZZ_CHECK(cond, what)           \
  do {                                   \
    if (!(cond)) ::gnf::fuzz::fail(what); \
  } while (0)
#define FUZZ_CHECK_EQ(a, b, what)                                                 \
  do {                                                                            \
    unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
    if (a_ != b_) ::gnf::fuzz::fail(what, a_, b_);                                \
  } while (0)
