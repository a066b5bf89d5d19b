#include "app/bench.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "app/bench_json.h"
#include "app/control_plane.h"
#include "app/environment.h"
#include "app/interrupts.h"
#include "app/outputs.h"
#include "util/nvml.h"
#include "app/report.h"
#include "app/verdict.h"
#include "mem/cuda_alloc.h"
#include "path/pipeline.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/log.h"

namespace gnf::app {

namespace {

constexpr uint64_t kNsPerS = 1'000'000'000;
// The counters' window snapshot is taken this long before the window opens: a frame sent inside
// the window reaches the NIC one wire time after its send time at the earliest, so no drop of a
// window frame can precede the snapshot (its deltas then count every one, plus a few of the
// warm-up's last frames).
constexpr uint64_t kWindowSnapshotLeadNs = 2'000'000;
// A generator still sending this long after its schedule ended could not offer the load in real
// time (the NIC model's rx side paces it, and could not keep up).
constexpr uint64_t kScheduleGraceNs = 100'000'000;
constexpr uint64_t kDrainLimitNs = kNsPerS;
constexpr uint64_t kProgressIntervalNs = 200'000'000;

uint64_t forwarded_frames(const path::Snapshot& s) {
  uint64_t n = 0;
  for (const path::PortStats& p : s.ports) n += p.tx_good_packets;
  return n;
}

// One stderr line rewritten in place: elapsed / expected time, phase, forwarded Mpps.
class ProgressBar {
 public:
  ProgressBar(bool enabled, double total_s) : enabled_(enabled), total_s_(total_s) {}

  void update(const path::Pipeline& pipeline, uint64_t now, uint64_t start_ns, const char* phase) {
    if (!enabled_ || now < next_ns_) return;
    path::Snapshot s = pipeline.snapshot();
    uint64_t frames = forwarded_frames(s);
    double mpps = last_ns_ && s.time_ns > last_ns_ ? double(frames - last_frames_) / double(s.time_ns - last_ns_) * 1e3 : 0;
    std::fprintf(stderr, "\rgnf bench: [%6.1f s / %.1f s] %-8s %9.3f Mpps forwarded ", double(now - start_ns) / 1e9,
                 total_s_, phase, mpps);
    std::fflush(stderr);
    last_ns_ = s.time_ns;
    last_frames_ = frames;
    next_ns_ = now + kProgressIntervalNs;
    shown_ = true;
  }
  void finish() {
    if (shown_) std::fputc('\n', stderr);
    shown_ = false;
  }

