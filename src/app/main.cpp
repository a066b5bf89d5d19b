// gnf: a GPU network-function dataplane. `gnf run` forwards packets through softnic ports and
// one of the data paths, printing per-second stats and a final JSON summary; `gnf bench` runs
// one benchmark trial and writes the JSON the harness reads (bench/SCHEMA.md); `gnf route` looks
// addresses up in the router a config describes, as `ip route get` does.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app/bench.h"
#include "app/interrupts.h"
#include "app/report.h"
#include "app/route.h"
#include "ctl/config.h"
#include "path/pipeline.h"
#include "util/clock.h"
#include "util/error.h"

namespace {

// Flags for the common case: one port, a pcap file or the generator in, l2fwd, a pcap file out.
struct RunFlags {
  std::string config_file;
  std::string pcap_in, pcap_out, timing = "max";
  bool generator = false;
  std::vector<int64_t> sizes;
  bool imix = false;
  uint32_t flows = 1;
  double rate_pps = 0, rate_gbps = 0;
  uint64_t count = 0;
  int ip = 4;
  uint32_t speed = 10, queues = 1;
  bool flow_control = false;
  std::string nf = "l2fwd", mode = "reflect", mac = "none";
  double duration = 0;
  std::string json_file;
  double stats_interval = 1.0;
  bool quiet = false;
  std::string path;
  uint32_t nic_threads = 0, driver_threads = 0;
};

gnf::ctl::Config config_from_flags(const RunFlags& f) {
  using namespace gnf;
  ctl::Config c;
  ctl::PortSpec port;
  port.nic.name = "port0";
  port.nic.speed_gbps = f.speed;
  port.nic.rx_queues = port.nic.tx_queues = uint16_t(f.queues);
  port.nic.flow_control = f.flow_control;
  nic::fill_reta_round_robin(port.nic.rss, f.queues);
  if (!f.pcap_in.empty()) {
    port.source.kind = ctl::SourceSpec::Kind::Pcap;
    port.source.pcap.file = f.pcap_in;
    port.source.pcap.timing = f.timing == "original" ? wire::PcapSourceOptions::Timing::Original
                              : f.timing == "rate"   ? wire::PcapSourceOptions::Timing::Rate
                                                     : wire::PcapSourceOptions::Timing::Max;
    port.source.pcap.rate_pps = f.rate_pps;
    port.source.pcap.rate_gbps_l1 = f.rate_gbps;
  } else if (f.generator) {
    port.source.kind = ctl::SourceSpec::Kind::Generator;
    wire::GeneratorOptions& g = port.source.generator;
    g.ip_version = f.ip;
    if (!f.sizes.empty()) g.sizes.assign(f.sizes.begin(), f.sizes.end());
    g.imix = f.imix;
    g.flows = f.flows;
    g.rate_pps = f.rate_pps;
    g.rate_gbps_l1 = f.rate_gbps;
    g.line_gbps = f.speed;
    g.count = f.count;
  }
  port.sink.pcap_file = f.pcap_out;
  c.ports.push_back(port);
  nf::Params params("<command line>", 0, "--nf " + f.nf);
  params.set("mode", nf::ParamValue{f.mode, 0});
  params.set("mac", nf::ParamValue{f.mac, 0});
  c.nfs.push_back(nf::NfSpec{f.nf, params});
  return c;
}

int run(const RunFlags& flags) {
  using namespace gnf;
  ctl::Config config = flags.config_file.empty() ? config_from_flags(flags) : ctl::load_config(flags.config_file);
  if (flags.duration > 0) config.duration_s = flags.duration;
  if (flags.nic_threads) config.nic_threads = flags.nic_threads;
  if (flags.driver_threads) config.driver_threads = flags.driver_threads;
  if (!flags.path.empty()) {
    static const std::map<std::string, ctl::PathKind> kinds = {
        {"cpu", ctl::PathKind::Cpu}, {"staged", ctl::PathKind::Staged}, {"bypass", ctl::PathKind::Bypass}, {"p2p", ctl::PathKind::P2p}};
    config.path = kinds.at(flags.path);
  }
  bool has_source = false;
  for (const auto& p : config.ports) has_source |= p.source.kind != ctl::SourceSpec::Kind::None || p.link;
  if (!has_source && config.duration_s == 0)
    throw UserError(
        "no port has a source: give --pcap-in or --gen (or a [port.source] or [port.link] in the config), or a "
        "--duration");

  path::Pipeline pipeline(config);
  app::catch_interrupts();

  path::Snapshot first = pipeline.snapshot();
  pipeline.start();
  first.time_ns = now_ns();
  path::Snapshot last = first;
  uint64_t stop_at = config.duration_s > 0 ? first.time_ns + uint64_t(config.duration_s * 1e9) : 0;
  uint64_t next_stats = first.time_ns + uint64_t(flags.stats_interval * 1e9);
  bool sources_stopped = false;
  uint64_t drain_deadline = 0;
  bool drained = false;
  int drained_checks = 0;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    uint64_t now = now_ns();
    if (app::interrupts() >= 2) break;  // a second Ctrl-C: stop at once
    if (!sources_stopped && (app::interrupts() || (stop_at && now >= stop_at))) {
      pipeline.stop_sources();
      sources_stopped = true;
      drain_deadline = now + 1'000'000'000;  // in-flight packets get a second to leave
    }
    // Two consecutive drained readings: the counters are read one after another, so one reading
    // could fall between a packet's two counter updates.
    drained_checks = pipeline.drained() ? drained_checks + 1 : 0;
    if (drained_checks >= 2) {
      drained = true;
      break;
    }
    if (drain_deadline && now >= drain_deadline) break;
    if (!flags.quiet && now >= next_stats) {
      path::Snapshot cur = pipeline.snapshot();
      std::fputs(app::stats_lines(last, cur, double(cur.time_ns - first.time_ns) / 1e9).c_str(), stderr);
      last = cur;
      next_stats += uint64_t(flags.stats_interval * 1e9);
    }
  }
  path::Snapshot end = pipeline.snapshot();
  pipeline.stop();
  end = pipeline.snapshot();
  nlohmann::json summary = app::summary_json(pipeline, first, end, drained);
  app::write_json(summary, flags.json_file);
  if (!flags.quiet) {
    const auto& acc = summary["accounting"];
    std::fprintf(stderr, "gnf: %s: offered %llu, accounted %llu%s\n", drained ? "done" : "stopped",
                 (unsigned long long)acc["offered"].get<uint64_t>(), (unsigned long long)acc["accounted"].get<uint64_t>(),
                 acc["balanced"].get<bool>() ? ", every packet accounted for" : "");
    for (const auto& port : summary["ports"])
      std::fprintf(stderr, "gnf: %s: rx %llu tx %llu packets\n", port["name"].get<std::string>().c_str(),
                   (unsigned long long)port["rx_packets"].get<uint64_t>(), (unsigned long long)port["tx_packets"].get<uint64_t>());
  }
  return app::consistency_exit_code(summary);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gnf: a GPU network-function dataplane (softnic + cpu/staged/bypass/p2p data paths)", "gnf"};
  app.set_version_flag("--version", GNF_VERSION);
  app.require_subcommand(1);

