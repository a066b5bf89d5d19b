// What a data path is built from: its ports (each with its wire), the driver's options and the
// NF chain, and which path drives them. ctl fills it from a config file or flags (ctl::Config is
// one of these and the control plane's own settings); path builds from it and knows no parser.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "driver/options.h"
#include "nf/chain.h"
#include "nf/context.h"
#include "nf/l3fwd/ip_address.h"
#include "nic/port.h"
#include "util/idle_backoff.h"
#include "wire/generator.h"
#include "wire/link.h"
#include "wire/pcap_source.h"

namespace gnf::path {

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
// The names config files and flags give the paths.
inline constexpr std::pair<PathKind, const char*> kPathNames[] = {
    {PathKind::Cpu, "cpu"},
    {PathKind::Staged, "staged"},
    {PathKind::Bypass, "bypass"},
    {PathKind::P2p, "p2p"},
};
std::string_view path_name(PathKind kind);

struct PathSpec {
  std::string file = "<command line>";  // where it was described: errors name it
  PathKind path = PathKind::Cpu;
  std::vector<PortSpec> ports;
  driver::DriverOptions driver;
  uint32_t driver_threads = 0;  // 0: one per queue, at most the cores not used by the NIC model
  uint32_t nic_threads = 1;
  bool pin_threads = true;  // each poll-mode thread on a core of its own when there are enough (util/cores.h)
  // [threads]: how the poll-mode threads wait when nothing arrives (util/idle_backoff.h) ...
  IdleMode idle = IdleMode::Auto;
  uint32_t idle_sleep_us_max = 200;
  // ... and where threads run (util/cores.h): the poll-mode threads' cores, in order (the driver's,
  // then the NIC model's), and every other thread's; empty: chosen.
  std::vector<int> cpus;
  std::vector<int> control_cpus;
  std::vector<nf::NfSpec> nfs;
};

// What the poll-mode threads do when idle: the mode, "auto" resolved (a port fed by a generator
// spins), with the longest sleep.
IdlePolicy idle_policy(const PathSpec& spec);

// What the NFs may know of the ports: their number, MACs and addresses (nf/context.h).
nf::NfContext nf_context(const PathSpec& spec);

}  // namespace gnf::path
