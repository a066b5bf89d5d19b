#include "app/bench_json.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/report.h"
#include "app/verdict.h"
#include "wire/frame_size.h"
#include "wire/generator.h"
#include "wire/measure.h"

namespace gnf::app {

namespace {

constexpr double kBytesPerMib = 1024.0 * 1024.0;

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

uint64_t sum(const std::vector<uint64_t>& v) {
  uint64_t n = 0;
  for (uint64_t x : v) n += x;
  return n;
}

// Frames and their layer-2 bytes (with FCS) over `seconds`, as pps and Gbit/s at layers 1 and 2.
nlohmann::json rates_json(double frames, double l2_bytes, double seconds) {
  return {{"pps", ratio(frames, seconds)},
          {"gbps_l1", ratio((l2_bytes + frames * wire::kPreambleIfgBytes) * 8, seconds) / 1e9},
          {"gbps_l2", ratio(l2_bytes * 8, seconds) / 1e9}};
}

nlohmann::json trial_json(const Trial& trial, const path::Pipeline& pipeline) {
  const ctl::Config& c = trial.config;
  const nic::PortOptions& port0 = c.ports.front().nic;
  // The generator the pipeline runs, built again for its rate and its (IMIX-expanded) sizes.
  const wire::Generator generator(c.ports.front().source.generator);
  const std::vector<uint32_t>& cycle = generator.options().sizes;
  std::vector<uint32_t> sizes;
  for (uint32_t s : cycle)
    if (std::find(sizes.begin(), sizes.end(), s) == sizes.end()) sizes.push_back(s);
  double mean_size = 0;
  for (uint32_t s : cycle) mean_size += s;
  mean_size /= double(cycle.size());
  double pps = generator.rate_pps();

  nlohmann::json nfs = nlohmann::json::array();
  if (c.path != ctl::PathKind::Calibrate)
    for (const nf::NfSpec& nf : c.nfs) nfs.push_back(nf.type);
  // As the path runs them: "auto" resolved (bypass: head write-back; cpu and staged: DD write-back).
  const driver::DriverOptions d = c.driver.resolved(c.path == ctl::PathKind::Bypass);
  nlohmann::json staged_mode = nullptr;
  if (c.path == ctl::PathKind::Staged) staged_mode = driver::staged_mode_name(d.staged_mode);
  return {{"path", std::string(ctl::path_name(c.path))},
          {"staged_mode", staged_mode},
          {"nf", nfs},
          {"ports", c.ports.size()},
          {"queues", port0.rx_queues},
          {"speed_gbps", port0.speed_gbps},
          {"sizes", sizes},
          {"imix", generator.options().imix},
          {"flows", generator.options().flows},
          {"ip", generator.options().ip_version},
          {"offered",
           {{"pps", pps},
            {"gbps_l1", generator.rate_gbps_l1()},
            {"gbps_l2", pps * mean_size * 8 / 1e9},
            {"load_pct", generator.rate_gbps_l1() / port0.speed_gbps * 100}}},
          {"warmup_s", trial.warmup_s},
          {"duration_s", trial.duration_s},
          {"driver",
           {{"burst", d.burst},
            {"rx_ring", d.rx_ring_size},
            {"tx_ring", d.tx_ring_size},
            {"rx_tail_batch", d.rx_tail_batch},
            {"tx_tail_batch", d.tx_tail_batch},
            {"tail_timeout_ns", d.tail_timeout_ns},
            {"tx_completion", driver::tx_completion_name(d.tx_completion)},
            {"tx_full", driver::tx_full_name(d.tx_full_wait)},
            {"drop_en", d.drop_en},
            {"nf_blocks", d.nf_blocks},
            {"threads", pipeline.driver_thread_count()}}},
          {"nic_threads", pipeline.nic_thread_count()},
          {"threads_pinned", pipeline.threads_pinned()},
          {"idle", path::idle_policy(c).backoff ? "backoff" : "spin"},
          {"one_way", d.one_way == driver::OneWay::Off ? nlohmann::json(nullptr)
                                                          : nlohmann::json(driver::one_way_name(d.one_way))},
          {"nic_dma", c.path == ctl::PathKind::Bypass ? "gpu-agent" : "host"}};
}

// latency_json with every key of the schema even when nothing was measured (all 0 then, as
// LatencyHistogram answers).
nlohmann::json latency_with_every_key(const wire::LatencyHistogram& h) {
  nlohmann::json j = latency_json(h);
  for (const char* key : {"min", "p50", "p90", "p99", "p99_9", "max"})
    if (!j.contains(key)) j[key] = 0;
  for (const char* key : {"mean", "stddev"})
    if (!j.contains(key)) j[key] = 0.0;
  if (!j.contains("histogram")) j["histogram"] = nlohmann::json::array();
  return j;
}

nlohmann::json per_second_json(const std::vector<uint64_t>& sent, const std::vector<wire::MeasureReport::Second>& got) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t t = 0; t < std::max(sent.size(), got.size()); ++t) {
    uint64_t s = t < sent.size() ? sent[t] : 0;
    const wire::MeasureReport::Second second = t < got.size() ? got[t] : wire::MeasureReport::Second{};
    out.push_back({{"t", t},
                   {"sent", s},
                   {"received", second.received},
                   {"lost", s > second.received ? s - second.received : 0},
                   {"latency_p50", second.latency.percentile(50)},
                   {"latency_p99", second.latency.percentile(99)},
                   {"latency_max", second.latency.max()}});
  }
  return out;
}

