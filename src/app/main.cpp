// gnf: a GPU network-function dataplane. `gnf run` forwards packets through softnic ports and
// one of the data paths, logging per-second stats and writing a final JSON summary (app/run.h);
// `gnf bench` runs one benchmark trial and writes the JSON the harness reads (bench/SCHEMA.md);
// `gnf route` looks addresses up in the router a config describes, as `ip route get` does.

#include <CLI/CLI.hpp>

#include "app/bench.h"
#include "app/ctl_client.h"
#include "app/exit_codes.h"
#include "app/interrupts.h"
#include "app/route.h"
#include "app/run.h"
#include "app/run_flags.h"
#include "util/error.h"
#include "util/log.h"

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

  gnf::set_up_log(spdlog::level::info);
  std::string ctl_socket;
  std::vector<std::string> ctl_words;
  bool ctl_json = false;
  CLI::App* ctl_cmd = app.add_subcommand("ctl", "Ask a running gnf run through its control socket (show ports, ...)");
  ctl_cmd->add_option("-s,--socket", ctl_socket, "Its control socket (default: the one gnf-*.sock in $XDG_RUNTIME_DIR or /tmp)");
  ctl_cmd->add_flag("--json", ctl_json, "The answer as JSON");
  ctl_cmd->add_option("command", ctl_words, "show ports|queues|nf|runtime|route, clear counters, route add|del, reload, pcap start|stop (any other word lists them)")
      ->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (105-114) say nothing to a script: every bad command line is a usage error.
    const std::string first = argc > 1 ? argv[1] : "";
    if (!first.empty() && first[0] != '-' && first != "run" && first != "bench" && first != "route" && first != "ctl") {
      spdlog::error("'{}' is not a command; the commands are run, bench and route, and ctl asks a running gnf (gnf "
                    "--help)", argv[1]);
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
    if (run_cmd->parsed()) gnf::set_up_log(f.log.level());
    if (bench_cmd->parsed()) gnf::set_up_log(bench_flags.log.level());
    if (run_cmd->parsed()) return gnf::app::run_forwarding(f);
    if (route_cmd->parsed()) return gnf::app::run_route(route_config, route_addresses);
    if (ctl_cmd->parsed()) return gnf::app::run_ctl(ctl_socket, ctl_words, ctl_json);
    if (bench_cmd->parsed()) return gnf::app::run_bench(bench_flags);
  } catch (const gnf::UserError& e) {
    spdlog::error("{}", e.what());
    return gnf::app::kExitError;
  } catch (const std::exception& e) {
    spdlog::critical("{}", e.what());
    return gnf::app::kExitInternal;
  }
  return 0;
}