  RunFlags f;
  CLI::App* run_cmd = app.add_subcommand("run", "Forward packets through softnic ports, a data path and an NF chain");
  auto* config_opt = run_cmd->add_option("-c,--config", f.config_file, "TOML config file (see configs/)")->check(CLI::ExistingFile);
  run_cmd->add_option("--path", f.path, "Data path: cpu | staged | bypass | p2p")->check(CLI::IsMember({"cpu", "staged", "bypass", "p2p"}));
  run_cmd->add_option("--duration", f.duration, "Seconds to run (0: until the sources end or Ctrl-C)")->check(CLI::NonNegativeNumber);
  run_cmd->add_option("--json", f.json_file, "Write the JSON summary to FILE ('-' for stdout)");
  run_cmd->add_option("--stats-interval", f.stats_interval, "Seconds between stats lines")->check(CLI::PositiveNumber);
  run_cmd->add_flag("-q,--quiet", f.quiet, "No stats lines");
  run_cmd->add_option("--nic-threads", f.nic_threads, "NIC-model threads (a port's rx and tx sides may run apart)")->check(CLI::Range(1, 64));
  run_cmd->add_option("--driver-threads", f.driver_threads, "Driver threads (each owns whole planes)")->check(CLI::Range(1, 64));
  // The single-port quick forms; a config file says all of this and more.
  auto group = "Single port without a config file";
  std::vector<CLI::Option*> port_opts = {
      run_cmd->add_option("--pcap-in", f.pcap_in, "Replay this pcap into port0")->check(CLI::ExistingFile)->group(group),
      run_cmd->add_option("--timing", f.timing, "pcap timing: max | original | rate")->check(CLI::IsMember({"max", "original", "rate"}))->group(group),
      run_cmd->add_flag("--gen", f.generator, "Feed port0 from the traffic generator")->group(group),
      run_cmd->add_option("--size", f.sizes, "Generator frame size(s) in bytes with FCS (64..9018)")->group(group),
      run_cmd->add_flag("--imix", f.imix, "Generator: simple IMIX (7:4:1 of 64/594/1518 B)")->group(group),
      run_cmd->add_option("--flows", f.flows, "Generator flows")->check(CLI::Range(1, 65536))->group(group),
      run_cmd->add_option("--rate-pps", f.rate_pps, "Offered rate in packets/s")->group(group),
      run_cmd->add_option("--rate-gbps", f.rate_gbps, "Offered rate in Gbit/s, layer 1")->group(group),
      run_cmd->add_option("--count", f.count, "Generator: frames to send")->group(group),
      run_cmd->add_option("--ip", f.ip, "Generator IP version")->check(CLI::IsMember({4, 6}))->group(group),
      run_cmd->add_option("--speed", f.speed, "Port speed in Gbit/s")->check(CLI::IsMember({10, 25, 40, 100, 200, 400}))->group(group),
      run_cmd->add_option("--queues", f.queues, "rx/tx queue pairs (RSS)")->check(CLI::Range(1, 64))->group(group),
      run_cmd->add_flag("--flow-control", f.flow_control, "Pause the source instead of dropping when the rx buffer is full")->group(group),
      run_cmd->add_option("--pcap-out", f.pcap_out, "Write what port0 transmits to this pcap")->group(group),
      run_cmd->add_option("--nf", f.nf, "Network function")->check(CLI::IsMember({"l2fwd"}))->group(group),
      run_cmd->add_option("--mode", f.mode, "l2fwd mode: reflect | to")->check(CLI::IsMember({"reflect", "to"}))->group(group),
      run_cmd->add_option("--mac", f.mac, "l2fwd MAC handling: none | swap | rewrite")->check(CLI::IsMember({"none", "swap", "rewrite"}))->group(group),
  };
  for (CLI::Option* o : port_opts) o->excludes(config_opt);

