#include "app/run.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "app/control_plane.h"
#include "app/interrupts.h"
#include "app/outputs.h"
#include "app/report.h"
#include "path/pipeline.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"

namespace gnf::app {

namespace {

constexpr uint64_t kNsPerS = 1'000'000'000;

}  // namespace

int run_forwarding(const RunFlags& flags) {
  ctl::Config config = config_from_flags(flags);
  bool has_source = false;
  for (const auto& p : config.ports) has_source |= p.source.kind != ctl::SourceSpec::Kind::None || p.link;
  if (!has_source && config.duration_s == 0)
    throw UserError(
        "no port has a source: give --pcap-in or --gen (or a [port.source] or [port.link] in the config), or a "
        "--duration");

  check_outputs(config, flags.json_file);
  JsonOutput json(flags.json_file);
  path::Pipeline pipeline(config, control_plane(config));

  path::Snapshot first = pipeline.snapshot();
  pipeline.start();
  first.time_ns = now_ns();
  path::Snapshot last = first;
  const bool stats = flags.stats && spdlog::should_log(spdlog::level::info);
  const uint64_t stop_at = config.duration_s > 0 ? first.time_ns + uint64_t(config.duration_s * kNsPerS) : 0;
  uint64_t next_stats = first.time_ns + uint64_t(flags.stats_interval * kNsPerS);
  bool sources_stopped = false;
  uint64_t drain_deadline = 0;
  bool drained = false;
  int drained_checks = 0;
  int reloads_handled = 0;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    uint64_t now = now_ns();
    if (interrupts() >= 2) break;  // a second Ctrl-C: stop at once
    if (const int requests = reload_requests(); requests != reloads_handled) {
      reloads_handled = requests;  // SIGHUPs that came together: one reload
      for (const nf::NfChain::Reload& reload : pipeline.reload_tables()) {
        if (reload.done) spdlog::info("{}", reload.what);
        else spdlog::error("{}", reload.what);
      }
    }
    if (!sources_stopped && (interrupts() || (stop_at && now >= stop_at))) {
      pipeline.stop_sources();
      sources_stopped = true;
      drain_deadline = now + kNsPerS;  // in-flight packets get a second to leave
    }
    // Two consecutive drained readings: the counters are read one after another, so one reading
    // could fall between a packet's two counter updates.
    drained_checks = pipeline.drained() ? drained_checks + 1 : 0;
    if (drained_checks >= 2) {
      drained = true;
      break;
    }
    if (drain_deadline && now >= drain_deadline) break;
    if (stats && now >= next_stats) {
      path::Snapshot cur = pipeline.snapshot();
      for (const std::string& line : stats_lines(last, cur, double(cur.time_ns - first.time_ns) / 1e9))
        spdlog::info("{}", line);
      last = cur;
      next_stats += uint64_t(flags.stats_interval * kNsPerS);
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
  nlohmann::json summary = summary_json(pipeline, first, end, drained);
  json.write(summary, output_errors);
  // -q asked for silence, but what was measured is not thrown away with a lost output.
  if (!output_errors.empty()) spdlog::set_level(std::min(spdlog::get_level(), spdlog::level::info));
  const auto& acc = summary["accounting"];
  spdlog::info("{}: offered {}, accounted {}{}", drained ? "done" : "stopped", acc["offered"].get<uint64_t>(),
               acc["accounted"].get<uint64_t>(), acc["balanced"].get<bool>() ? ", every packet accounted for" : "");
  for (const auto& port : summary["ports"])
    spdlog::info("{}: rx {} tx {} packets", port["name"].get<std::string>(), port["rx_packets"].get<uint64_t>(),
                 port["tx_packets"].get<uint64_t>());
  return exit_code(consistency_exit_code(summary), output_errors);
}

}  // namespace gnf::app
