#include "app/ctl_command.h"

#include <algorithm>
#include <iterator>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/ctl_actions.h"
#include "app/counters_json.h"
#include "util/error.h"
#include "util/log.h"

namespace gnf::app {

namespace {

// What follows a command's words.
enum class Args : uint8_t { None, Route, Reload, Pcap };

struct CommandLine {
  CtlCommand command;
  const char* words;
  const char* usage;  // its arguments
  Args args;
  const char* what;
};

constexpr CommandLine kCommands[] = {
    {CtlCommand::ShowPorts, "show ports", "", Args::None, "each port's counters (82599 statistics registers), drops apart"},
    {CtlCommand::ShowQueues, "show queues", "", Args::None,
     "each port's packets and drops per rx queue, packets per tx queue"},
    {CtlCommand::ShowNf, "show nf", "", Args::None, "each NF element's counters"},
    {CtlCommand::ShowRuntime, "show runtime", "", Args::None,
     "per NF element: calls, packets, packets per call (VPP's show runtime)"},
    {CtlCommand::ClearCounters, "clear counters", "", Args::None, "count from now on in what the show commands answer"},
    {CtlCommand::ShowRoute, "show route", "[ADDRESS | PREFIX]", Args::Route,
     "the router's routes (the first 256), where ADDRESS goes, or PREFIX's route"},
    {CtlCommand::RouteAdd, "route add", "PREFIX (via GATEWAY [port N] | port N | blackhole)", Args::Route,
     "adds or replaces a route"},
    {CtlCommand::RouteDel, "route del", "PREFIX", Args::Route, "removes a route"},
    {CtlCommand::Reload, "reload", "[nf N | TYPE]", Args::Reload,
     "reads the NFs' files again (all, element N, or those of a type), as SIGHUP does"},
    {CtlCommand::AclReload, "acl reload", "", Args::Reload, "reload acl"},
    {CtlCommand::SaReload, "sa reload", "", Args::Reload, "reload ipsec"},
    {CtlCommand::PcapStart, "pcap start", "PORT FILE [rx | tx] [max N]", Args::Pcap,
     "writes the frames PORT receives and sends (or one side) into FILE"},
    {CtlCommand::PcapStop, "pcap stop", "PORT", Args::Pcap, "stops PORT's capture: frames written and dropped"},
};

// kCommands[c] is command c's line.
constexpr bool commands_in_enum_order() {
  for (size_t i = 0; i < std::size(kCommands); ++i)
    if (size_t(kCommands[i].command) != i) return false;
  return true;
}
static_assert(commands_in_enum_order());

constexpr const char* kJsonFlag = "--json";

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// How many of `words` the command's words are, when `words` begins with them; else 0.
size_t matched_words(const std::vector<std::string>& words, const CommandLine& c) {
  const std::vector<std::string> own = split(c.words);
  const bool match = words.size() >= own.size() && std::equal(own.begin(), own.end(), words.begin());
  return match ? own.size() : 0;
}

// Arguments are printable ASCII: they name files and ports, and are quoted back in JSON.
void check_printable(const std::vector<std::string>& args) {
  for (const std::string& arg : args)
    for (unsigned char c : arg)
      if (c < 0x20 || c >= 0x7f) throw UserError(fmt::format("'{}': arguments are printable ASCII", ctl_printable(arg)));
}

void check_args(const CommandLine& c, const std::vector<std::string>& args) {
  check_printable(args);
  switch (c.args) {
    case Args::None: break;
    case Args::Route: check_route_args(c.command, args); break;
    case Args::Reload:
      if (c.command != CtlCommand::Reload && !args.empty()) throw UserError(fmt::format("{} takes no arguments", c.words));
      check_reload_args(args);
      break;
    case Args::Pcap: check_pcap_args(c.command, args); break;
  }
}

nlohmann::json ports_json(const path::Snapshot& s) {
  nlohmann::json ports = nlohmann::json::array();
  for (const path::PortStats& p : s.ports) {
    nlohmann::json port = {{"name", p.name}, {"source_frames", p.source_frames}};
    add_port_counters(port, p);
    ports.push_back(port);
  }
  return ports;
}

nlohmann::json queues_json(const path::Snapshot& s) {
  nlohmann::json ports = nlohmann::json::array();
  for (const path::PortStats& p : s.ports)
    ports.push_back({{"name", p.name},
                     {"rx_queue_packets", p.rx_queue_packets},
                     {"rx_queue_drops", p.rx_queue_drops},
                     {"tx_queue_packets", p.tx_queue_packets}});
  return ports;
}

nlohmann::json nfs_json(const path::Snapshot& s) {
  nlohmann::json nfs = nlohmann::json::array();
  for (const path::NfStats& nf : s.nfs) nfs.push_back(nf_json(nf));
  return nfs;
}

// Per element, as VPP's `show runtime`: calls that had packets, the packets, and their ratio.
// Where the driver does not count them (the chain runs on the GPU), "counted" is false.
nlohmann::json runtime_json(const path::Snapshot& s) {
  nlohmann::json elements = nlohmann::json::array();
  bool counted = false;
  for (const path::NfStats& nf : s.nfs) {
    nlohmann::json element = {{"type", nf.name}};
    if (nf.runtime) {
      counted = true;
      element["calls"] = nf.runtime->calls;
      element["packets"] = nf.runtime->packets;
      element["packets_per_call"] = nf.runtime->calls ? double(nf.runtime->packets) / double(nf.runtime->calls) : 0.0;
    }
    elements.push_back(element);
  }
  return {{"counted", counted}, {"elements", elements}};
}

// A value as text: numbers as they are, lists with blanks between.
std::string value_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_array()) return value.dump();
  std::string out;
  for (const auto& v : value) out += (out.empty() ? "" : " ") + value_text(v);
  return out;
}