 private:
  bool enabled_;
  double total_s_;
  uint64_t next_ns_ = 0, last_ns_ = 0, last_frames_ = 0;
  bool shown_ = false;
};

// Runs the trial: starts the pipeline with its measured window, snapshots the counters as the
// window opens, samples the GPU while it lasts, stops the sources (or sees them finish) and
// drains.
TrialRun run_trial(path::Pipeline& pipeline, const Trial& trial, const Nvml* nvml, bool quiet) {
  const uint64_t warmup_ns = uint64_t(trial.warmup_s * 1e9), window_ns = uint64_t(trial.duration_s * 1e9);
  TrialRun run;
  run.first = pipeline.snapshot();
  pipeline.start(warmup_ns, window_ns);
  run.start_ns = run.first.time_ns = pipeline.start_ns();
  const uint64_t window_start = run.start_ns + warmup_ns, window_end = window_start + window_ns;

  std::optional<path::Snapshot> at_window;
  if (warmup_ns <= kWindowSnapshotLeadNs) at_window = run.first;  // nothing was sent before it
  std::unique_ptr<GpuSampler> sampler = nvml ? std::make_unique<GpuSampler>(*nvml) : nullptr;
  bool sampled = false;
  ProgressBar progress(!quiet && spdlog::should_log(spdlog::level::info), trial.warmup_s + trial.duration_s);
  bool sources_stopped = false;
  uint64_t drain_deadline = 0;
  int drained_checks = 0;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    uint64_t now = now_ns();
    if (interrupts() >= 2) break;  // a second Ctrl-C: stop at once
    if (!at_window && now + kWindowSnapshotLeadNs >= window_start) at_window = pipeline.snapshot();
    if (sampler && !sampled && now >= window_start) {
      sampler->start();
      sampled = true;
    }
    if (sampler && sampler->running() && now >= window_end) sampler->stop();
    if (!sources_stopped) {
      if (pipeline.generators_finished()) {
        sources_stopped = true;
      } else if (interrupts() || now >= window_end + kScheduleGraceNs) {
        pipeline.stop_sources();
        sources_stopped = true;
        run.on_schedule = false;
        run.interrupted = interrupts() > 0;
      }
      if (sources_stopped) drain_deadline = now + kDrainLimitNs;
    }
    if (sources_stopped) {
      // Two consecutive drained readings: one could fall between a packet's two counter updates.
      drained_checks = pipeline.drained() ? drained_checks + 1 : 0;
      if (drained_checks >= 2) {
        run.drained = true;
        break;
      }
      if (now >= drain_deadline) break;
    }
    progress.update(pipeline, now, run.start_ns,
                    now < window_start ? "warm-up" : now < window_end ? "measure" : "drain");
  }
  progress.finish();
  if (sampler) {
    sampler->stop();
    run.gpu = sampler->summary();
  }
  run.at_window = at_window ? *at_window : pipeline.snapshot();  // stopped during the warm-up
  try {
    pipeline.stop();
  } catch (const UserError& e) {
    run.output_error = e.what();  // a sink's file; the trial's JSON still says what was measured
  }
  run.stop_ns = now_ns();
  run.end = pipeline.snapshot();
  return run;
}

void print_outcome(const nlohmann::json& result, const TrialRun& run, bool quiet) {
  // The trial's own lines, as "gnf bench: ..."; errors say "gnf: error: ..." as everywhere.
  const std::shared_ptr<spdlog::logger> log = spdlog::default_logger()->clone("gnf bench");
  if (run.interrupted) {
    log->warn("interrupted: the measured window is incomplete");
  } else if (!run.on_schedule) {
    log->warn("the generator could not send its schedule in real time (the NIC model did not keep up): the load "
                 "was not offered, and the results describe the NIC model's rate");
  }
  if (quiet) return;
  const auto& latency = result["latency"];
  // What limited the trial, in the same line: the JSON says it at length (result.model_bound, .host_load).
  std::string limits;
  for (const std::string& warning : limit_warnings(result["model_bound"], result["host_load"])) limits += "; " + warning;
  log->info("sent {}, received {}, lost {} ({:.3g} %), latency p50 {} ns, p99 {} ns{}", result["sent"].get<uint64_t>(),
            result["received"].get<uint64_t>(), result["loss"]["count"].get<uint64_t>(),
            result["loss"]["ratio"].get<double>() * 100, latency["p50"].get<uint64_t>(), latency["p99"].get<uint64_t>(),
            limits);
}

// The GPU gnf uses: CUDA's device 0, found in NVML by its PCI bus id (NVML's device 0 when this
// build has no CUDA).
std::unique_ptr<Nvml> open_nvml() {
  std::optional<mem::CudaInfo> cuda = mem::cuda_info();
  return Nvml::open(cuda ? cuda->device_pci_bus_id : std::string());
}

}  // namespace

int run_bench(const BenchFlags& flags) {
  Trial trial = trial_from_flags(flags);
  check_outputs(trial.config, flags.json_file);
  JsonOutput json(flags.json_file);
  path::Pipeline pipeline(trial.config, control_plane(trial.config));
  log_times();
  std::unique_ptr<Nvml> nvml = open_nvml();
  nlohmann::json environment = environment_json(nvml.get());
  TrialRun run = run_trial(pipeline, trial, nvml.get(), flags.log.quiet);
  nlohmann::json j = bench_json(trial, pipeline, run, environment);
  std::vector<std::string> output_errors;
  if (!run.output_error.empty()) output_errors.push_back(run.output_error);
  json.write(j, output_errors);
  print_outcome(j["result"], run, flags.log.quiet);
  return exit_code(consistency_exit_code(j["summary"]), output_errors);
}

}  // namespace gnf::app
