#include "app/ctl_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "app/ctl_command.h"
#include "util/error.h"
#include "util/log.h"
#include "util/poll_thread.h"

namespace gnf::app {

namespace {

// How often the thread looks at its stop flag while no client connects.
constexpr int kPollTimeoutMs = 100;
// A request is a command line; a client that sends more, or nothing for this long, is dropped.
constexpr size_t kMaxRequestBytes = 4096;
constexpr int kRequestTimeoutMs = 2000;

sockaddr_un address_of(const std::string& path, const std::string& where) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path))
    throw UserError(fmt::format("{}: {}: a UNIX socket's path has 1 to {} characters", where, path,
                                sizeof(address.sun_path) - 1));
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

// Whether a gnf listens on `address` now (a file left by one that died refuses the connection).
bool someone_listens(const sockaddr_un& address) {
  const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return false;
  const bool listens = connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  close(probe);
  return listens;
}

// Reads one line (without its newline) from `connection`, or "" when the client sent none in time.
std::string read_request(int connection) {
  std::string line;
  char buffer[512];
  while (line.size() < kMaxRequestBytes) {
    pollfd p{connection, POLLIN, 0};
    if (poll(&p, 1, kRequestTimeoutMs) <= 0) return "";
    const ssize_t n = read(connection, buffer, sizeof(buffer));
    if (n <= 0) break;
    line.append(buffer, size_t(n));
    if (const size_t end = line.find('\n'); end != std::string::npos) return line.substr(0, end);
  }
  return line;
}

void write_all(int connection, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = send(connection, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away: nothing to tell it
    done += size_t(n);
  }
}

}  // namespace

std::string ctl_socket_folder() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  return runtime && *runtime ? runtime : "/tmp";
}

std::string default_ctl_socket(int pid) { return fmt::format("{}/gnf-{}.sock", ctl_socket_folder(), pid); }

std::vector<std::string> listening_ctl_sockets() {
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(ctl_socket_folder(), error)) {
    const std::string name = entry.path().filename().string();
    int pid = 0;
    if (std::sscanf(name.c_str(), "gnf-%d.sock", &pid) != 1 || name != fmt::format("gnf-{}.sock", pid)) continue;
    const std::string path = entry.path().string();
    if (path.size() >= sizeof(sockaddr_un::sun_path)) continue;  // no gnf could listen there
    if (someone_listens(address_of(path, path))) found.push_back(path);
    else if (kill(pid, 0) != 0 && errno == ESRCH) unlink(path.c_str());
  }
  return found;
}

CtlServer::CtlServer(std::string socket_path, const std::string& where, CtlTarget target)
    : path_(std::move(socket_path)), target_(std::move(target)) {
  listening_ctl_sockets();  // the files of gnfs that were killed go
  const sockaddr_un address = address_of(path_, where);
  if (someone_listens(address))
    throw UserError(fmt::format("{}: {}: another gnf listens there (gnf ctl --socket {} show ports)", where, path_, path_));
  unlink(path_.c_str());  // a socket file left by a gnf that died
  listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener_ < 0) throw UserError(fmt::format("{}: socket: {}", where, std::strerror(errno)));
  if (bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 || listen(listener_, 8) != 0) {
    const int error = errno;
    close(listener_);
    throw UserError(fmt::format("{}: {}: cannot listen there: {}", where, path_, std::strerror(error)));
  }
  thread_ = std::thread(&CtlServer::serve, this);
  spdlog::info("control socket {} (gnf ctl --socket {} show ports)", path_, path_);
}

CtlServer::~CtlServer() {
  running_.store(false);
  if (thread_.joinable()) thread_.join();
  close(listener_);
  unlink(path_.c_str());
}

void CtlServer::serve() {
  name_thread("gnf-ctl");
  while (running_.load()) {
    pollfd p{listener_, POLLIN, 0};
    if (poll(&p, 1, kPollTimeoutMs) <= 0) continue;
    const int connection = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    answer(connection);
    close(connection);
  }
}

void CtlServer::answer(int connection) {
  write_all(connection, ctl_reply(read_request(connection), target_, baseline_) + "\n");
}

}  // namespace gnf::app
