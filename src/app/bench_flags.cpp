#include "app/bench_flags.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "nic/pacing.h"
#include "util/error.h"
#include "wire/frame_size.h"
#include "wire/generator.h"
#include "wire/stamp.h"

namespace gnf::app {

namespace {

constexpr uint32_t kMinIpv6FrameBytes = 84;  // Ethernet + IPv6 + UDP + stamp + FCS
constexpr uint32_t kStdMaxFrameBytes = 1518;
constexpr uint32_t kSlotUnitBytes = 1024;   // SRRCTL.BSIZEPACKET granularity
constexpr uint32_t kMinSlotBytes = 2048;

nic::PortOptions default_port(const BenchFlags& f, uint32_t index, uint32_t max_frame_with_fcs) {
  nic::PortOptions o;
  o.name = fmt::format("port{}", index);
  o.speed_gbps = f.speed;
  o.rx_queues = o.tx_queues = uint16_t(f.queues);
  o.max_frame_bytes = max_frame_with_fcs - wire::kFcsBytes;
  o.mac = {0x02, 0x00, 0x00, 0x00, 0x01, uint8_t(index)};  // as a config file's default
  nic::fill_reta_round_robin(o.rss, f.queues);
  return o;
}

// Without --config: port 0 in and port 1 out (l2fwd pairs, MAC rewrite), or port 0 reflecting
// (l2fwd reflect, MAC swap). Ports and slots take the largest frame size asked for.
ctl::Config default_config(const BenchFlags& f) {
  ctl::Config c;
  uint32_t largest = kStdMaxFrameBytes;
  for (uint32_t size : f.sizes) largest = std::max(largest, size);
  for (uint32_t p = 0; p < f.ports; ++p) {
    ctl::PortSpec port;
    port.nic = default_port(f, p, largest);
    c.ports.push_back(port);
  }
  c.driver.slot_size = std::max(kMinSlotBytes, (largest + kSlotUnitBytes - 1) / kSlotUnitBytes * kSlotUnitBytes);
  nf::Params params("<command line>", 0, "bench l2fwd");
  params.set("mode", nf::ParamValue{std::string(f.ports == 2 ? "pairs" : "reflect"), 0});
  params.set("mac", nf::ParamValue{std::string(f.ports == 2 ? "rewrite" : "swap"), 0});
  c.nfs.push_back(nf::NfSpec{"l2fwd", params});
  return c;
}

// A config file's ports take the port flags given.
void apply_port_flags(const BenchFlags& f, ctl::Config& c) {
  for (ctl::PortSpec& port : c.ports) {
    if (f.has("--speed")) port.nic.speed_gbps = f.speed;
    if (f.has("--queues")) {
      port.nic.rx_queues = port.nic.tx_queues = uint16_t(f.queues);
      nic::fill_reta_round_robin(port.nic.rss, f.queues);
    }
  }
}

void apply_driver_flags(const BenchFlags& f, ctl::Config& c) {
  driver::DriverOptions& d = c.driver;
  if (f.has("--burst")) d.burst = f.burst;
  if (f.has("--rx-ring")) d.rx_ring_size = f.rx_ring;
  if (f.has("--tx-ring")) d.tx_ring_size = f.tx_ring;
  if (f.has("--rx-tail-batch")) d.rx_tail_batch = f.rx_tail_batch;
  if (f.has("--tx-tail-batch")) d.tx_tail_batch = f.tx_tail_batch;
  if (f.has("--tail-timeout-ns")) d.tail_timeout_ns = f.tail_timeout_ns;
  if (f.has("--tx-completion")) d.tx_completion = driver::tx_completion_from_name(f.tx_completion);
  if (f.has("--tx-writeback-fc")) {
    if (f.has("--tx-completion") && f.tx_completion != "writeback")
      throw UserError("--tx-writeback-fc: it means --tx-completion writeback, and --tx-completion says otherwise");
    d.tx_completion = driver::TxCompletion::DescWriteback;
  }
  if (f.has("--staged-mode")) d.staged_mode = driver::staged_mode_from_name(f.staged_mode);
  if (f.has("--staged-depth")) d.staged_depth = f.staged_depth;
  if (f.has("--one-way")) d.one_way = driver::one_way_from_name(f.one_way);
  if (f.has("--nic-dma")) c.gpu_dma = ctl::gpu_dma_from_name(f.nic_dma);
  if (f.has("--tx-full")) d.tx_full_wait = f.tx_full == "wait";
  if (f.has("--no-drop-en")) d.drop_en = false;
  auto check_ring = [&](const char* flag, uint32_t entries) {
    if (f.has(flag) && entries % 8)
      throw UserError(fmt::format("{}: {} is not a multiple of 8 (the ring length in bytes is a multiple of 128)", flag, entries));
  };
  check_ring("--rx-ring", d.rx_ring_size);
  check_ring("--tx-ring", d.tx_ring_size);
  if (d.pool_slots && d.pool_slots <= d.rx_ring_size)
    throw UserError(fmt::format("--rx-ring: {} descriptors need more than the config's driver.pool_slots ({})",
                                d.rx_ring_size, d.pool_slots));
  if (f.has("--nic-threads")) c.nic_threads = f.nic_threads;
  if (f.has("--driver-threads")) c.driver_threads = f.driver_threads;
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

ctl::PathKind path_of(const BenchFlags& f, ctl::PathKind config_path) {
  if (f.calibrate) return ctl::PathKind::Calibrate;
  if (f.path == "staged") return ctl::PathKind::Staged;
  if (f.path == "bypass") return ctl::PathKind::Bypass;
  if (f.path == "cpu" || f.config_file.empty()) return ctl::PathKind::Cpu;
  return config_path;
}

// The generator on port 0, sending for warm-up + duration at the rate asked for.
wire::GeneratorOptions generator_from_flags(const BenchFlags& f, uint32_t line_gbps) {
  wire::GeneratorOptions g;
  g.ip_version = f.ip;
  // By default the smallest test frame of the IP version, as IMIX's small frames are.
  g.sizes = f.sizes.empty() ? std::vector<uint32_t>{f.ip == 6 ? kMinIpv6FrameBytes : 64} : f.sizes;
  for (uint32_t size : f.sizes)
    if (f.ip == 6 && size < kMinIpv6FrameBytes)
      throw UserError(fmt::format("--size: {} B is too small for UDP/IPv6 test frames ({}..9018 B with FCS)", size,
                                  kMinIpv6FrameBytes));
  g.imix = f.imix;
  g.flows = f.flows;
  g.line_gbps = line_gbps;
  g.duration_ns = uint64_t((f.warmup_s + f.duration_s) * 1e9);
  if (f.has("--rate-gbps")) {
    if (f.rate_gbps > line_gbps)
      throw UserError(fmt::format("--rate-gbps: {} Gbit/s is above the line rate of port 0 ({} Gbit/s)", f.rate_gbps,
                                  line_gbps));
    g.rate_gbps_l1 = f.rate_gbps;
  } else if (f.has("--rate-pps")) {
    g.rate_pps = f.rate_pps;
    if (wire::Generator(g).clamped()) {
      wire::GeneratorOptions at_line_rate = g;
      at_line_rate.rate_pps = 0;
      double line_pps = wire::Generator(at_line_rate).rate_pps();
      // The line rate rounded to a whole frame per second (as a harness writes it) is the line rate.
      if (f.rate_pps > line_pps + 1)
        throw UserError(fmt::format("--rate-pps: {} frames/s is above the line rate of port 0 for this size mix ({:.0f} frames/s)",
                                    f.rate_pps, line_pps));
      g.rate_pps = 0;
      g.rate_gbps_l1 = line_gbps;
    }
  } else {
    // --load, or line rate: the layer-1 rate is that share of the line whatever the sizes.
    g.rate_gbps_l1 = line_gbps * (f.has("--load") ? f.load_pct : 100.0) / 100;
  }
  return g;
}

}  // namespace

void add_bench_options(CLI::App& cmd, BenchFlags& f) {
  auto* config = cmd.add_option("--config", f.config_file, "TOML config: its ports, driver and NF chain (the generator replaces its sources)")
                     ->check(CLI::ExistingFile);
  auto* path = cmd.add_option("--path", f.path, "Data path: cpu | staged | bypass (default: the config's, else cpu)")
                   ->check(CLI::IsMember({"cpu", "staged", "bypass"}));
  cmd.add_flag("--calibrate", f.calibrate, "No driver, no NF: each port loops its rx buffer back to its tx line (the latency floor)")
      ->excludes(path);
  cmd.add_option("--ports", f.ports, "2: port 0 in, port 1 out (l2fwd pairs); 1: port 0 reflects (default 2)")
      ->check(CLI::IsMember({1, 2}))
      ->excludes(config);
  cmd.add_option("--speed", f.speed, "Port speed in Gbit/s (default 10)")->check(CLI::IsMember({10, 25, 40, 100, 200, 400}));
  cmd.add_option("--queues", f.queues, "rx/tx queue pairs per port (RSS) (default 1)")->check(CLI::Range(1, 64));
  auto* size = cmd.add_option("--size", f.sizes, "Frame size(s) in bytes with FCS, cycled (default 64; IPv6 84)")->check(CLI::Range(64, 9018));
  cmd.add_flag("--imix", f.imix, "Simple IMIX: 7:4:1 of 64/594/1518 B")->excludes(size);
  cmd.add_option("--flows", f.flows, "Flows (UDP/IP address pairs) (default 64)")->check(CLI::Range(1, 65536));
  cmd.add_option("--ip", f.ip, "IP version (default 4)")->check(CLI::IsMember({4, 6}));
  const CLI::Validator percent(
      [](std::string& text) {
        double v = std::strtod(text.c_str(), nullptr);
        return v > 0 && v <= 100 ? std::string() : text + " is not a percentage above 0 and at most 100";
      },
      "PCT in (0, 100]");
  auto* load = cmd.add_option("--load", f.load_pct, "Offered load in percent of line rate (default 100)")->check(percent);
  auto* pps = cmd.add_option("--rate-pps", f.rate_pps, "Offered load in frames/s")->check(CLI::PositiveNumber);
  auto* gbps = cmd.add_option("--rate-gbps", f.rate_gbps, "Offered load in Gbit/s, layer 1")->check(CLI::PositiveNumber);
  load->excludes(pps)->excludes(gbps);
  pps->excludes(gbps);
  cmd.add_option("--warmup", f.warmup_s, "Seconds sent before the measured window (default 0.5)")->check(CLI::Range(0.0, 3600.0));
  cmd.add_option("--duration", f.duration_s, "Seconds of the measured window (default 2)")->check(CLI::Range(0.001, 86400.0));
  cmd.add_option("--burst", f.burst, "Driver: packets per rx burst")->check(CLI::Range(1, 1024));
  cmd.add_option("--rx-ring", f.rx_ring, "Driver: rx descriptors per ring (multiple of 8)")->check(CLI::Range(8, 32768));
  cmd.add_option("--tx-ring", f.tx_ring, "Driver: tx descriptors per ring (multiple of 8)")->check(CLI::Range(8, 32768));
  cmd.add_option("--rx-tail-batch", f.rx_tail_batch, "Driver: write RDT once this many descriptors are refilled")->check(CLI::Range(1, 4096));
  cmd.add_option("--tx-tail-batch", f.tx_tail_batch, "Driver: write TDT once this many descriptors are queued")->check(CLI::Range(1, 4096));
  cmd.add_option("--tail-timeout-ns", f.tail_timeout_ns, "Driver: ... or once the oldest pending one waited this long")
      ->check(CLI::Range(uint64_t(1), uint64_t(1'000'000'000)));
  cmd.add_option("--tx-completion", f.tx_completion,
                 "Driver: auto | writeback | head | head-writeback | none (none: bypass only, no flow control)")
      ->check(CLI::IsMember(driver::tx_completion_names()));
  cmd.add_option("--tx-full", f.tx_full, "Driver: a full tx ring drops (drop) or holds the packet (wait)")
      ->check(CLI::IsMember({"drop", "wait"}));
  cmd.add_flag("--no-drop-en", f.no_drop_en, "Driver: SRRCTL.DROP_EN off (a queue without descriptors stalls the port)");
  cmd.add_option("--nic-threads", f.nic_threads, "NIC-model threads")->check(CLI::Range(1, 64));
  cmd.add_option("--driver-threads", f.driver_threads, "Driver threads")->check(CLI::Range(1, 64));
  cmd.add_option("--staged-mode", f.staged_mode, "Staged path: zero-copy | copy | persistent")
      ->check(CLI::IsMember(driver::staged_mode_names()));
  cmd.add_option("--staged-depth", f.staged_depth, "Staged path: bursts on the GPU at once per plane")->check(CLI::Range(1, 64));
  cmd.add_option("--nic-dma", f.nic_dma, "DMA engine for rings in GPU memory: sm | copy-engine")
      ->check(CLI::IsMember(ctl::gpu_dma_names()));
  cmd.add_flag("--tx-writeback-fc", f.tx_writeback_fc, "Tx write-back flow control (= --tx-completion writeback)");
  cmd.add_option("--one-way", f.one_way,
                 "Bypass: time one side of the GPU: rx (the GPU is the sink) or tx (from the GPU's hand-over to the wire)")
      ->check(CLI::IsMember({"rx", "tx"}));
  cmd.add_option("--json", f.json_file, "Write the trial's JSON (bench/SCHEMA.md) to FILE ('-' for stdout)");
  cmd.add_flag("-q,--quiet", f.quiet, "No progress bar");
}

void record_given_flags(const CLI::App& cmd, BenchFlags& f) {
  for (const CLI::Option* option : cmd.get_options())
    if (option->count() > 0) f.given.insert(option->get_name());
}

Trial trial_from_flags(const BenchFlags& f) {
  ctl::Config c = f.config_file.empty() ? default_config(f) : ctl::load_config(f.config_file);
  if (!f.config_file.empty()) apply_port_flags(f, c);
  apply_driver_flags(f, c);
  c.path = path_of(f, c.path);
  c.duration_s = 0;  // the trial's own clock decides
  for (ctl::PortSpec& port : c.ports) port.source = ctl::SourceSpec{};
  ctl::SourceSpec& source = c.ports.front().source;
  source.kind = ctl::SourceSpec::Kind::Generator;
  source.generator = generator_from_flags(f, c.ports.front().nic.speed_gbps);
  check_one_way(c);
  return Trial{c, f.warmup_s, f.duration_s};
}

}  // namespace gnf::app
