#include "ctl/config.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "ctl/toml_table.h"
#include "nic/pacing.h"
#include "util/error.h"
#include "util/mac.h"

namespace gnf::ctl {

namespace {

constexpr int64_t kMaxQueues = nic::kMaxQueues;

std::string resolve(const std::string& base_dir, const std::string& path) {
  if (path.empty() || base_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

std::array<uint8_t, 6> get_mac(TomlTable& t, const std::string& key, std::array<uint8_t, 6> fallback) {
  if (!t.has(key)) return fallback;
  auto mac = parse_mac(t.get_string(key, ""));
  if (!mac) t.fail(key, "expected a MAC address like \"02:00:00:00:00:01\"");
  return *mac;
}

SourceSpec parse_source(TomlTable t, const std::string& base_dir, uint32_t line_gbps) {
  SourceSpec s;
  std::string type = t.get_choice("type", "", {"pcap", "generator"});
  if (type == "pcap") {
    s.kind = SourceSpec::Kind::Pcap;
    s.pcap.file = resolve(base_dir, t.get_string("file", ""));
    if (s.pcap.file.empty()) t.fail("file", "a pcap source needs a file");
    std::string timing = t.get_choice("timing", "max", {"max", "original", "rate"});
    s.pcap.timing = timing == "original" ? wire::PcapSourceOptions::Timing::Original
                    : timing == "rate"   ? wire::PcapSourceOptions::Timing::Rate
                                         : wire::PcapSourceOptions::Timing::Max;
    s.pcap.rate_pps = t.get_number("rate_pps", 0, 0, 1e12);
    s.pcap.rate_gbps_l1 = t.get_number("rate_gbps", 0, 0, 400);
    if (timing == "rate" && (s.pcap.rate_pps > 0) == (s.pcap.rate_gbps_l1 > 0))
      t.fail("timing", "timing = \"rate\" needs exactly one of rate_pps and rate_gbps");
    s.pcap.repeat = uint32_t(t.get_int("repeat", 1, 1, 1'000'000));
  } else {
    s.kind = SourceSpec::Kind::Generator;
    wire::GeneratorOptions& g = s.generator;
    g.line_gbps = line_gbps;
    g.ip_version = int(t.get_int("ip", 4, 4, 6));
    if (g.ip_version == 5) t.fail("ip", "expected 4 or 6");
    if (t.has("size") && t.has("imix")) t.fail("imix", "give either size or imix");
    if (t.has("size")) {
      auto sizes = t.get_int_list("size", 64, 9018);
      g.sizes.assign(sizes.begin(), sizes.end());
    }
    g.imix = t.get_bool("imix", false);
    g.flows = uint32_t(t.get_int("flows", 1, 1, 65536));
    g.rate_pps = t.get_number("rate_pps", 0, 0, 1e12);
    g.rate_gbps_l1 = t.get_number("rate_gbps", 0, 0, 400);
    if (g.rate_pps > 0 && g.rate_gbps_l1 > 0) t.fail("rate_gbps", "give at most one of rate_pps and rate_gbps");
    g.count = uint64_t(t.get_int("count", 0, 0, INT64_MAX));
    g.duration_ns = uint64_t(t.get_number("duration", 0, 0, 1e6) * 1e9);
    g.src_mac = get_mac(t, "src_mac", g.src_mac);
    g.dst_mac = get_mac(t, "dst_mac", g.dst_mac);
  }
  t.reject_unknown();
  return s;
}

LinkSpec parse_link(TomlTable t, uint32_t max_frame_bytes) {
  LinkSpec l;
  wire::LinkOptions& o = l.options;
  std::string type = t.get_choice("type", "auto", {"auto", "af_packet", "af_xdp"});
  o.type = type == "af_packet" ? wire::LinkOptions::Type::AfPacket
           : type == "af_xdp"  ? wire::LinkOptions::Type::AfXdp
                               : wire::LinkOptions::Type::Auto;
  o.interface = t.get_string("interface", "");
  // IFNAMSIZ (16) with the terminating zero; the kernel refuses '/', ':' and blanks in names too.
  if (o.interface.empty() || o.interface.size() > 15 || o.interface.find_first_of("/: \t\n") != std::string::npos)
    t.fail("interface", "expected an interface name of 1 to 15 characters, e.g. \"veth0\"");
  o.netns = t.get_string("netns", "");
  if (t.has("netns") && (o.netns.empty() || o.netns == "." || o.netns == ".." || o.netns.find('/') != std::string::npos))
    t.fail("netns", "expected the name of a namespace under /run/netns (as `ip netns add NAME` makes)");
  o.max_frame_bytes = max_frame_bytes;
  l.where = fmt::format("{}:{}: {}", t.file(), t.line_of("interface"), t.where());
  t.reject_unknown();
  return l;
}

PortSpec parse_port(TomlTable t, const std::string& base_dir, size_t index) {
  PortSpec p;
  nic::PortOptions& o = p.nic;
  o.name = t.get_string("name", fmt::format("port{}", index));
  int64_t speed = t.get_int("speed", 10, 1, 400);
  bool known = false;
  for (uint32_t s : nic::kSupportedSpeedsGbps) known |= s == speed;
  if (!known) t.fail("speed", "supported speeds are 10, 25, 40, 100, 200 and 400 (Gbit/s)");
  o.speed_gbps = uint32_t(speed);
  int64_t queues = t.get_int("queues", 1, 1, kMaxQueues);
  o.rx_queues = uint16_t(t.get_int("rx_queues", queues, 1, kMaxQueues));
  o.tx_queues = uint16_t(t.get_int("tx_queues", queues, 1, kMaxQueues));
  o.rx_buffer_bytes = uint32_t(t.get_int("rx_buffer_kib", 512, 16, 1 << 20) * 1024);
  o.tx_buffer_bytes = uint32_t(t.get_int("tx_buffer_kib", 160, 16, 1 << 20) * 1024);
  o.max_frame_bytes = uint32_t(t.get_int("max_frame", 1518, 64, 9018) - wire::kFcsBytes);
  o.flow_control = t.get_bool("flow_control", false);
  std::array<uint8_t, 6> default_mac = {0x02, 0x00, 0x00, 0x00, 0x01, uint8_t(index)};
  o.mac = get_mac(t, "mac", default_mac);
  nic::fill_reta_round_robin(o.rss, o.rx_queues);
  for (const char* key : {"ipv4", "ipv6"}) {
    if (!t.has(key)) continue;
    auto parsed = nf::parse_interface_address(t.get_string(key, ""));
    if (!parsed || parsed->first.family != (key[3] == '4' ? 4 : 6))
      t.fail(key, fmt::format("expected an {} interface address like \"{}\"", key,
                              key[3] == '4' ? "10.0.1.1/24" : "2001:db8:1::1/64"));
    p.addresses.push_back(*parsed);
  }
  if (t.has("link") && (t.has("source") || t.has("sink")))
    t.fail("link", "a port attached to an interface has it as both its source and its sink: drop [port.source] and "
                   "[port.sink], or [port.link]");
  if (t.has("link")) p.link = parse_link(t.sub_table("link"), o.max_frame_bytes);
  if (t.has("source")) p.source = parse_source(t.sub_table("source"), base_dir, o.speed_gbps);
  if (t.has("sink")) {
    TomlTable sink = t.sub_table("sink");
    p.sink.pcap_file = resolve(base_dir, sink.get_string("pcap", ""));
    sink.reject_unknown();
  }
  t.reject_unknown();
  return p;
}

void parse_driver(TomlTable t, Config& c) {
  driver::DriverOptions& d = c.driver;
  auto ring = [&](const char* key, uint32_t fallback) {
    int64_t v = t.get_int(key, fallback, 8, 32768);
    if (v % 8) t.fail(key, "must be a multiple of 8 (the ring length in bytes is a multiple of 128)");
    return uint32_t(v);
  };
  d.rx_ring_size = ring("rx_ring", d.rx_ring_size);
  d.tx_ring_size = ring("tx_ring", d.tx_ring_size);
  d.burst = uint32_t(t.get_int("burst", d.burst, 1, 1024));
  d.slot_size = uint32_t(t.get_int("slot_size", d.slot_size, 1024, 16384));
  if (d.slot_size % 1024) t.fail("slot_size", "must be a multiple of 1024 (SRRCTL.BSIZEPACKET)");
  d.pool_slots = uint32_t(t.get_int("pool_slots", 0, 0, 1 << 24));
  d.rx_tail_batch = uint32_t(t.get_int("rx_tail_batch", d.rx_tail_batch, 1, 4096));
  d.tx_tail_batch = uint32_t(t.get_int("tx_tail_batch", d.tx_tail_batch, 1, 4096));
  d.tail_timeout_ns = uint64_t(t.get_int("tail_timeout_ns", int64_t(d.tail_timeout_ns), 1, 1'000'000'000));
  d.tx_completion = driver::tx_completion_from_name(
      t.get_choice("tx_completion", driver::tx_completion_name(d.tx_completion), driver::tx_completion_names()));
  d.staged_mode = driver::staged_mode_from_name(
      t.get_choice("staged_mode", driver::staged_mode_name(d.staged_mode), driver::staged_mode_names()));
  d.staged_depth = uint32_t(t.get_int("staged_depth", d.staged_depth, 1, 64));
  d.one_way = driver::one_way_from_name(t.get_choice("one_way", driver::one_way_name(d.one_way), driver::one_way_names()));
  d.drop_en = t.get_bool("drop_en", true);
  d.tx_full_wait = t.get_choice("tx_full", "drop", {"drop", "wait"}) == "wait";
  c.driver_threads = uint32_t(t.get_int("threads", 0, 0, kMaxQueues));
  // Every rx descriptor holds a slot, and taking a packet needs a fresh one to put in its place:
  // a pool no larger than the ring would never receive anything.
  if (d.pool_slots && d.pool_slots <= d.rx_ring_size)
    t.fail("pool_slots", fmt::format("must be larger than rx_ring ({}): each received packet is replaced by a free slot",
                                     d.rx_ring_size));
  t.reject_unknown();
}

nf::NfSpec parse_nf(TomlTable t, size_t index) {
  nf::NfSpec spec;
  spec.type = t.get_string("type", "");
  if (spec.type.empty()) t.fail("type", "each [[nf]] needs a type");
  // Errors about the element as a whole point at its type line.
  spec.params = nf::Params(t.file(), t.line_of("type"), fmt::format("nf[{}]", index));
  for (auto&& [key, node] : t.raw()) {
    std::string k(key.str());
    if (k == "type") continue;
    nf::ParamValue value;
    value.line = int(node.source().begin.line);
    if (auto b = node.value_exact<bool>()) value.value = *b;
    else if (auto i = node.value_exact<int64_t>()) value.value = *i;
    else if (auto d = node.value_exact<double>()) value.value = *d;
    else if (auto s = node.value_exact<std::string>()) value.value = *s;
    else t.fail(k, "expected a string, number or boolean");
    spec.params.set(k, value);
  }
  return spec;
}

}  // namespace

const char* gpu_dma_name(Config::GpuDma dma) { return dma == Config::GpuDma::CopyEngine ? "copy-engine" : "sm"; }
Config::GpuDma gpu_dma_from_name(const std::string& name) {
  return name == "copy-engine" ? Config::GpuDma::CopyEngine : Config::GpuDma::Sm;
}
std::vector<std::string> gpu_dma_names() { return {"sm", "copy-engine"}; }

std::string_view path_name(PathKind kind) {
  switch (kind) {
    case PathKind::Cpu: return "cpu";
    case PathKind::Staged: return "staged";
    case PathKind::Bypass: return "bypass";
    case PathKind::P2p: return "p2p";
    case PathKind::Calibrate: return "calibrate";
  }
  return "?";
}

Config parse_config(std::string_view text, const std::string& file_name) {
  toml::table root;
  try {
    root = toml::parse(text, file_name);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}: {}", file_name, e.source().begin.line, e.description()));
  }
  std::string base_dir = std::filesystem::path(file_name).parent_path().string();
  Config c;
  c.file = file_name;
  TomlTable t(root, file_name, "");
  std::string path = t.get_choice("path", "cpu", {"cpu", "staged", "bypass", "p2p"});
  c.path = path == "staged" ? PathKind::Staged : path == "bypass" ? PathKind::Bypass : path == "p2p" ? PathKind::P2p : PathKind::Cpu;
  c.duration_s = t.get_number("duration", 0, 0, 1e6);
  if (const toml::array* ports = t.table_array("port")) {
    for (size_t i = 0; i < ports->size(); ++i)
      c.ports.push_back(parse_port(TomlTable(*ports->get(i)->as_table(), file_name, fmt::format("port[{}]", i)), base_dir, i));
  }
  if (t.has("driver")) parse_driver(t.sub_table("driver"), c);
  if (t.has("nic")) {
    TomlTable nic = t.sub_table("nic");
    c.nic_threads = uint32_t(nic.get_int("threads", 1, 1, 64));
    c.gpu_dma = gpu_dma_from_name(nic.get_choice("dma", gpu_dma_name(c.gpu_dma), gpu_dma_names()));
    nic.reject_unknown();
  }
  if (t.has("netlink")) {
    TomlTable netlink = t.sub_table("netlink");
    c.netlink_netns = netlink.get_string("netns", "");
    netlink.reject_unknown();
  }
  if (const toml::array* nfs = t.table_array("nf")) {
    for (size_t i = 0; i < nfs->size(); ++i)
      c.nfs.push_back(parse_nf(TomlTable(*nfs->get(i)->as_table(), file_name, fmt::format("nf[{}]", i)), i));
  }
  t.reject_unknown();
  if (c.ports.empty()) throw UserError(fmt::format("{}:1: port: configure at least one [[port]]", file_name));
  return c;
}

Config load_config(const std::string& file_name) {
  std::ifstream in(file_name);
  if (!in) throw UserError(fmt::format("{}: cannot read the config file", file_name));
  std::stringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), file_name);
}

nf::NfContext nf_context(const Config& config) {
  nf::NfContext context;
  context.ports = uint16_t(config.ports.size());
  for (size_t p = 0; p < config.ports.size(); ++p) {
    context.port_macs[p] = config.ports[p].nic.mac;
    for (const auto& [address, network] : config.ports[p].addresses)
      context.addresses.push_back({uint16_t(p), address, network});
  }
  return context;
}

std::map<std::string, uint16_t> port_numbers(const Config& config) {
  std::map<std::string, uint16_t> by_name;
  for (size_t p = 0; p < config.ports.size(); ++p) by_name[config.ports[p].nic.name] = uint16_t(p);
  return by_name;
}

void validate(const Config& c) {
  if (c.ports.empty()) throw UserError(fmt::format("{}: no ports configured", c.file));
  if (c.ports.size() > nf::kMaxPorts)
    throw UserError(fmt::format("{}: {} ports configured; at most {}", c.file, c.ports.size(), nf::kMaxPorts));
  const auto& first = c.ports.front().nic;
  for (const PortSpec& p : c.ports) {
    if (p.nic.rx_queues != first.rx_queues || p.nic.tx_queues != first.tx_queues || p.nic.rx_queues != p.nic.tx_queues)
      throw UserError(fmt::format(
          "{}: port '{}': every port needs the same number of rx and tx queues (queue q of each port "
          "belongs to driver plane q)", c.file, p.nic.name));
    if (p.nic.max_frame_bytes > c.driver.slot_size)
      throw UserError(fmt::format("{}: port '{}': max_frame ({} B) does not fit in driver.slot_size ({} B)", c.file,
                                  p.nic.name, p.nic.max_frame_bytes + wire::kFcsBytes, c.driver.slot_size));
  }
  if (c.driver.tx_completion == driver::TxCompletion::None && c.path != PathKind::Bypass)
    throw UserError(fmt::format("{}: driver.tx_completion: \"none\" (no tx flow control) is a bypass-path experiment; "
                                "the {} path needs a completion mode", c.file, path_name(c.path)));
  if (c.driver.tx_completion == driver::TxCompletion::None && c.driver.tx_full_wait)
    throw UserError(fmt::format("{}: driver.tx_full: \"wait\" needs tx completions, and tx_completion is \"none\"",
                                c.file));
  if (c.driver.one_way != driver::OneWay::Off && c.path != PathKind::Bypass)
    throw UserError(fmt::format("{}: driver.one_way: \"{}\" times one side of the GPU driver; the {} path has none "
                                "(use path = \"bypass\")", c.file, driver::one_way_name(c.driver.one_way),
                                path_name(c.path)));
  if (c.driver.tail_timeout_ns == 0 && (c.driver.rx_tail_batch > 1 || c.driver.tx_tail_batch > 1))
    throw UserError(fmt::format("{}: driver: tail batching needs a tail_timeout_ns", c.file));
}

}  // namespace gnf::ctl
