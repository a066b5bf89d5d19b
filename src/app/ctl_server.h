// The control socket of a running `gnf run`: a UNIX stream socket that `gnf ctl` connects to, one
// request line per connection (app/ctl_command.h), one JSON reply: {"ok", "text", "json"} or
// {"ok": false, "error"}. Its thread reads counters through snapshots and never touches a packet;
// `clear counters` keeps a baseline here, and nothing in the data path is written.
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "app/ctl_command.h"
#include "path/snapshot.h"

namespace gnf::app {

// Where a gnf whose config and flags name no socket listens: gnf-PID.sock under $XDG_RUNTIME_DIR,
// or /tmp without it.
std::string default_ctl_socket(int pid);
// The folder default_ctl_socket() uses, where `gnf ctl` looks for one.
std::string ctl_socket_folder();
// The gnf-PID.sock files in ctl_socket_folder() that a gnf listens on. Those of a gnf that is gone
// (killed: it could not remove its file) are removed on the way.
std::vector<std::string> listening_ctl_sockets();

class CtlServer {
 public:
  // Listens on `socket_path` (`where` names the key or flag that gave it, for errors) and serves
  // on a thread of its own, answering about `target` (its snapshot is read on that thread, its
  // tables and captures changed there, one request at a time). A socket file left by a gnf that
  // died is replaced; one another gnf listens on is refused (UserError).
  CtlServer(std::string socket_path, const std::string& where, CtlTarget target);
  // Stops serving and removes the socket file.
  ~CtlServer();
  CtlServer(const CtlServer&) = delete;
  CtlServer& operator=(const CtlServer&) = delete;

  const std::string& socket_path() const { return path_; }

 private:
  void serve();
  void answer(int connection);

  std::string path_;
  CtlTarget target_;
  path::Snapshot baseline_;  // the last `clear counters`; only the server's thread touches it
  int listener_ = -1;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

}  // namespace gnf::app
