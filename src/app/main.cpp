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
#include "app/control_plane.h"
#include "app/exit_codes.h"
#include "app/interrupts.h"
#include "app/outputs.h"
#include "app/report.h"
#include "app/route.h"
#include "app/run_flags.h"
#include "ctl/config.h"
#include "path/pipeline.h"
#include "util/clock.h"
#include "util/error.h"

namespace {

int run(const gnf::app::RunFlags& flags) {
  using namespace gnf;
  ctl::Config config = app::config_from_flags(flags);
  bool has_source = false;
  for (const auto& p : config.ports) has_source |= p.source.kind != ctl::SourceSpec::Kind::None || p.link;
  if (!has_source && config.duration_s == 0)
    throw UserError(
        "no port has a source: give --pcap-in or --gen (or a [port.source] or [port.link] in the config), or a "
        "--duration");

  app::check_outputs(config, flags.json_file);
  app::JsonOutput json(flags.json_file);
  path::Pipeline pipeline(config, app::control_plane(config));

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
  int reloads_handled = 0;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    uint64_t now = now_ns();
    if (app::interrupts() >= 2) break;  // a second Ctrl-C: stop at once
    if (const int requests = app::reload_requests(); requests != reloads_handled) {
      reloads_handled = requests;  // SIGHUPs that came together: one reload
      for (const nf::NfChain::Reload& reload : pipeline.reload_tables())
        std::fprintf(stderr, "gnf: %s%s\n", reload.done ? "" : "error: ", reload.what.c_str());
    }
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
  // What was measured is reported even when an output failed; the failure is said after it.
  std::vector<std::string> output_errors;
  try {
    pipeline.stop();
  } catch (const UserError& e) {
    output_errors.push_back(e.what());
  }
  path::Snapshot end = pipeline.snapshot();
  nlohmann::json summary = app::summary_json(pipeline, first, end, drained);
  json.write(summary, output_errors);
  if (!flags.quiet || !output_errors.empty()) {
    const auto& acc = summary["accounting"];
    std::fprintf(stderr, "gnf: %s: offered %llu, accounted %llu%s\n", drained ? "done" : "stopped",
                 (unsigned long long)acc["offered"].get<uint64_t>(), (unsigned long long)acc["accounted"].get<uint64_t>(),
                 acc["balanced"].get<bool>() ? ", every packet accounted for" : "");
    for (const auto& port : summary["ports"])
      std::fprintf(stderr, "gnf: %s: rx %llu tx %llu packets\n", port["name"].get<std::string>().c_str(),
                   (unsigned long long)port["rx_packets"].get<uint64_t>(), (unsigned long long)port["tx_packets"].get<uint64_t>());
  }
  return app::exit_code(app::consistency_exit_code(summary), output_errors);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gnf: a GPU network-function dataplane (softnic + cpu/staged/bypass/p2p data paths)", "gnf"};
  app.set_version_flag("--version", GNF_VERSION);
  app.require_subcommand(1);

  gnf::app::RunFlags f;
  CLI::App* run_cmd = app.add_subcommand("run", "Forward packets through softnic ports, a data path and an NF chain");
  gnf::app::add_run_options(*run_cmd, f);

  gnf::app::BenchFlags bench_flags;
  CLI::App* bench_cmd = app.add_subcommand("bench", "One benchmark trial: warm-up, measured window, JSON for the harness (bench/SCHEMA.md)");
  gnf::app::add_bench_options(*bench_cmd, bench_flags);

  std::string route_config;
  std::vector<std::string> route_addresses;
  CLI::App* route_cmd = app.add_subcommand(
      "route", "Where the config's router sends packets to ADDRESS..., as `ip route get` says (no data path runs)");
  route_cmd->add_option("-c,--config", route_config, "TOML config file with an l3fwd")->required();
  route_cmd->add_option("address", route_addresses, "IPv4 or IPv6 destinations")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (105-114) say nothing to a script: every bad command line is a usage error.
    const std::string first = argc > 1 ? argv[1] : "";
    if (!first.empty() && first[0] != '-' && first != "run" && first != "bench" && first != "route") {
      std::fprintf(stderr, "gnf: error: '%s' is not a command; the commands are run, bench and route (gnf --help)\n",
                   argv[1]);
    } else {
      app.exit(e);
    }
    return gnf::app::kExitUsage;
  }
  // Before anything that must be undone (a link's XDP program, the GPU's kernels) exists: a Ctrl-C
  // from then on ends a run or a trial in order, with its summary.
  if (run_cmd->parsed() || bench_cmd->parsed()) gnf::app::catch_interrupts();
  if (run_cmd->parsed()) gnf::app::catch_reload_requests();
  try {
    if (run_cmd->parsed()) return run(f);
    if (route_cmd->parsed()) return gnf::app::run_route(route_config, route_addresses);
    if (bench_cmd->parsed()) return gnf::app::run_bench(bench_flags);
  } catch (const gnf::UserError& e) {
    std::fprintf(stderr, "gnf: error: %s\n", e.what());
    return gnf::app::kExitError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gnf: internal error: %s\n", e.what());
    return gnf::app::kExitInternal;
  }
  return 0;
}
