#include "app/ctl_command.h"

#include <iterator>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "app/counters_json.h"
#include "util/error.h"
#include "util/log.h"

namespace gnf::app {

namespace {

struct CommandLine {
  CtlCommand command;
  const char* words;
  const char* what;
};

constexpr CommandLine kCommands[] = {
    {CtlCommand::ShowPorts, "show ports", "each port's counters (82599 statistics registers), drops apart"},
    {CtlCommand::ShowQueues, "show queues", "each port's packets and drops per rx queue, packets per tx queue"},
    {CtlCommand::ShowNf, "show nf", "each NF element's counters"},
    {CtlCommand::ShowRuntime, "show runtime", "per NF element: calls, packets, packets per call (VPP's show runtime)"},
    {CtlCommand::ClearCounters, "clear counters", "count from now on in what the show commands answer"},
};

// kCommands[c] is command c's line.
constexpr bool commands_in_enum_order() {
  for (size_t i = 0; i < std::size(kCommands); ++i)
    if (size_t(kCommands[i].command) != i) return false;
  return true;
}
static_assert(commands_in_enum_order());

constexpr const char* kJsonFlag = "--json";

// A command as typed, quoted in an error: bytes other than printable ASCII as \xNN, so that a NUL
// cannot cut the message short, nor bytes that are no UTF-8 make the JSON reply unwritable.
std::string printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') out += char(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  return out;
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

std::string ctl_commands_help() {
  std::string out;
  for (const CommandLine& c : kCommands) out += fmt::format("  {:<16} {}\n", c.words, c.what);
  return out + fmt::format("  {:<16} {}\n", kJsonFlag, "with any of them: the answer as JSON");
}

CtlRequest parse_ctl_request(const std::vector<std::string>& words) {
  CtlRequest request{CtlCommand::ShowPorts, false};
  std::string command;
  for (const std::string& word : words) {
    if (word == kJsonFlag) request.json = true;
    else command += (command.empty() ? "" : " ") + word;
  }
  for (const CommandLine& c : kCommands)
    if (command == c.words) {
      request.command = c.command;
      return request;
    }
  throw UserError(fmt::format("{}; the commands are:\n{}",
                              command.empty() ? "no command" : fmt::format("'{}' is not a command", printable(command)),
                              ctl_commands_help()));
}

CtlRequest parse_ctl_request(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return parse_ctl_request(words);
}

std::string ctl_request_line(const CtlRequest& request) {
  const char* words = kCommands[size_t(request.command)].words;
  return request.json ? fmt::format("{} {}", words, kJsonFlag) : words;
}

nlohmann::json answer_ctl_request(const CtlRequest& request, const path::Snapshot& now, path::Snapshot& baseline) {
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

std::string ctl_reply(const std::string& line, const std::function<path::Snapshot()>& snapshot,
                      path::Snapshot& baseline) {
  nlohmann::json reply;
  try {
    const CtlRequest request = parse_ctl_request(line);
    reply = answer_ctl_request(request, snapshot(), baseline);
    reply["ok"] = true;
    spdlog::debug("control socket: {}", ctl_request_line(request));
  } catch (const std::exception& e) {  // a bad request, or a counter that could not be read
    reply = {{"ok", false}, {"error", e.what()}};
  }
  return reply.dump();
}

}  // namespace gnf::app
