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

#include "driver/options.h"
#include "nf/chain.h"
#include "nic/port.h"
#include "nf/l3fwd/ip_address.h"
#include "wire/generator.h"
#include "wire/link.h"
#include "wire/pcap_source.h"

namespace gnf::ctl {

struct SourceSpec {
  enum class Kind { None, Pcap, Generator } kind = Kind::None;
  wire::PcapSourceOptions pcap;
  wire::GeneratorOptions generator;
};

struct SinkSpec {
  std::string pcap_file;  // empty: no capture
};

// A Linux interface as the port's wire, both ways ([port.link]); instead of a source and a sink.
struct LinkSpec {
  wire::LinkOptions options;
  std::string where;  // "file:line: port[0].link": the interface is opened (and may fail) later
};

struct PortSpec {
  nic::PortOptions nic;
  // The port's own addresses (ipv4 = "10.0.1.1/24", ipv6 = "2001:db8:1::1/64"), for NFs that are
  // an IP host or router on the port (l3fwd).
  std::vector<std::pair<nf::IpAddress, nf::IpPrefix>> addresses;
  SourceSpec source;
  SinkSpec sink;
  std::optional<LinkSpec> link;
};

// Calibrate is no data path: every port loops its rx buffer back to its own tx line (no driver,
// no NF); `gnf bench --calibrate` measures the floor under the others with it. Config files do
// not name it.
enum class PathKind { Cpu, Staged, Bypass, P2p, Calibrate };
std::string_view path_name(PathKind kind);
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

struct Config {
  std::string file = "<command line>";
  Origins origins;
  PathKind path = PathKind::Cpu;
  double duration_s = 0;  // 0: until every source is exhausted, or Ctrl-C
  std::vector<PortSpec> ports;
  driver::DriverOptions driver;
  uint32_t driver_threads = 0;  // 0: one per queue, at most the cores not used by the NIC model
  uint32_t nic_threads = 1;
  std::vector<nf::NfSpec> nfs;
  // [netlink] netns = "NAME": the router (l3fwd) takes addresses, routes and neighbours from that
  // network namespace's interfaces named as the ports ("" = gnf's own); ctl/netlink_sync.h.
  std::optional<std::string> netlink_netns;
};

// Parses `text` as the contents of `file_name`. Throws gnf::UserError "file:line: key: problem".
Config parse_config(std::string_view text, const std::string& file_name);
// Reads and parses a file; relative paths inside it are taken relative to the file's folder.
Config load_config(const std::string& file_name);

// Checks what no single field can (queue counts agree, ports exist, ...), and the driver's options
// by their rules again: a Config built in code has not been through the readers, and the drivers
// rely on them. path::Pipeline runs it, whoever built the Config. Throws UserError.
void validate(const Config& config);

// "where: " for `key` of this Config (Origins::of), to begin an error message with.
std::string where(const Config& config, const std::string& key);

// What the NFs may know of the ports: their number, MACs and addresses (nf/context.h).
nf::NfContext nf_context(const Config& config);
// Port numbers by the ports' names ([netlink] finds a port's interface by its name).
std::map<std::string, uint16_t> port_numbers(const Config& config);

}  // namespace gnf::ctl
