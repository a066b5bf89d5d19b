#include "app/report.h"


#include <fmt/format.h>

#include "app/counters_json.h"
#include "app/exit_codes.h"
#include "app/placement.h"
#include "util/error.h"
#include "util/log.h"
#include "wire/frame_size.h"

namespace gnf::app {

namespace {

double rate(uint64_t delta, double seconds) { return seconds > 0 ? double(delta) / seconds : 0; }

// Packets a second as "  3.412 Mpps", or below 1 Mpps as "812.345 kpps" (the same width): a low
// rate reads as a number, not as 0.000 Mpps.
std::string packet_rate(double pps) {
  return pps >= 1e6 ? fmt::format("{:8.3f} Mpps", pps / 1e6) : fmt::format("{:8.3f} kpps", pps / 1e3);
}

}  // namespace

nlohmann::json latency_json(const wire::LatencyHistogram& h) {
  nlohmann::json j = {{"count", h.count()}, {"unit", "ns"}};
  if (h.count() == 0) return j;
  j["min"] = h.min();
  j["p50"] = h.percentile(50);
  j["p90"] = h.percentile(90);
  j["p99"] = h.percentile(99);
  j["p99_9"] = h.percentile(99.9);
  j["max"] = h.max();
  j["mean"] = h.mean();
  j["stddev"] = h.stddev();
  nlohmann::json buckets = nlohmann::json::array();
  for (auto [low, count] : h.buckets()) buckets.push_back({low, count});
  j["histogram"] = buckets;
  return j;
}

namespace {

// The values of a block's counters (util/counter.h) that `pick` picks from its table, by name.
template <typename Block, typename Pick>
nlohmann::json counters_json(const Block& block, Pick pick) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& field : Block::kFields)
    if (pick(field)) j[field.name] = block.*field.member;
  return j;
}

// How the NIC model kept up with the wire and where its DMA time went (not an 82599 view).
nlohmann::json nic_model_json(const path::PortStats& p) {
  uint64_t taken = p.rx_good_packets + p.rx_missed + p.rx_runt + p.rx_oversize;
  return {{"wire_lag",
           {{"max_ns", p.wire_lag_max_ns},
            {"mean_ns", taken ? double(p.wire_lag_sum_ns) / double(taken) : 0.0},
            {"late_frames", p.wire_late_frames},
            {"held_frames", p.wire_held_frames},
            {"late_threshold_ns", nic::kLateFrameNs}}},
          {"tx_rounds", p.tx_rounds},
          {"tx_stalls", {{"count", p.tx_stalls}, {"frames", p.tx_stalled_frames}, {"max_ns", p.tx_stall_max_ns}}},
          {"queue_groups", p.queue_groups}};
}

// Bytes the port's DMA moved over the bus, and per packet the port received or sent.
nlohmann::json dma_bytes_json(const path::PortStats& p, uint64_t packets) {
  const nic::DmaCounterValues& dma = p.dma;
  nlohmann::json j = counters_json(dma, with_role(Role::Count));
  j["per_packet"] = double(sum_counters(dma, with_role(Role::Count))) / double(packets);
  return j;
}

// The stats line's counters of a block, as " name delta" each.
template <typename Block>
std::string line_counters(const Block& before, const Block& after) {
  std::string out;
  for (const auto& field : Block::kFields)
    if (field.line) out += fmt::format(" {} {}", field.line, after.*field.member - before.*field.member);
  return out;
}

// What went over the Linux interface a port is attached to: gnf's counts and the kernel's drops.
nlohmann::json link_json(const wire::Link& link, const wire::LinkCounters& c) {
  nlohmann::json j = {{"backend", link.backend()},
                      {"interface", link.options().interface},
                      {"netns", link.options().netns},
                      {"description", link.describe()}};
  for (const auto& field : wire::LinkCounters::kFields) j[field.name] = c.*field.member;
  return j;
}

}  // namespace

