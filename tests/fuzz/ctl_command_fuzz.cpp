// libFuzzer target: arbitrary bytes as what reaches the control socket's parser (app/ctl_command.h),
// both as the request line the server reads (app::ctl_reply, all the server does with it) and as
// the words `gnf ctl` is given (the bytes cut at NULs, as argv would be).
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - the reply is one line of JSON (it is written as one and parsed by the client) with "ok";
//    nothing but UserError escapes the parser;
//  - the reply is "ok" exactly when the line parses, and then holds the answer ("json", "text");
//    a request's line as the client sends it (app::ctl_request_line) parses back to the request;
//  - a refusal's message is the parser's UserError, printable ASCII and newlines only (no NUL to
//    cut it short, no byte that is no UTF-8, no escape for the terminal it is printed on), and it
//    lists the commands;
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

bool same(const app::CtlRequest& a, const app::CtlRequest& b) { return a.command == b.command && a.json == b.json; }

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
  const std::string text = app::ctl_reply(line, growing_snapshot, baseline);
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
  for (unsigned char c : message)
    if (c != '\n' && (c < 0x20 || c >= 0x7f))
      fuzz::fail("a refusal with a byte that is not printable", fuzz::printable(message));
  if (message.find(app::ctl_commands_help()) == std::string_view::npos)
    fuzz::fail("a refusal that does not list the commands", fuzz::printable(message));
  if (reply["ok"].get<bool>()) fuzz::fail("a line the parser refuses is answered", fuzz::printable(message));
  if (!reply.contains("error") || reply["error"] != std::string(message))
    fuzz::fail("a refusal's reply is not the parser's message", fuzz::printable(message));
}

void check_answer(const app::CtlRequest& request, const nlohmann::json& reply) {
  if (!reply["ok"].get<bool>()) fuzz::fail("a request is refused", app::ctl_request_line(request));
  if (!reply.contains("json") || !reply.contains("text") || !reply["text"].is_string())
    fuzz::fail("an answer without its json and text", app::ctl_request_line(request));
  check_round_trip(request);
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
