#include "wire/netns.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <thread>
#include <utility>

#include "util/error.h"

namespace gnf::wire {

Netns::Netns(std::string name) : name_(std::move(name)) {
  if (name_.empty()) return;
  std::string path = "/run/netns/" + name_;
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0)
    throw UserError(fmt::format("{}: cannot open {}: {} (`ip netns add {}` makes it)", description(), path,
                                std::strerror(errno), name_));
}

Netns::~Netns() {
  if (fd_ >= 0) close(fd_);
}

std::string netns_description(const std::string& name) {
  return name.empty() ? "gnf's network namespace" : fmt::format("network namespace '{}'", name);
}

std::string Netns::description() const { return netns_description(name_); }

void Netns::run(const std::function<void()>& fn) const {
  if (fd_ < 0) {
    fn();
    return;
  }
  // setns() moves the calling thread only. A thread of its own that ends after `fn` has no way
  // back to find, and nothing else gnf runs ever sees the other namespace.
  std::exception_ptr failure;
  std::thread worker([&] {
    try {
      if (setns(fd_, CLONE_NEWNET) != 0)
        throw UserError(fmt::format("{}: cannot enter it: {}", description(), std::strerror(errno)));
      fn();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  worker.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace gnf::wire