std::vector<std::string> stats_lines(const path::Snapshot& prev, const path::Snapshot& cur, double since_start_s) {
  double dt = double(cur.time_ns - prev.time_ns) / 1e9;
  std::vector<std::string> out;
  for (size_t i = 0; i < cur.ports.size(); ++i) {
    const path::PortStats& a = prev.ports[i];
    const path::PortStats& b = cur.ports[i];
    // Layer-1 Gbit/s: GORC/GOTC count bytes with FCS; add preamble and IFG per frame.
    auto gbps_l1 = [&](uint64_t bytes, uint64_t packets) {
      return rate(bytes + packets * wire::kPreambleIfgBytes, dt) * 8 / 1e9;
    };
    uint64_t rx_p = b.rx_good_packets - a.rx_good_packets, tx_p = b.tx_good_packets - a.tx_good_packets;
    out.push_back(fmt::format("[{:7.1f}s] {:<8} rx {} {:7.3f} Gb/s | tx {} {:7.3f} Gb/s | drops:{}", since_start_s,
                              b.name, packet_rate(rate(rx_p, dt)), gbps_l1(b.rx_good_bytes - a.rx_good_bytes, rx_p),
                              packet_rate(rate(tx_p, dt)), gbps_l1(b.tx_good_bytes - a.tx_good_bytes, tx_p),
                              line_counters<nic::PortCounterValues>(a, b)));
  }
  out.push_back(fmt::format("[{:7.1f}s] driver  {}", since_start_s,
                            line_counters<driver::DriverCounterValues>(prev.driver, cur.driver)));
  return out;
}

