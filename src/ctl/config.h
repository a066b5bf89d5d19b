// gnf's configuration: a TOML file (see configs/ and the README), or the same structure filled in
// from command-line flags by the same builder (ctl/config_builder.h). Every error names the file,
// the line and the key (or the flag), and nothing starts.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "path/spec.h"

namespace gnf::ctl {

// The data path's own description (path/spec.h) under the names the config has always used.
using path::LinkSpec;
using path::PathKind;
using path::PortSpec;
using path::SinkSpec;
using path::SourceSpec;
using path::nf_context;
using path::path_name;
// The paths a config file or a flag may name ("cpu", "staged", "bypass", "p2p").
PathKind path_from_name(const std::string& name);
std::vector<std::string> path_names();

// Where each option of a Config was given, for errors found after reading (across fields, or in
// the files an option names): by key ("driver.slot_size", "port[1].max_frame",
// "port[0].source.file", "nf[0].routes"), "file:line: key" for a config file's, the flag for a
// command line's (a flag given on top of a file wins, as its value does).
class Origins {
 public:
  void note(const std::string& key, std::string origin) { by_key_[key] = std::move(origin); }
  bool has(const std::string& key) const { return by_key_.count(key) != 0; }
  // How an error names `key`: where it was given, else "file: key" (the default was used).
  std::string of(const std::string& key, const std::string& file) const;

 private:
  std::map<std::string, std::string> by_key_;
};

// What to build (path::PathSpec) and the control plane's own settings.
struct Config : path::PathSpec {
  Origins origins;
  double duration_s = 0;  // 0: until every source is exhausted, or Ctrl-C
  // [netlink] netns = "NAME": the router (l3fwd) takes addresses, routes and neighbours from that
  // network namespace's interfaces named as the ports ("" = gnf's own); ctl/netlink_sync.h.
  std::optional<std::string> netlink_netns;
  // [router] local_delivery = "tap": what comes for the router's own addresses and the slow path does
  // not answer goes to the kernel of the [netlink] namespace through a TAP per port, and what the
  // kernel sends there leaves by the port (ctl/kernel_taps.h); "none" (the default) drops it.
  bool local_delivery_tap = false;
  // [ctl] socket = "PATH": the control socket `gnf ctl` talks to (app/ctl_server.h); "" = the
  // default, gnf-PID.sock under $XDG_RUNTIME_DIR or /tmp.
  std::string ctl_socket;
  // [metrics] listen = "ADDRESS:PORT": where Prometheus scrapes the counters (app/metrics.h); "" = none.
  std::string metrics_listen;
};

// Parses `text` as the contents of `file_name`. Throws gnf::UserError "file:line: key: problem".
Config parse_config(std::string_view text, const std::string& file_name);
// Reads and parses a file; relative paths inside it are taken relative to the file's folder.
Config load_config(const std::string& file_name);

// Checks what no single field can (queue counts agree, ports exist, ...), and the driver's options
// by their rules again: a Config built in code has not been through the readers, and the drivers
// rely on them. app runs it before it builds a path::Pipeline. Throws UserError.
void validate(const Config& config);

// "where: " for `key` of this Config (Origins::of), to begin an error message with.
std::string where(const Config& config, const std::string& key);

// Port numbers by the ports' names ([netlink] finds a port's interface by its name).
std::map<std::string, uint16_t> port_numbers(const Config& config);

}  // namespace gnf::ctl
