#include "app/bench_flags.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "ctl/config_builder.h"
#include "util/error.h"
#include "wire/frame_size.h"
#include "wire/generator.h"
#include "wire/stamp.h"

namespace gnf::app {

namespace {

constexpr uint32_t kMinIpv6FrameBytes = 84;  // Ethernet + IPv6 + UDP + stamp + FCS
constexpr uint32_t kSlotUnitBytes = 1024;   // SRRCTL.BSIZEPACKET granularity
constexpr uint32_t kMinSlotBytes = 2048;
constexpr uint32_t kFlows = 64;             // a trial's default: enough for RSS to spread them

// The generator's frames: the flags given, over the trial's defaults (kFlows flows; frames of
// the smallest test size of the IP version, as IMIX's small frames are).
wire::GeneratorOptions generator_from_flags(ctl::FlagOptions& source) {
  wire::GeneratorOptions g;
  g.flows = kFlows;
  ctl::read_generator(source, g);
  if (g.ip_version == 6 && !source.has("size")) g.sizes = {kMinIpv6FrameBytes};
  for (uint32_t size : g.sizes)
    if (g.ip_version == 6 && size < kMinIpv6FrameBytes)
      source.fail("size", fmt::format("{} B is too small for UDP/IPv6 test frames ({}..{} B with FCS)", size,
                                      kMinIpv6FrameBytes, ctl::rule::kFrameSize.max));
  return g;
}

// Without --config: port 0 in and port 1 out (l2fwd pairs, MAC rewrite), or port 0 reflecting
// (l2fwd reflect, MAC swap). Ports and slots take the largest frame size asked for.
ctl::Config default_config(const BenchFlags& f, const wire::GeneratorOptions& g) {
  ctl::Config c;
  uint32_t largest = wire::kMaxStdFrameBytes + wire::kFcsBytes;
  for (uint32_t size : g.sizes) largest = std::max(largest, size);
  for (uint32_t p = 0; p < f.ports; ++p) {
    c.ports.push_back(ctl::new_port(p));
    c.ports.back().nic.max_frame_bytes = largest - wire::kFcsBytes;
  }
  c.driver.slot_size = std::max(kMinSlotBytes, (largest + kSlotUnitBytes - 1) / kSlotUnitBytes * kSlotUnitBytes);
  c.nfs.push_back(ctl::command_line_nf("l2fwd", "bench l2fwd",
                                       {{"mode", f.ports == 2 ? "pairs" : "reflect"},
                                        {"mac", f.ports == 2 ? "rewrite" : "swap"}}));
  return c;
}

// The driver flags given; --tx-writeback-fc is --tx-completion writeback.
ctl::FlagOptions driver_flags(const BenchFlags& f) {
  ctl::FlagOptions driver = f.config.given(Table::Driver);
  if (f.tx_writeback_fc) {
    if (driver.has("tx_completion") && driver.get_string("tx_completion", "") != "writeback")
      throw UserError("--tx-writeback-fc: it means --tx-completion writeback, and --tx-completion says otherwise");
    driver.give("tx_completion", "--tx-writeback-fc", {"writeback"});
  }
  return driver;
}

// A one-way trial needs the GPU driver, and timing the tx side needs room for the departure time
// behind every frame's stamp.
void check_one_way(const ctl::Config& c) {
  if (c.driver.one_way == driver::OneWay::Off) return;
  if (c.path != ctl::PathKind::Bypass)
    throw UserError(fmt::format("--one-way: only the bypass path has a GPU side to time, and this trial's path is {} "
                                "(use --path bypass)", ctl::path_name(c.path)));
  if (c.driver.one_way != driver::OneWay::Tx) return;
  const wire::GeneratorOptions& g = c.ports.front().source.generator;
  constexpr uint32_t kMinIpv4FrameBytes = 64;  // with FCS, as the sizes are
  const uint32_t smallest = (g.ip_version == 6 ? kMinIpv6FrameBytes : kMinIpv4FrameBytes) + wire::kDepartureBytes;
  for (uint32_t size : g.imix ? std::vector<uint32_t>{kMinIpv4FrameBytes} : g.sizes)
    if (size < smallest)
      throw UserError(fmt::format("--one-way tx: a {} B frame has no room behind its stamp for the GPU's departure "
                                  "time ({} more bytes); use frames of {} B or more",
                                  size, wire::kDepartureBytes, smallest));
}

// The generator sends for warm-up + duration at the rate asked for, which a trial holds to port
// 0's line rate (a generator on its own would clamp it).
void set_offered_load(const BenchFlags& f, wire::GeneratorOptions& g, uint32_t line_gbps) {
  g.line_gbps = line_gbps;
  g.duration_ns = uint64_t((f.warmup_s + f.duration_s) * 1e9);
  if (g.rate_gbps_l1 > 0 || g.rate_pps > 0) {
    const ctl::RateProblem problem = ctl::above_line_rate(g, "port 0");
    if (!problem.message.empty()) throw UserError(fmt::format("--{}: {}", problem.key == "rate_pps" ? "rate-pps" : "rate-gbps", problem.message));
    // The line rate rounded to a whole frame per second (as a harness writes it) is the line rate.
    if (g.rate_pps > 0 && wire::Generator(g).clamped()) {
      g.rate_pps = 0;
      g.rate_gbps_l1 = line_gbps;
    }
  } else {
    // --load, or line rate: the layer-1 rate is that share of the line whatever the sizes.
    g.rate_gbps_l1 = line_gbps * (f.load_pct > 0 ? f.load_pct : 100.0) / 100;
  }
}

}  // namespace

void add_bench_options(CLI::App& cmd, BenchFlags& f) {
  ConfigFlags& c = f.config;
  auto* config = cmd.add_option("--config", f.config_file, "TOML config: its ports, driver and NF chain (the generator replaces its sources)");
  auto* path = c.add(cmd, "--path", Table::Top, "path", ctl::path_names(), "Data path (default: the config's, else cpu)");
  cmd.add_flag("--calibrate", f.calibrate, "No driver, no NF: each port loops its rx buffer back to its tx line (the latency floor)")
      ->excludes(path);
  cmd.add_option("--ports", f.ports, "2: port 0 in, port 1 out (l2fwd pairs); 1: port 0 reflects (default 2)")
      ->check(CLI::IsMember({1, 2}))
      ->excludes(config);
  const nic::PortOptions port;
  c.add(cmd, "--speed", Table::Port, "speed", ctl::rule::kSpeedGbps, fmt::format("Port speed in Gbit/s (default {})", port.speed_gbps));
  c.add(cmd, "--queues", Table::Port, "queues", ctl::rule::kQueues, fmt::format("rx/tx queue pairs per port (RSS) (default {})", port.rx_queues));
  auto* size = c.add_list(cmd, "--size", Table::Source, "size", ctl::rule::kFrameSize,
                          fmt::format("Frame size(s) in bytes with FCS, cycled (default 64; IPv6 {})", kMinIpv6FrameBytes));
  c.add_switch(cmd, "--imix", Table::Source, "imix", "true", "Simple IMIX: 7:4:1 of 64/594/1518 B")->excludes(size);
  c.add(cmd, "--flows", Table::Source, "flows", ctl::rule::kFlows, fmt::format("Flows (UDP/IP address pairs) (default {})", kFlows));
  c.add(cmd, "--ip", Table::Source, "ip", ctl::rule::kIpVersion, fmt::format("IP version (default {})", wire::GeneratorOptions{}.ip_version));
  const CLI::Validator percent(
      [](std::string& text) {
        double v = std::strtod(text.c_str(), nullptr);
        return v > 0 && v <= 100 ? std::string() : text + " is not a percentage above 0 and at most 100";
      },
      "PCT in (0, 100]");
  auto* load = cmd.add_option("--load", f.load_pct, "Offered load in percent of line rate (default 100)")->check(percent);
  auto* pps = c.add(cmd, "--rate-pps", Table::Source, "rate_pps", ctl::rule::kRatePps, "Offered load in frames/s");
  auto* gbps = c.add(cmd, "--rate-gbps", Table::Source, "rate_gbps", ctl::rule::kRateGbps, "Offered load in Gbit/s, layer 1");
  load->excludes(pps)->excludes(gbps);
  pps->excludes(gbps);
  cmd.add_option("--warmup", f.warmup_s, "Seconds sent before the measured window (default 0.5)")->check(CLI::Range(0.0, 3600.0));
  cmd.add_option("--duration", f.duration_s, "Seconds of the measured window (default 2)")->check(CLI::Range(0.001, 86400.0));
  c.add(cmd, "--burst", Table::Driver, "burst", ctl::rule::kBurst, "Driver: packets per rx burst");
  c.add(cmd, "--rx-ring", Table::Driver, "rx_ring", ctl::rule::kRingSize, "Driver: rx descriptors per ring (multiple of 8)");
  c.add(cmd, "--tx-ring", Table::Driver, "tx_ring", ctl::rule::kRingSize, "Driver: tx descriptors per ring (multiple of 8)");
  c.add(cmd, "--rx-tail-batch", Table::Driver, "rx_tail_batch", ctl::rule::kTailBatch,
        "Driver: write RDT once this many descriptors are refilled");
  c.add(cmd, "--tx-tail-batch", Table::Driver, "tx_tail_batch", ctl::rule::kTailBatch,
        "Driver: write TDT once this many descriptors are queued");
  c.add(cmd, "--tail-timeout-ns", Table::Driver, "tail_timeout_ns", ctl::rule::kTailTimeoutNs,
        "Driver: ... or once the oldest pending one waited this long");
  c.add(cmd, "--tx-completion", Table::Driver, "tx_completion", driver::tx_completion_names(),
        "Driver: how tx completions are seen (none: bypass only, no flow control)");
  c.add(cmd, "--tx-full", Table::Driver, "tx_full", driver::tx_full_names(),
        "Driver: a full tx ring drops the packet or holds it (wait)");
  c.add_switch(cmd, "--no-drop-en", Table::Driver, "drop_en", "false",
               "Driver: SRRCTL.DROP_EN off (a queue without descriptors stalls the port)");
  add_thread_options(cmd, c);
  c.add(cmd, "--driver-threads", Table::Driver, "threads", ctl::rule::kDriverThreads, "Driver threads (0: one per queue)");
  c.add(cmd, "--staged-mode", Table::Driver, "staged_mode", driver::staged_mode_names(),
        "Staged path: how bursts reach the GPU");
  c.add(cmd, "--staged-depth", Table::Driver, "staged_depth", ctl::rule::kStagedDepth,
        "Staged path: bursts on the GPU at once per plane");
  c.add(cmd, "--nf-blocks", Table::Driver, "nf_blocks", ctl::rule::kNfBlocks,
        "Bypass: thread blocks per queue beside the ring's that share each burst's NF work");
  cmd.add_flag("--tx-writeback-fc", f.tx_writeback_fc, "Tx write-back flow control (= --tx-completion writeback)");
  c.add(cmd, "--one-way", Table::Driver, "one_way", driver::one_way_names(),
        "Bypass: time one side of the GPU: rx (the GPU is the sink) or tx (from the GPU's hand-over to the wire)");
  cmd.add_option("--json", f.json_file, "Write the trial's JSON (bench/SCHEMA.md) to FILE ('-' for stdout)");
  add_log_options(cmd, f.log, "No progress bar, no outcome line");
}

Trial trial_from_flags(const BenchFlags& f) {
  ctl::FlagOptions source = f.config.given(Table::Source);
  wire::GeneratorOptions generator = generator_from_flags(source);
  ctl::Config c = f.config_file.empty() ? default_config(f, generator) : ctl::load_config(f.config_file);
  ctl::FlagOptions top = f.config.given(Table::Top), port = f.config.given(Table::Port), driver = driver_flags(f),
                   nic = f.config.given(Table::Nic), threads = f.config.given(Table::Threads);
  ctl::read_top(top, c);
  if (f.calibrate) c.path = ctl::PathKind::Calibrate;
  c.duration_s = 0;  // the trial's own clock decides
  for (ctl::PortSpec& spec : c.ports) {
    ctl::read_port(port, spec);
    spec.source = ctl::SourceSpec{};
  }
  ctl::read_driver(driver, c);
  ctl::read_nic(nic, c);
  ctl::read_threads(threads, c);
  set_offered_load(f, generator, c.ports.front().nic.speed_gbps);
  c.ports.front().source.kind = ctl::SourceSpec::Kind::Generator;
  c.ports.front().source.generator = generator;
  check_one_way(c);
  f.config.note_origins(c);
  return Trial{c, f.warmup_s, f.duration_s};
}

}  // namespace gnf::app