nlohmann::json summary_json(const path::Pipeline& pipeline, const path::Snapshot& start, const path::Snapshot& end,
                            bool drained) {
  using nlohmann::json;
  const path::PathSpec& config = pipeline.spec();
  double seconds = double(end.time_ns - start.time_ns) / 1e9;
  json j;
  j["gnf_version"] = GNF_VERSION;
  j["config"] = {{"file", config.file},
                 {"path", std::string(path::path_name(config.path))},
                 {"driver_threads", pipeline.driver_thread_count()},
                 {"nic_threads", pipeline.nic_thread_count()},
                 {"threads_pinned", pipeline.threads_pinned()},
                 {"idle", idle_policy(config).backoff ? "backoff" : "spin"},
                 {"idle_sleep_us_max", config.idle_sleep_us_max},
                 {"burst", config.driver.burst},
                 {"rx_ring", config.driver.rx_ring_size},
                 {"tx_ring", config.driver.tx_ring_size}};
  j["duration_s"] = seconds;
  j["units"] = {{"bytes", "layer 2, with FCS"}, {"gbps_l1", "layer 1: + 20 B preamble and IFG per frame"},
                {"latency", "ns from the scheduled first bit sent to the last bit received"}};

  json ports = json::array();
  for (size_t i = 0; i < end.ports.size(); ++i) {
    const path::PortStats& p = end.ports[i];
    const path::PortStats& s = start.ports[i];
    uint64_t rx = p.rx_good_packets - s.rx_good_packets, tx = p.tx_good_packets - s.tx_good_packets;
    uint64_t rx_bytes = p.rx_good_bytes - s.rx_good_bytes, tx_bytes = p.tx_good_bytes - s.tx_good_bytes;
    json port = {
        {"name", p.name},
        {"source_frames", p.source_frames},
        {"source_malformed", p.source_malformed},
        {"rx_pps", rate(rx, seconds)},
        {"tx_pps", rate(tx, seconds)},
        {"rx_gbps_l2", rate(rx_bytes, seconds) * 8 / 1e9},
        {"tx_gbps_l2", rate(tx_bytes, seconds) * 8 / 1e9},
        {"rx_gbps_l1", rate(rx_bytes + rx * wire::kPreambleIfgBytes, seconds) * 8 / 1e9},
        {"tx_gbps_l1", rate(tx_bytes + tx * wire::kPreambleIfgBytes, seconds) * 8 / 1e9},
        {"nic_model", nic_model_json(p)},
        {"rx_queue_packets", p.rx_queue_packets},
        {"rx_queue_drops", p.rx_queue_drops},
        {"dma_bytes", dma_bytes_json(p, std::max<uint64_t>(1, std::max(rx, tx)))},
    };
    add_port_counters(port, p);
    if (p.link) port["link"] = link_json(*pipeline.link(i), *p.link);
    ports.push_back(port);
  }
  j["ports"] = ports;

  j["driver"] = counters_json(end.driver, [](const auto&) { return true; });
  j["driver"]["host_tx"] = end.driver.host_tx;
  json nfs = json::array();
  for (const path::NfStats& nf : end.nfs) nfs.push_back(nf_json(nf));
  j["nf"] = nfs;
  if (!end.netlink.empty()) {
    json netlink;
    for (const auto& [name, value] : end.netlink) netlink[name] = value;
    j["netlink"] = netlink;
  }
  if (!end.slow_path.empty()) {
    json slow_path;
    for (const auto& [name, value] : end.slow_path) slow_path[name] = value;
    j["slow_path"] = slow_path;
  }

  std::vector<uint64_t> sent = pipeline.generated_per_flow();
  json sinks = json::array();
  auto reports = pipeline.measurements();
  uint64_t received_total = 0;
  wire::MeasureReport all;
  for (size_t i = 0; i < reports.size(); ++i) {
    const wire::MeasureReport& r = reports[i];
    received_total += r.received;
    sinks.push_back({{"port", i < end.ports.size() ? end.ports[i].name : std::string("gpu (one-way sink)")},
                     {"stamped_frames", r.received},
                     {"foreign_frames", r.foreign},
                     {"duplicates", r.duplicates},
                     {"reordered", r.reordered},
                     {"reordered_ratio", r.received ? double(r.reordered) / double(r.received) : 0.0},
                     {"reorder_extent_max", r.reorder_extent_max},
                     {"reorder_extent_mean", r.reordered ? double(r.reorder_extent_sum) / double(r.reordered) : 0.0},
                     {"latency", latency_json(r.latency)}});
    all.latency.merge(r.latency);
  }
  j["sinks"] = sinks;
  if (!sent.empty()) {
    uint64_t sent_total = 0;
    for (uint64_t s : sent) sent_total += s;
    uint64_t lost = sent_total > received_total ? sent_total - received_total : 0;
    j["generated"] = {{"frames", sent_total},
                      {"received", received_total},
                      {"lost", lost},
                      {"loss_ratio", sent_total ? double(lost) / double(sent_total) : 0.0},
                      {"latency", latency_json(all.latency)}};
  }

  uint64_t offered = end.offered(), accounted = end.accounted();
  j["accounting"] = {{"drained", drained},
                     {"offered", offered},
                     {"accounted", accounted},
                     {"in_flight", offered >= accounted ? offered - accounted : 0},
                     {"balanced", drained && offered == accounted}};
  json audits = json::array();
  for (const driver::SlotAudit& a : pipeline.audit())
    audits.push_back({{"capacity", a.capacity},
                      {"free", a.free},
                      {"in_rx_rings", a.in_rx_rings},
                      {"in_tx_rings", a.in_tx_rings},
                      {"in_driver", a.in_driver},
                      {"duplicates", a.duplicates},
                      {"consistent", a.consistent()}});
  j["slots"] = audits;
  json threads = json::array();
  for (const auto& t : pipeline.thread_cpu())
    threads.push_back({{"role", t.role}, {"name", t.name}, {"cpu_s", t.cpu_s}, {"busy_s", t.busy_s}, {"slept_s", t.slept_s}});
  j["threads"] = threads;
  j["placement"] = placement_json(pipeline);
  return j;
}

int consistency_exit_code(const nlohmann::json& summary) {
  for (const auto& a : summary["slots"])
    if (!a["consistent"].get<bool>()) {
      spdlog::critical("slot accounting is inconsistent");
      return kExitInternal;
    }
  if (summary["accounting"]["drained"].get<bool>() && !summary["accounting"]["balanced"].get<bool>()) {
    spdlog::critical("packet counters do not add up");
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace gnf::app
