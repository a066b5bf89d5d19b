// libFuzzer target: arbitrary bytes as what reaches the control socket's parser (app/ctl_command.h),
// both as the request line the server reads (app::ctl_reply, all the server does with it) and as
// the words `gnf ctl` is given (the bytes cut at NULs, as argv would be).
//
// The commands act on a real router (nf/l3fwd/router.h) of two ports, kept across inputs as a
// running gnf keeps it across requests: route add, route del and show route change and read it.
// There are no tables to reload and no ports to capture: those commands are refused with a reason.
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - the reply is one line of JSON (it is written as one and parsed by the client) with "ok";
//    nothing but UserError escapes the parser;
//  - a line that does not parse is refused with the parser's message; a line that parses is
//    answered ("json", "text"), or refused only by a command that acts on something (a route, a
//    reload, a capture) with that command's reason; show and clear commands are always answered;
//  - every refusal is printable ASCII and newlines only (no NUL to cut it short, no byte that is
//    no UTF-8, no escape for the terminal it is printed on); the parser's lists the commands, or for
//    a command's arguments its usage;
//  - words that parse give a request whose line parses back to it, and the server answers it.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/ctl_command.h"
#include "fuzz_support.h"
#include "nf/l3fwd/router.h"
#include "util/error.h"

using namespace gnf;