nlohmann::json gpu_json(const std::optional<GpuSampler::Summary>& gpu) {
  if (!gpu) return nullptr;
  return {{"utilization_pct", gpu->utilization_pct_mean},
          {"memory_used_mib", uint64_t(double(gpu->memory_used_bytes_max) / kBytesPerMib)},
          {"samples", gpu->samples}};
}

// DMA engine bytes between the window snapshot and the end, per received frame.
nlohmann::json pcie_json(const path::Snapshot& a, const path::Snapshot& b, uint64_t received) {
  nic::DmaCounterValues before, after;
  for (size_t i = 0; i < b.ports.size(); ++i) {
    add_counters(before, a.ports[i].dma);
    add_counters(after, b.ports[i].dma);
  }
  const uint64_t packet_to = after.packet_bytes_to_memory - before.packet_bytes_to_memory;
  const uint64_t packet_from = after.packet_bytes_from_memory - before.packet_bytes_from_memory;
  const uint64_t desc_to = after.desc_bytes_to_memory - before.desc_bytes_to_memory;
  const uint64_t desc_from = after.desc_bytes_from_memory - before.desc_bytes_from_memory;
  double n = double(received);
  return {{"bytes_per_packet",
           {{"to_memory", ratio(double(packet_to + desc_to), n)},
            {"from_memory", ratio(double(packet_from + desc_from), n)},
            {"total", ratio(double(packet_to + desc_to + packet_from + desc_from), n)}}},
          {"packet_bytes", {{"to_memory", packet_to}, {"from_memory", packet_from}}},
          {"descriptor_bytes", {{"to_memory", desc_to}, {"from_memory", desc_from}}}};
}

// Whether the NIC model kept up with the wire in the window: frames it took off the wire more
// than nic::kLateFrameNs after they arrived, and of those, frames held for room (PortCounters::
// wire_held_frames); on the tx side, its stalls (model_health). Latency and rate then describe the
// model, not the path.
nlohmann::json nic_model_health_json(const path::Snapshot& a, const path::Snapshot& b, const ModelHealth& health) {
  uint64_t held = 0, max_lag = 0;
  for (size_t i = 0; i < b.ports.size(); ++i) {
    held += b.ports[i].wire_held_frames - a.ports[i].wire_held_frames;
    max_lag = std::max(max_lag, b.ports[i].wire_lag_max_ns);
  }
  return {{"late_frames", health.late_frames},
          {"held_frames", held},
          {"late_threshold_ns", nic::kLateFrameNs},
          {"max_lag_ns", max_lag},
          {"tx_stalls", health.tx_stalls},
          {"tx_stalled_frames", health.tx_stalled_frames},
          {"tx_stall_max_ns", health.tx_stall_max_ns}};
}

// How one GPU persistent loop went round in the window (per block): rounds a second, and the
// nanoseconds a round and each of its phases took. Zeros on paths without it.
template <size_t kPhases>
nlohmann::json loop_json(const LoopPhases& a, const LoopPhases& b, double seconds, const char* const (&names)[kPhases]) {
  const uint64_t rounds = b.rounds - a.rounds, timed = b.timed_rounds - a.timed_rounds;
  auto per_round = [&](uint64_t ns) { return timed ? double(ns) / double(timed) : 0.0; };
  nlohmann::json phases = nlohmann::json::object();
  for (size_t k = 0; k < kPhases; ++k) phases[names[k]] = per_round(b.ns[k] - a.ns[k]);
  return {{"rounds_per_s", seconds > 0 ? double(rounds) / seconds : 0.0},
          {"round_ns", per_round(b.round_ns() - a.round_ns())},
          {"phase_ns", phases}};
}

// The GPU's persistent loops, the bypass driver's and the GPU agent's: their round time bounds
// the latency each adds, and the phases say where it goes.
nlohmann::json gpu_loops_json(const path::Snapshot& a, const path::Snapshot& b) {
  const double seconds = double(b.time_ns - a.time_ns) / 1e9;
  return {{"driver", loop_json(a.gpu_driver, b.gpu_driver, seconds, driver::kGpuDriverPhaseNames)},
          {"agent_rx", loop_json(a.gpu_agent_rx, b.gpu_agent_rx, seconds, nic::GpuAgent::kPhaseNames)},
          {"agent_tx", loop_json(a.gpu_agent_tx, b.gpu_agent_tx, seconds, nic::GpuAgent::kPhaseNames)}};
}

// One-way trials time frames with the GPU's clock: how well it was tied to the host's.
nlohmann::json gpu_clock_json(const std::optional<driver::GpuClockStats>& clock) {
  if (!clock) return nullptr;
  return {{"offset_uncertainty_ns", clock->uncertainty_ns},
          {"worst_offset_uncertainty_ns", clock->worst_uncertainty_ns},
          {"drift_ns", clock->drift_ns},
          {"calibrations", clock->calibrations},
          {"timer_step_ns", clock->timer_step_ns}};
}

