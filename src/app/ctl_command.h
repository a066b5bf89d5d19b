// The control socket's commands (`gnf ctl CMD`, app/ctl_server.h), as vppctl's and DPDK
// telemetry's: each asks the running gnf one thing, in text or (--json) as JSON named as the JSON
// summary names it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nf/tables.h"
#include "path/port_capture.h"
#include "path/snapshot.h"

namespace gnf::app {

enum class CtlCommand {
  ShowPorts,
  ShowQueues,
  ShowNf,
  ShowRuntime,
  ClearCounters,
  ShowRoute,
  RouteAdd,
  RouteDel,
  Reload,
  AclReload,
  SaReload,
  PcapStart,
  PcapStop,
};

struct CtlRequest {
  CtlCommand command;
  std::vector<std::string> args;  // the words after the command's, as the parser checked them
  bool json = false;              // --json anywhere on the line
};

// What the commands act on: a running gnf's path (app/run.cpp), or a test's.
struct CtlTarget {
  std::function<path::Snapshot()> snapshot;  // the counters, now
  struct Nf {
    std::string type;     // "acl", "l3fwd" ...
    nf::NfTables* tables;  // its tables' owner, or null
  };
  std::vector<Nf> nfs;  // the chain's elements, in order
  std::vector<std::string> port_names;
  std::string netlink_netns;              // with [netlink]: the routes are that namespace's
  path::PortCaptures* captures = nullptr;  // null: nothing to capture
};

// "show ports", "clear counters --json", "route add 10.0.0.0/8 via 10.0.1.2" ...: the words of one
// request. Throws UserError saying what is wrong (the words quoted in printable ASCII) and listing
// the commands, or for a command's arguments its usage.
CtlRequest parse_ctl_request(const std::vector<std::string>& words);
// The same, from the line the client sends (words apart by blanks).
CtlRequest parse_ctl_request(const std::string& line);
// The line the client sends for `request`: its command's words, then --json if asked for. It
// parses back to `request`.
std::string ctl_request_line(const CtlRequest& request);

// Each command with what it answers, a line each, for help and errors.
std::string ctl_commands_help();
// A command's words with its arguments ("route del PREFIX"), for its errors.
std::string ctl_usage(CtlCommand command);
// Text as typed, quoted in an error: bytes other than printable ASCII as \xNN, so that a NUL cannot
// cut the message short, nor bytes that are no UTF-8 make the JSON reply unwritable.
std::string ctl_printable(const std::string& text);

// The answer to `request` on `target`, whose counters are given less `baseline` (the snapshot the
// last `clear counters` took; `clear counters` sets it to now): {"json": ..., "text": ...}. Throws
// UserError for what the command cannot do there (no router, no such route, a bad file ...).
nlohmann::json answer_ctl_request(const CtlRequest& request, const CtlTarget& target, path::Snapshot& baseline);

// What the server writes back for one request `line`: one line of JSON (no newline), {"ok": true,
// "json": ..., "text": ...} with the answer on `target`, or {"ok": false, "error": ...} for a line
// that is no request, counters that could not be read, or what the command could not do.
std::string ctl_reply(const std::string& line, const CtlTarget& target, path::Snapshot& baseline);

}  // namespace gnf::app
