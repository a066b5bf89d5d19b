// The control socket's commands (`gnf ctl CMD`, app/ctl_server.h), as vppctl's and DPDK
// telemetry's: each asks the running gnf one thing, in text or (--json) as JSON named as the JSON
// summary names it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "path/snapshot.h"

namespace gnf::app {

enum class CtlCommand { ShowPorts, ShowQueues, ShowNf, ShowRuntime, ClearCounters };

struct CtlRequest {
  CtlCommand command;
  bool json = false;  // --json anywhere on the line
};

// "show ports", "clear counters --json" ...: the words of one request. Throws UserError saying what
// is wrong (the words quoted in printable ASCII) and listing the commands.
CtlRequest parse_ctl_request(const std::vector<std::string>& words);
// The same, from the line the client sends (words apart by blanks).
CtlRequest parse_ctl_request(const std::string& line);
// The line the client sends for `request`: its command's words, then --json if asked for. It
// parses back to `request`.
std::string ctl_request_line(const CtlRequest& request);

// Each command with what it answers, a line each, for help and errors.
std::string ctl_commands_help();

// The answer to `request` about a path whose counters are `now`, less `baseline` (the snapshot the
// last `clear counters` took; `clear counters` sets it to `now`): {"json": ..., "text": ...}.
nlohmann::json answer_ctl_request(const CtlRequest& request, const path::Snapshot& now, path::Snapshot& baseline);

// What the server writes back for one request `line`: one line of JSON (no newline), {"ok": true,
// "json": ..., "text": ...} with the answer over `snapshot()` (called for a request only), or
// {"ok": false, "error": ...} for a line that is no request or counters that could not be read.
std::string ctl_reply(const std::string& line, const std::function<path::Snapshot()>& snapshot,
                      path::Snapshot& baseline);

}  // namespace gnf::app