// An object's keys and values, one a line under `indent`; a nested object under its key.
void object_text(const nlohmann::json& object, const std::string& indent, std::string& out) {
  for (const auto& [key, value] : object.items()) {
    if (value.is_object()) {
      out += fmt::format("{}{}:\n", indent, key);
      object_text(value, indent + "  ", out);
    } else if (value.is_array() && !value.empty() && value.front().is_object()) {
      out += fmt::format("{}{}: {} entries (--json lists them)\n", indent, key, value.size());
    } else {
      out += fmt::format("{}{:<24} {}\n", indent, key, value_text(value));
    }
  }
}

// Elements (ports, NFs) under a header each: "name" or "nf[i] type".
std::string elements_text(const nlohmann::json& elements) {
  std::string out;
  for (size_t i = 0; i < elements.size(); ++i) {
    nlohmann::json rest = elements[i];
    if (rest.contains("name")) {
      out += rest["name"].get<std::string>() + "\n";
      rest.erase("name");
    } else {
      out += fmt::format("nf[{}] {}\n", i, rest["type"].get<std::string>());
      rest.erase("type");
    }
    object_text(rest, "  ", out);
  }
  return out;
}

std::string runtime_text(const nlohmann::json& runtime) {
  if (!runtime["counted"].get<bool>()) return "not counted on this path: the NF chain runs on the GPU\n";
  std::string out = fmt::format("{:<20} {:>14} {:>16} {:>14}\n", "Name", "Calls", "Packets", "Packets/Call");
  const nlohmann::json& elements = runtime["elements"];
  for (size_t i = 0; i < elements.size(); ++i) {
    const nlohmann::json& e = elements[i];
    out += fmt::format("{:<20} {:>14} {:>16} {:>14.2f}\n", fmt::format("nf[{}] {}", i, e["type"].get<std::string>()),
                       e["calls"].get<uint64_t>(), e["packets"].get<uint64_t>(), e["packets_per_call"].get<double>());
  }
  return out;
}

}  // namespace

std::string ctl_printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') out += char(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

std::string ctl_usage(CtlCommand command) {
  const CommandLine& c = kCommands[size_t(command)];
  return *c.usage ? fmt::format("{} {}", c.words, c.usage) : c.words;
}

