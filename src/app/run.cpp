#include "app/run.h"

#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "app/bench_json.h"
#include "app/control_plane.h"
#include "app/ctl_server.h"
#include "app/interrupts.h"
#include "app/metrics.h"
#include "app/outputs.h"
#include "app/placement.h"
#include "app/report.h"
#include "app/verdict.h"
#include "path/pipeline.h"
#include "path/port_capture.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"

namespace gnf::app {

namespace {

constexpr uint64_t kNsPerS = 1'000'000'000;
// The NIC model's late frames count from this long after the start: before it, frames arrive on a
// wire whose threads are still starting (a run's first frames, all late, as a trial's warm-up's).
constexpr uint64_t kSettleNs = 100'000'000;

// The run's own verdicts beside its summary: model_bound and host_load (app/verdict.h); frames
// taken late since `settled` (none if the run ended before it).
void add_limits(nlohmann::json& summary, const path::Pipeline& pipeline, const std::optional<path::Snapshot>& settled,
                const path::Snapshot& end) {
  ModelHealth health;
  if (settled) {
    health = model_health(*settled, end);
    health.sent = end.offered() - settled->offered();
  }
  const nlohmann::json cpu = cpu_json(pipeline.thread_cpu(), summary["duration_s"].get<double>());
  summary["model_bound"] = model_bound_json(cpu, health);
  summary["host_load"] = host_load_json(cpu);
}

// What the control socket's commands act on: the path's counters, its NF chain's tables, its ports.
CtlTarget ctl_target(const ctl::Config& config, const path::Pipeline& pipeline, path::PortCaptures& captures) {
  CtlTarget target;
  target.snapshot = [&pipeline] { return pipeline.snapshot(); };
  const nf::NfChain& chain = pipeline.chain();
  for (uint32_t e = 0; e < chain.size(); ++e) target.nfs.push_back({chain.name(e), chain.tables(e)});
  for (const ctl::PortSpec& port : config.ports) target.port_names.push_back(port.nic.name);
  if (config.netlink_netns) target.netlink_netns = *config.netlink_netns;
  target.captures = &captures;
  return target;
}

// The run's control socket: --ctl-socket, else [ctl] socket, else the default for this process.
CtlServer control_socket(const RunFlags& flags, const ctl::Config& config, CtlTarget target) {
  if (!flags.ctl_socket.empty()) return CtlServer(flags.ctl_socket, "--ctl-socket", std::move(target));
  if (!config.ctl_socket.empty())
    return CtlServer(config.ctl_socket, ctl::where(config, "ctl.socket"), std::move(target));
  return CtlServer(default_ctl_socket(getpid()), "the control socket", std::move(target));
}

// The run's metrics: --metrics-listen, else [metrics] listen, else none.
std::unique_ptr<MetricsServer> metrics_server(const RunFlags& flags, const ctl::Config& config,
                                              const path::Pipeline& pipeline) {
  auto snapshot = [&pipeline] { return pipeline.snapshot(); };
  if (!flags.metrics_listen.empty())
    return std::make_unique<MetricsServer>(flags.metrics_listen, "--metrics-listen", snapshot);
  if (!config.metrics_listen.empty())
    return std::make_unique<MetricsServer>(config.metrics_listen, ctl::where(config, "metrics.listen"), snapshot);
  return nullptr;
}

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
  log_times();
  path::PortCaptures captures(pipeline.ports());  // after the control socket is gone, they stop
  const CtlServer ctl_server = control_socket(flags, config, ctl_target(config, pipeline, captures));
  const std::unique_ptr<MetricsServer> metrics = metrics_server(flags, config, pipeline);

  path::Snapshot first = pipeline.snapshot();
  pipeline.start();
  first.time_ns = now_ns();
  path::Snapshot last = first;
  std::optional<path::Snapshot> settled;
  const bool stats = flags.stats && !flags.log.quiet && spdlog::should_log(spdlog::level::info);
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
    if (!settled && now >= first.time_ns + kSettleNs) settled = pipeline.snapshot();
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
  add_limits(summary, pipeline, settled, end);
  json.write(summary, output_errors);
  // -q asked for silence, but what was measured is not thrown away with a lost output.
  if (!flags.log.quiet || !output_errors.empty()) {
    for (const std::string& line : verdict_lines(summary)) spdlog::info("{}", line);
    spdlog::info("{}", placement_line(summary["placement"]));
  }
  for (const std::string& warning : limit_warnings(summary["model_bound"], summary["host_load"]))
    spdlog::warn("{}", warning);
  return exit_code(consistency_exit_code(summary), output_errors);
}

}  // namespace gnf::app
