#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw UserError(fmt::format("{}: {}", path, problem));
}

// What is wrong with reading `path`, from stat(); "" when it is a regular file or a pipe.
std::string input_problem(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return fmt::format("cannot read it: {}", std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return "is a folder, not a file";
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return "is a device or a socket, not a file";
  if (access(path.c_str(), R_OK) != 0) return fmt::format("cannot read it: {}", std::strerror(errno));
  return "";
}

}  // namespace

void check_input_file(const std::string& path) {
  if (path.empty()) fail("\"\"", "no file named");
  if (std::string problem = input_problem(path); !problem.empty()) fail(path, problem);
}

std::string read_input_file(const std::string& path, size_t max_bytes) {
  check_input_file(path);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, fmt::format("cannot read it: {}", std::strerror(errno)));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      close(fd);
      fail(path, fmt::format("reading it failed: {}", std::strerror(error)));
    }
    if (got == 0) break;
    if (text.size() + size_t(got) > max_bytes) {
      close(fd);
      const std::string limit = max_bytes >= (size_t(1) << 20) ? fmt::format("{} MiB", max_bytes >> 20)
                                                                 : fmt::format("{} bytes", max_bytes);
      fail(path, fmt::format("is larger than {}, more than a file of its kind should be", limit));
    }
    text.append(buffer, size_t(got));
  }
  close(fd);
  return text;
}

void check_output_file(const std::string& path) {
  if (path.empty()) fail("\"\"", "no file named");
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(path, "is a folder, not a file");
    if (S_ISREG(st.st_mode) && access(path.c_str(), W_OK) != 0)
      fail(path, fmt::format("cannot write it: {}", std::strerror(errno)));
    return;
  }
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    fail(path, fmt::format("cannot create it: the folder {} does not exist", folder.string()));
  if (access(folder.c_str(), W_OK) != 0)
    fail(path, fmt::format("cannot create it in {}: {}", folder.string(), std::strerror(errno)));
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace gnf