nlohmann::json result_json(const Trial& trial, const path::Pipeline& pipeline, const TrialRun& run) {
  wire::MeasureReport m;
  for (const wire::MeasureReport& sink : pipeline.measurements()) m.merge(sink);
  std::vector<uint64_t> sent_per_flow = pipeline.generated_in_window_per_flow();
  uint64_t sent = sum(sent_per_flow);
  uint64_t lost = m.loss(sent_per_flow);
  nlohmann::json loss = {{"count", lost}, {"ratio", ratio(double(lost), double(sent))}};
  loss["where"] = loss_where_json(run.at_window, run.end);
  uint64_t tail_writes = run.end.driver.tail_writes - run.at_window.driver.tail_writes;
  nlohmann::json cpu = cpu_json(pipeline.thread_cpu(), double(run.stop_ns - run.start_ns) / 1e9);
  ModelHealth health = model_health(run.at_window, run.end);
  health.sent = sent;
  health.on_schedule = run.on_schedule;
  nlohmann::json nic_model = nic_model_health_json(run.at_window, run.end, health);
  nlohmann::json model_bound = model_bound_json(cpu, health);
  return {{"sent", sent},
          {"on_schedule", run.on_schedule},
          {"received", m.received},
          {"forwarded", rates_json(double(m.received), double(m.received_bytes), trial.duration_s)},
          {"loss", loss},
          {"reordering",
           {{"reordered", m.reordered},
            {"ratio", ratio(double(m.reordered), double(m.received))},
            {"extent_max", m.reorder_extent_max},
            {"extent_mean", ratio(double(m.reorder_extent_sum), double(m.reordered))},
            {"duplicates", m.duplicates}}},
          {"latency", latency_with_every_key(m.latency)},
          {"clock_skew", {{"frames", m.clock_skew}, {"max_ns", m.clock_skew_max_ns}}},
          {"per_second", per_second_json(pipeline.generated_in_window_per_second(), m.per_second)},
          {"cpu", cpu},
          {"gpu", gpu_json(run.gpu)},
          {"pcie", pcie_json(run.at_window, run.end, m.received)},
          {"tail_writes_per_packet", ratio(double(tail_writes), double(m.received))},
          {"nic_model", nic_model},
          {"model_bound", model_bound},
          {"host_load", host_load_json(cpu)},
          {"gpu_loops", gpu_loops_json(run.at_window, run.end)},
          {"gpu_clock", gpu_clock_json(pipeline.gpu_clock())}};
}

// Adds the change of each counter between two snapshots of a block to the loss cause it is filed under.
template <typename Block>
void add_losses(uint64_t (&lost)[std::size(kLossNames)], const Block& before, const Block& after) {
  for (const auto& field : Block::kFields)
    if (field.loss != Loss::None) lost[size_t(field.loss)] += after.*field.member - before.*field.member;
}

}  // namespace

// Counter deltas between the window snapshot and the end, by where a frame died. The window's
// edges are approximate here: the deltas also hold drops of warm-up frames still in flight as
// the window opened, so they cover at least every drop of a window frame (bench.cpp says why).
nlohmann::json loss_where_json(const path::Snapshot& a, const path::Snapshot& b) {
  uint64_t lost[std::size(kLossNames)] = {};
  for (size_t i = 0; i < b.ports.size(); ++i) add_losses<nic::PortCounterValues>(lost, a.ports[i], b.ports[i]);
  add_losses(lost, a.driver, b.driver);
  nlohmann::json where;
  for (size_t cause = size_t(Loss::None) + 1; cause < std::size(kLossNames); ++cause)
    where[kLossNames[cause]] = lost[cause];
  return where;
}

ModelHealth model_health(const path::Snapshot& a, const path::Snapshot& b) {
  ModelHealth health;
  for (size_t i = 0; i < b.ports.size(); ++i) {
    health.late_frames += b.ports[i].wire_late_frames - a.ports[i].wire_late_frames;
    health.tx_stalls += b.ports[i].tx_stalls - a.ports[i].tx_stalls;
    health.tx_stalled_frames += b.ports[i].tx_stalled_frames - a.ports[i].tx_stalled_frames;
    health.tx_stall_max_ns = std::max(health.tx_stall_max_ns, b.ports[i].tx_stall_max_ns);
  }
  health.tx_ring_lost = loss_where_json(a, b)["tx_ring"].get<uint64_t>();
  return health;
}

nlohmann::json bench_json(const Trial& trial, const path::Pipeline& pipeline, const TrialRun& run,
                          const nlohmann::json& environment) {
  return {{"kind", "gnf-bench"},
          {"schema", 1},
          {"gnf_version", GNF_VERSION},
          {"environment", environment},
          {"trial", trial_json(trial, pipeline)},
          {"result", result_json(trial, pipeline, run)},
          {"summary", summary_json(pipeline, run.first, run.end, run.drained)}};
}

}  // namespace gnf::app