  gnf::app::BenchFlags bench_flags;
  CLI::App* bench_cmd = app.add_subcommand("bench", "One benchmark trial: warm-up, measured window, JSON for the harness (bench/SCHEMA.md)");
  gnf::app::add_bench_options(*bench_cmd, bench_flags);

  std::string route_config;
  std::vector<std::string> route_addresses;
  CLI::App* route_cmd = app.add_subcommand(
      "route", "Where the config's router sends packets to ADDRESS..., as `ip route get` says (no data path runs)");
  route_cmd->add_option("-c,--config", route_config, "TOML config file with an l3fwd")->required()->check(CLI::ExistingFile);
  route_cmd->add_option("address", route_addresses, "IPv4 or IPv6 destinations")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    // bench promises the harness exit 1 for any bad flag or value (run keeps CLI11's codes).
    return code != 0 && argc > 1 && std::string(argv[1]) == "bench" ? 1 : code;
  }
  try {
    if (run_cmd->parsed()) return run(f);
    if (route_cmd->parsed()) return gnf::app::run_route(route_config, route_addresses);
    if (bench_cmd->parsed()) {
      gnf::app::record_given_flags(*bench_cmd, bench_flags);
      return gnf::app::run_bench(bench_flags);
    }
  } catch (const gnf::UserError& e) {
    std::fprintf(stderr, "gnf: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gnf: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
