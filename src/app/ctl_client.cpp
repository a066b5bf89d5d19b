#include "app/ctl_client.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/ctl_command.h"
#include "app/ctl_server.h"
#include "app/exit_codes.h"
#include "util/error.h"
#include "util/log.h"

namespace gnf::app {

namespace {

// The one socket a gnf listens on in the folder running gnfs put theirs by default.
std::string only_socket() {
  const std::string folder = ctl_socket_folder();
  const std::vector<std::string> found = listening_ctl_sockets();
  if (found.size() == 1) return found.front();
  if (found.empty()) throw UserError(fmt::format("no gnf-*.sock in {}: is gnf running? (else give --socket)", folder));
  throw UserError(fmt::format("several gnf sockets in {}: give --socket, one of {}", folder, fmt::join(found, ", ")));
}

std::string ask(const std::string& path, const std::string& request) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) throw UserError(fmt::format("--socket: {}: path too long", path));
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) throw UserError(fmt::format("socket: {}", std::strerror(errno)));
  if (connect(s, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int error = errno;
    close(s);
    throw UserError(fmt::format("{}: cannot connect: {} (is gnf running?)", path, std::strerror(error)));
  }
  const std::string line = request + "\n";
  const bool sent = send(s, line.data(), line.size(), MSG_NOSIGNAL) == ssize_t(line.size());
  std::string reply;
  char buffer[4096];
  for (ssize_t n; sent && (n = read(s, buffer, sizeof(buffer))) > 0;) reply.append(buffer, size_t(n));
  close(s);
  if (reply.empty()) throw UserError(fmt::format("{}: no answer", path));
  return reply;
}

}  // namespace

int run_ctl(const std::string& socket, std::vector<std::string> words, bool json) {
  if (json) words.push_back("--json");
  CtlRequest request;
  try {
    request = parse_ctl_request(words);  // a bad command never leaves this process
  } catch (const UserError& e) {
    spdlog::error("{}", e.what());
    return kExitUsage;
  }
  // The file is the server's to open, from its own folder: a name relative to this one becomes whole.
  if (request.command == CtlCommand::PcapStart) request.args[1] = std::filesystem::absolute(request.args[1]).string();
  const nlohmann::json reply =
      nlohmann::json::parse(ask(socket.empty() ? only_socket() : socket, ctl_request_line(request)));
  if (!reply["ok"].get<bool>()) throw UserError(reply["error"].get<std::string>());
  if (request.json) std::printf("%s\n", reply["json"].dump(2).c_str());
  else std::fputs(reply["text"].get<std::string>().c_str(), stdout);
  return kExitOk;
}

}  // namespace gnf::app
