// `gnf ctl pcap start PORT FILE [rx | tx] [max N]` and `pcap stop PORT`: a port's frames into a
// pcap file at run time, as `vppctl pcap trace` (path/port_capture.h).
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/ctl_actions.h"
#include "util/error.h"

namespace gnf::app {

namespace {

std::optional<uint64_t> count_of(const std::string& text) {
  uint64_t n = 0;
  const char* end = text.data() + text.size();
  auto [at, error] = std::from_chars(text.data(), end, n);
  if (error != std::errc() || at != end || text.empty() || n == 0) return std::nullopt;
  return n;
}

// pcap start's arguments after PORT FILE.
struct Options {
  bool rx = true, tx = true;
  uint64_t max = 0;
};

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  size_t at = 2;
  if (at < args.size() && (args[at] == "rx" || args[at] == "tx")) {
    o.rx = args[at] == "rx";
    o.tx = !o.rx;
    ++at;
  }
  if (at < args.size() && args[at] == "max") {
    if (at + 1 >= args.size()) throw UserError("max wants a number of frames");
    const std::optional<uint64_t> max = count_of(args[at + 1]);
    if (!max) throw UserError(fmt::format("'{}' is not a number of frames (1 or more)", ctl_printable(args[at + 1])));
    o.max = *max;
    at += 2;
  }
  if (at != args.size()) throw UserError(fmt::format("'{}' is not rx, tx or max N", ctl_printable(args[at])));
  return o;
}

size_t port_of(const path::PortCaptures& captures, const std::string& name) {
  if (const std::optional<size_t> port = captures.find_port(name)) return *port;
  std::vector<std::string> names;
  for (const nic::Port* p : captures.ports()) names.push_back(p->options().name);
  throw UserError(fmt::format("'{}' is no port: the ports are {} (or their numbers)", ctl_printable(name),
                              fmt::join(names, ", ")));
}

}  // namespace

void check_pcap_args(CtlCommand command, const std::vector<std::string>& args) {
  if (command == CtlCommand::PcapStop) {
    if (args.size() != 1) throw UserError("one port");
    return;
  }
  if (args.size() < 2) throw UserError("a port and a file");
  parse_options(args);
}

nlohmann::json answer_pcap(const CtlRequest& request, const CtlTarget& target) {
  if (!target.captures) throw UserError("this gnf has no ports to capture");
  path::PortCaptures& captures = *target.captures;
  const size_t port = port_of(captures, request.args[0]);
  const std::string& name = captures.ports()[port]->options().name;
  if (request.command == CtlCommand::PcapStop) {
    const path::CaptureResult r = captures.stop(port);
    const uint64_t frames = r.rx_frames + r.tx_frames;
    nlohmann::json json = {{"port", r.port},           {"file", r.file},
                           {"frames", frames},         {"rx_frames", r.rx_frames},
                           {"tx_frames", r.tx_frames}, {"capture_dropped", r.capture_dropped},
                           {"reached_max", r.reached_max}};
    return {{"json", json},
            {"text", fmt::format("{}: {} frames written to {} (rx {}, tx {}){}, {} dropped by the capture\n", r.port,
                                 frames, r.file, r.rx_frames, r.tx_frames, r.reached_max ? ", the max" : "",
                                 r.capture_dropped)}};
  }
  const std::string& file = request.args[1];
  const Options o = parse_options(request.args);
  captures.start(port, file, o.rx, o.tx, o.max);
  const std::string sides = o.rx && o.tx ? "rx and tx" : o.rx ? "rx" : "tx";
  nlohmann::json json = {{"port", name}, {"file", file}, {"rx", o.rx}, {"tx", o.tx}, {"max", o.max}};
  return {{"json", json},
          {"text", fmt::format("capturing {} {} into {}{}; pcap stop {} ends it\n", name, sides, file,
                               o.max ? fmt::format(" ({} frames at most)", o.max) : "", name)}};
}

}  // namespace gnf::app
