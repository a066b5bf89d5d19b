// The control socket's commands that change a running gnf (app/ctl_command.h): routes
// (ctl_route.cpp), table reloads (ctl_reload.cpp) and port captures (ctl_pcap.cpp). For each, the
// check of its arguments, which the parser runs (client and server side alike), and its answer.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/ctl_command.h"

namespace gnf::app {

// Each throws UserError saying what is wrong with the arguments (quoted with ctl_printable); the
// parser adds the command's usage.
void check_route_args(CtlCommand command, const std::vector<std::string>& args);
void check_reload_args(const std::vector<std::string>& args);
void check_pcap_args(CtlCommand command, const std::vector<std::string>& args);

// Each answers {"json": ..., "text": ...} or throws UserError for what it cannot do on `target`.
// show route, route add, route del: on the router of the chain's first l3fwd.
nlohmann::json answer_route(const CtlRequest& request, const CtlTarget& target);
// reload [nf N | TYPE], acl reload, sa reload: NfTables::reload() of the elements named.
nlohmann::json answer_reload(const CtlRequest& request, const CtlTarget& target);
// pcap start, pcap stop.
nlohmann::json answer_pcap(const CtlRequest& request, const CtlTarget& target);

}  // namespace gnf::app