namespace {

// Counters that grow from one request to the next, as a running path's do, on one port of two
// queues and two NFs, with their runtime as the cpu path counts it (a driver counts every NF of
// its chain or none).
path::Snapshot growing_snapshot() {
  static uint64_t requests = 0;
  const uint64_t n = ++requests;
  path::Snapshot s;
  s.time_ns = n * 1000;
  path::PortStats port;
  port.name = "port0";
  port.rx_good_packets = 10 * n;
  port.rx_missed = n;
  port.rx_queue_packets = {5 * n, 5 * n};
  port.rx_queue_drops = {0, n};
  port.tx_queue_packets = {10 * n, 0};
  s.ports.push_back(port);
  s.nfs.push_back({"l2fwd", {{"forwarded", 10 * n}}, std::nullopt, nf::NfRuntime{n, 10 * n}});
  s.nfs.push_back({"l3fwd", {{"forwarded_ipv4", n}}, std::nullopt, nf::NfRuntime{n, n}});
  return s;
}

path::Snapshot baseline;  // what `clear counters` sets, across inputs as across a server's requests

// A router with an address on each of its two ports, IPv4 and IPv6, as a config's would have; small
// tables, so that inputs also reach "table full".
nf::Router& fuzz_router() {
  static nf::Router* router = [] {
    nf::RouterOptions options;
    options.lpm4_tbl8_groups = 64;
    options.lpm6_groups = 256;
    options.next_hops = 64;
    options.neighbour_slots = 64;
    options.neighbour_records = 256;
    auto* r = new nf::Router(options, 2);
    const std::pair<uint16_t, const char*> addresses[] = {
        {0, "10.0.0.1/24"}, {1, "10.0.1.1/24"}, {0, "2001:db8::1/64"}, {1, "2001:db8:1::1/64"}};
    for (const auto& [port, address] : addresses) {
      const auto [host, network] = *nf::parse_interface_address(address);
      r->add_address(port, host, network);
    }
    return r;
  }();
  return *router;
}

const app::CtlTarget& fuzz_target() {
  static const app::CtlTarget target = [] {
    app::CtlTarget t;
    t.snapshot = growing_snapshot;
    t.nfs = {{"l3fwd", &fuzz_router()}, {"l2fwd", nullptr}};
    t.port_names = {"port0", "port1"};
    return t;
  }();
  return target;
}

bool same(const app::CtlRequest& a, const app::CtlRequest& b) {
  return a.command == b.command && a.args == b.args && a.json == b.json;
}

// Commands that act on the target's tables or ports, which may refuse what they cannot do there.
bool acts(app::CtlCommand c) {
  return c != app::CtlCommand::ShowPorts && c != app::CtlCommand::ShowQueues && c != app::CtlCommand::ShowNf &&
         c != app::CtlCommand::ShowRuntime && c != app::CtlCommand::ClearCounters;
}

void check_printable(std::string_view message) {
  for (unsigned char c : message)
    if (c != '\n' && (c < 0x20 || c >= 0x7f))
      fuzz::fail("a refusal with a byte that is not printable", fuzz::printable(message));
}

// The line the client would send for `request` parses back to it.
void check_round_trip(const app::CtlRequest& request) {
  const std::string line = app::ctl_request_line(request);
  try {
    if (!same(app::parse_ctl_request(line), request)) fuzz::fail("a request's line parses to another request", line);
  } catch (const UserError& e) {
    fuzz::fail("a request's line does not parse", line + ": " + e.what());
  }
}

nlohmann::json reply_to(const std::string& line) {
  const std::string text = app::ctl_reply(line, fuzz_target(), baseline);
  if (text.find('\n') != std::string::npos) fuzz::fail("a reply of more than one line", fuzz::printable(text));
  nlohmann::json reply;
  try {
    reply = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    fuzz::fail("a reply that is no JSON", fuzz::printable(text));
  }
  if (!reply.is_object() || !reply.contains("ok") || !reply["ok"].is_boolean())
    fuzz::fail("a reply without \"ok\"", fuzz::printable(text));
  return reply;
}

void check_refusal(const UserError& e, const nlohmann::json& reply) {
  const std::string_view message = fuzz::full_message(e);
  check_printable(message);
  if (message.find(app::ctl_commands_help()) == std::string_view::npos && message.find("; usage: ") == std::string_view::npos)
    fuzz::fail("a refusal that lists neither the commands nor the usage", fuzz::printable(message));
  if (reply["ok"].get<bool>()) fuzz::fail("a line the parser refuses is answered", fuzz::printable(message));
  if (!reply.contains("error") || reply["error"] != std::string(message))
    fuzz::fail("a refusal's reply is not the parser's message", fuzz::printable(message));
}

void check_answer(const app::CtlRequest& request, const nlohmann::json& reply) {
  check_round_trip(request);
  if (!reply["ok"].get<bool>()) {
    if (!acts(request.command)) fuzz::fail("a request is refused", app::ctl_request_line(request));
    if (!reply.contains("error") || !reply["error"].is_string())
      fuzz::fail("a refusal without its reason", app::ctl_request_line(request));
    check_printable(reply["error"].get<std::string>());
    return;
  }
  if (!reply.contains("json") || !reply.contains("text") || !reply["text"].is_string())
    fuzz::fail("an answer without its json and text", app::ctl_request_line(request));
}

// The input as the server reads it: one line.
void check_line(const std::string& line) {
  const nlohmann::json reply = reply_to(line);
  try {
    check_answer(app::parse_ctl_request(line), reply);
  } catch (const UserError& e) {
    check_refusal(e, reply);
  }
}

// The input as `gnf ctl`'s words: what parses there is sent as its line, which the server answers.
void check_words(std::string_view bytes) {
  std::vector<std::string> words;
  for (size_t at = 0; at <= bytes.size();) {
    const size_t end = std::min(bytes.find('\0', at), bytes.size());
    words.emplace_back(bytes.substr(at, end - at));
    at = end + 1;
  }
  app::CtlRequest request;
  try {
    request = app::parse_ctl_request(words);
  } catch (const UserError&) {
    return;  // what it says is checked on the line
  }
  check_answer(request, reply_to(app::ctl_request_line(request)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    check_line(std::string(bytes));
    check_words(bytes);
  } catch (const std::exception& e) {
    fuzz::fail("an exception other than UserError", fuzz::printable(e.what()));
  }
  return 0;
}
