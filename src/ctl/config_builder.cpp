#include "ctl/config_builder.h"

#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "util/cores.h"
#include "util/mac.h"
#include "util/name_table.h"

namespace gnf::ctl {

namespace {

using Timing = wire::PcapSourceOptions::Timing;
const std::pair<Timing, const char*> kPcapTimings[] = {
    {Timing::Max, "max"},
    {Timing::Original, "original"},
    {Timing::Rate, "rate"},
};

std::array<uint8_t, 6> read_mac(OptionSource& options, const std::string& key, std::array<uint8_t, 6> fallback) {
  if (!options.has(key)) return fallback;
  auto mac = parse_mac(options.get_string(key, ""));
  if (!mac) options.fail(key, "expected a MAC address like \"02:00:00:00:00:01\"");
  return *mac;
}

void read_addresses(OptionSource& options, PortSpec& port) {
  for (const char* key : {"ipv4", "ipv6"}) {
    if (!options.has(key)) continue;
    auto parsed = nf::parse_interface_address(options.get_string(key, ""));
    if (!parsed || parsed->first.family != (key[3] == '4' ? 4 : 6))
      options.fail(key, fmt::format("expected an {} interface address like \"{}\"", key,
                                    key[3] == '4' ? "10.0.1.1/24" : "2001:db8:1::1/64"));
    port.addresses.push_back(*parsed);
  }
}

void read_pcap(OptionSource& options, wire::PcapSourceOptions& pcap) {
  if (options.has("file")) pcap.file = options.get_path("file");
  if (pcap.file.empty()) options.fail("file", "a pcap source needs a file");
  pcap.timing = from_name(kPcapTimings, options.get_choice("timing", name_of(kPcapTimings, pcap.timing),
                                                           names_of(kPcapTimings)));
  pcap.rate_pps = options.get_number("rate_pps", pcap.rate_pps, rule::kRatePps);
  pcap.rate_gbps_l1 = options.get_number("rate_gbps", pcap.rate_gbps_l1, rule::kRateGbps);
  if (pcap.timing == Timing::Rate && (pcap.rate_pps > 0) == (pcap.rate_gbps_l1 > 0))
    options.fail("timing", "timing = \"rate\" needs exactly one of rate_pps and rate_gbps");
  pcap.repeat = uint32_t(options.get_int("repeat", pcap.repeat, {1, 1'000'000}));
}

}  // namespace

std::vector<std::string> pcap_timing_names() { return names_of(kPcapTimings); }

PortSpec new_port(size_t index) {
  PortSpec port;
  port.nic.name = fmt::format("port{}", index);
  port.nic.mac = {0x02, 0x00, 0x00, 0x00, 0x01, uint8_t(index)};
  nic::fill_reta_round_robin(port.nic.rss, port.nic.rx_queues);
  return port;
}

void read_top(OptionSource& options, Config& c) {
  c.path = path_from_name(options.get_choice("path", std::string(path_name(c.path)), path_names()));
  c.duration_s = options.get_number("duration", c.duration_s, rule::kSeconds);
}

void read_port(OptionSource& options, PortSpec& port) {
  nic::PortOptions& o = port.nic;
  o.name = options.get_string("name", o.name);
  o.speed_gbps = uint32_t(options.get_int("speed", o.speed_gbps, rule::kSpeedGbps));
  if (options.has("queues")) o.rx_queues = o.tx_queues = uint16_t(options.get_int("queues", 0, rule::kQueues));
  o.rx_queues = uint16_t(options.get_int("rx_queues", o.rx_queues, rule::kQueues));
  o.tx_queues = uint16_t(options.get_int("tx_queues", o.tx_queues, rule::kQueues));
  nic::fill_reta_round_robin(o.rss, o.rx_queues);
  const IntRule buffer_kib{16, 1 << 20};
  o.rx_buffer_bytes = uint32_t(options.get_int("rx_buffer_kib", o.rx_buffer_bytes / 1024, buffer_kib) * 1024);
  o.tx_buffer_bytes = uint32_t(options.get_int("tx_buffer_kib", o.tx_buffer_bytes / 1024, buffer_kib) * 1024);
  o.max_frame_bytes =
      uint32_t(options.get_int("max_frame", o.max_frame_bytes + wire::kFcsBytes, rule::kFrameSize) - wire::kFcsBytes);
  o.flow_control = options.get_bool("flow_control", o.flow_control);
  o.mac = read_mac(options, "mac", o.mac);
  read_addresses(options, port);
}

void read_source(OptionSource& options, SourceSpec& source, uint32_t line_gbps) {
  if (options.get_choice("type", "", {"pcap", "generator"}) == "pcap") {
    source.kind = SourceSpec::Kind::Pcap;
    read_pcap(options, source.pcap);
  } else {
    source.kind = SourceSpec::Kind::Generator;
    source.generator.line_gbps = line_gbps;
    read_generator(options, source.generator);
    const RateProblem problem = above_line_rate(source.generator, "its port");
    if (!problem.message.empty()) options.fail(problem.key, problem.message);
  }
}

void read_generator(OptionSource& options, wire::GeneratorOptions& g) {
  g.ip_version = int(options.get_int("ip", g.ip_version, rule::kIpVersion));
  if (options.has("size") && options.has("imix")) options.fail("imix", "give either size or imix");
  if (options.has("size")) {
    std::vector<int64_t> sizes = options.get_int_list("size", rule::kFrameSize);
    g.sizes.assign(sizes.begin(), sizes.end());
  }
  g.imix = options.get_bool("imix", g.imix);
  g.flows = uint32_t(options.get_int("flows", g.flows, rule::kFlows));
  g.rate_pps = options.get_number("rate_pps", g.rate_pps, rule::kRatePps);
  g.rate_gbps_l1 = options.get_number("rate_gbps", g.rate_gbps_l1, rule::kRateGbps);
  if (g.rate_pps > 0 && g.rate_gbps_l1 > 0) options.fail("rate_gbps", "give at most one of rate_pps and rate_gbps");
  g.count = uint64_t(options.get_int("count", int64_t(g.count), rule::kCount));
  if (options.has("duration")) g.duration_ns = uint64_t(options.get_number("duration", 0, rule::kSeconds) * 1e9);
  g.src_mac = read_mac(options, "src_mac", g.src_mac);
  g.dst_mac = read_mac(options, "dst_mac", g.dst_mac);
}

RateProblem above_line_rate(const wire::GeneratorOptions& g, const std::string& port) {
  if (g.rate_gbps_l1 > g.line_gbps)
    return {"rate_gbps", fmt::format("{} Gbit/s is above the line rate of {} ({} Gbit/s)", g.rate_gbps_l1, port,
                                     g.line_gbps)};
  if (g.rate_pps > 0 && wire::Generator(g).clamped()) {
    wire::GeneratorOptions at_line_rate = g;
    at_line_rate.rate_pps = 0;
    const double line_pps = wire::Generator(at_line_rate).rate_pps();
    if (g.rate_pps > line_pps + 1)
      return {"rate_pps", fmt::format("{} frames/s is above the line rate of {} for this size mix ({:.0f} frames/s)",
                                      g.rate_pps, port, line_pps)};
  }
  return {};
}

void read_sink(OptionSource& options, SinkSpec& sink) {
  if (options.has("pcap")) sink.pcap_file = options.get_path("pcap");
}

void read_driver(OptionSource& options, Config& c) {
  driver::DriverOptions& d = c.driver;
  for_each_driver_count(c, [&](const char* key, const IntRule& rule, auto& field) {
    field = std::remove_reference_t<decltype(field)>(options.get_int(key, int64_t(field), rule));
  });
  d.tx_completion = driver::tx_completion_from_name(
      options.get_choice("tx_completion", driver::tx_completion_name(d.tx_completion), driver::tx_completion_names()));
  d.staged_mode = driver::staged_mode_from_name(
      options.get_choice("staged_mode", driver::staged_mode_name(d.staged_mode), driver::staged_mode_names()));
  d.one_way = driver::one_way_from_name(
      options.get_choice("one_way", driver::one_way_name(d.one_way), driver::one_way_names()));
  d.drop_en = options.get_bool("drop_en", d.drop_en);
  d.tx_full_wait = driver::tx_full_wait_from_name(
      options.get_choice("tx_full", driver::tx_full_name(d.tx_full_wait), driver::tx_full_names()));
  // Every rx descriptor holds a slot, and taking a packet needs a fresh one to put in its place:
  // a pool no larger than the ring would never receive anything. Said of whichever of the two
  // this source gave (pool_slots, when it gave both).
  if (d.pool_slots && d.pool_slots <= d.rx_ring_size) {
    const char* why = "each received packet is replaced by a free slot";
    if (options.has("pool_slots"))
      options.fail("pool_slots", fmt::format("must be larger than rx_ring ({}): {}", d.rx_ring_size, why));
    options.fail("rx_ring", fmt::format("must be smaller than driver.pool_slots ({}): {}", d.pool_slots, why));
  }
}

void read_nic(OptionSource& options, Config& c) {
  c.nic_threads = uint32_t(options.get_int("threads", c.nic_threads, rule::kNicThreads));
  c.pin_threads = options.get_bool("pin_threads", c.pin_threads);
}

void read_threads(OptionSource& options, Config& c) {
  c.idle = from_name(kIdleModeNames, options.get_choice("idle", name_of(kIdleModeNames, c.idle), names_of(kIdleModeNames)));
  c.idle_sleep_us_max = uint32_t(options.get_int("idle_sleep_us_max", c.idle_sleep_us_max, rule::kIdleSleepUs));
  for (auto [key, cpus] : {std::pair{"cpus", &c.cpus}, std::pair{"control_cpus", &c.control_cpus}}) {
    const std::string text = options.get_string(key, "");
    if (text.empty()) continue;  // "": chosen, as when not given
    CpuList list = parse_cpu_list(text);
    if (!list.problem.empty()) options.fail(key, list.problem);
    *cpus = std::move(list.cpus);
  }
}

nf::NfSpec command_line_nf(const std::string& type, const std::string& where,
                           const std::map<std::string, std::string>& params) {
  nf::NfSpec spec{type, nf::Params("<command line>", 0, where)};
  for (const auto& [key, value] : params) spec.params.set(key, nf::ParamValue{value, 0});
  return spec;
}

}  // namespace gnf::ctl
