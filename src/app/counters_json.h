// Counters as JSON, named by their tables (util/counter.h): what the summary (app/report.h) and the
// control socket's answers (app/ctl_command.h) say alike of a port and of an NF element.
#pragma once
#include <nlohmann/json.hpp>

#include "path/snapshot.h"

namespace gnf::app {

// A port's counters beside its name in `port`, named by its table (nic/port_counters.h), those of
// frames the NIC dropped under "drops"; the NIC model's diagnostics are left out.
void add_port_counters(nlohmann::json& port, const path::PortStats& p);

// An NF element: {"type", "counters": {name: value}} and its tables' entries with their counters,
// if it has tables: {"file", "reloads", "entries": [{"line", "action", hits...}]}.
nlohmann::json nf_json(const path::NfStats& nf);

}  // namespace gnf::app