std::string ctl_commands_help() {
  constexpr size_t kColumn = 30;  // where what a command does starts
  std::string out;
  for (const CommandLine& c : kCommands) {
    const std::string usage = ctl_usage(c.command);
    if (usage.size() < kColumn) out += fmt::format("  {:<{}} {}\n", usage, kColumn, c.what);
    else out += fmt::format("  {}\n  {:<{}} {}\n", usage, "", kColumn, c.what);
  }
  return out + fmt::format("  {:<{}} {}\n", kJsonFlag, kColumn, "with any of them: the answer as JSON");
}

CtlRequest parse_ctl_request(const std::vector<std::string>& given) {
  CtlRequest request{CtlCommand::ShowPorts, {}, false};
  // A word with blanks in it is the words it holds, as on the line the client sends.
  std::vector<std::string> words;
  for (const std::string& word : given)
    for (std::string& w : split(word)) {
      if (w == kJsonFlag) request.json = true;
      else words.push_back(std::move(w));
    }
  // The command whose words begin the request, the longest: "show route" before "show".
  const CommandLine* found = nullptr;
  size_t matched = 0;
  for (const CommandLine& c : kCommands)
    if (const size_t n = matched_words(words, c); n > matched) {
      found = &c;
      matched = n;
    }
  const std::string command = fmt::format("{}", fmt::join(words, " "));
  if (!found || (found->args == Args::None && matched != words.size()))
    throw UserError(fmt::format("{}; the commands are:\n{}",
                                words.empty() ? "no command" : fmt::format("'{}' is not a command", ctl_printable(command)),
                                ctl_commands_help()));
  request.command = found->command;
  request.args.assign(words.begin() + std::ptrdiff_t(matched), words.end());
  try {
    check_args(*found, request.args);
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: {}; usage: {}", found->words, e.what(), ctl_usage(found->command)));
  }
  return request;
}

CtlRequest parse_ctl_request(const std::string& line) { return parse_ctl_request(split(line)); }

std::string ctl_request_line(const CtlRequest& request) {
  std::string line = kCommands[size_t(request.command)].words;
  for (const std::string& arg : request.args) line += " " + arg;
  return request.json ? fmt::format("{} {}", line, kJsonFlag) : line;
}

nlohmann::json answer_ctl_request(const CtlRequest& request, const CtlTarget& target, path::Snapshot& baseline) {
  switch (kCommands[size_t(request.command)].args) {
    case Args::Route: return answer_route(request, target);
    case Args::Reload: return answer_reload(request, target);
    case Args::Pcap: return answer_pcap(request, target);
    case Args::None: break;
  }
  const path::Snapshot now = target.snapshot();
  if (request.command == CtlCommand::ClearCounters) {
    baseline = now;
    return {{"json", {{"cleared", true}}}, {"text", "counters cleared\n"}};
  }
  const path::Snapshot s = now.since(baseline);
  switch (request.command) {
    case CtlCommand::ShowPorts: {
      nlohmann::json ports = ports_json(s);
      return {{"json", ports}, {"text", elements_text(ports)}};
    }
    case CtlCommand::ShowQueues: {
      nlohmann::json queues = queues_json(s);
      return {{"json", queues}, {"text", elements_text(queues)}};
    }
    case CtlCommand::ShowNf: {
      nlohmann::json nfs = nfs_json(s);
      return {{"json", nfs}, {"text", elements_text(nfs)}};
    }
    default: {
      nlohmann::json runtime = runtime_json(s);
      return {{"json", runtime}, {"text", runtime_text(runtime)}};
    }
  }
}

std::string ctl_reply(const std::string& line, const CtlTarget& target, path::Snapshot& baseline) {
  nlohmann::json reply;
  try {
    const CtlRequest request = parse_ctl_request(line);
    reply = answer_ctl_request(request, target, baseline);
    reply["ok"] = true;
    spdlog::debug("control socket: {}", ctl_request_line(request));
  } catch (const std::exception& e) {  // a bad request, counters that could not be read, a refusal
    reply = {{"ok", false}, {"error", e.what()}};
  }
  return reply.dump();
}

}  // namespace gnf::app
