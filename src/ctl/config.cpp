#include "ctl/config.h"

#include <algorithm>


#include <fmt/format.h>

#include "ctl/config_builder.h"
#include "ctl/toml_table.h"
#include "path/path_table.h"
#include "util/cores.h"
#include "util/error.h"
#include "util/files.h"
#include "util/memory_budget.h"
#include "util/name_table.h"

namespace gnf::ctl {

namespace {

// The table `key` inside `parent`, if there is one, through `read`; no other keys in it.
template <typename Read>
void parse_table(TomlTable& parent, const std::string& key, Read&& read) {
  if (!parent.has(key)) return;
  TomlTable table = parent.sub_table(key);
  read(table);
  table.reject_unknown();
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

PortSpec parse_port(TomlTable t, size_t index) {
  PortSpec p = new_port(index);
  read_port(t, p);
  if (t.has("link") && (t.has("source") || t.has("sink")))
    t.fail("link", "a port attached to an interface has it as both its source and its sink: drop [port.source] and "
                   "[port.sink], or [port.link]");
  if (t.has("link")) p.link = parse_link(t.sub_table("link"), p.nic.max_frame_bytes);
  parse_table(t, "source", [&](TomlTable& source) { read_source(source, p.source, p.nic.speed_gbps); });
  parse_table(t, "sink", [&](TomlTable& sink) { read_sink(sink, p.sink); });
  t.reject_unknown();
  return p;
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

// Notes the line of every key in `table` and the tables inside it, under `prefix` ("port[0].").
void note_origins(const toml::table& table, const std::string& file, const std::string& prefix, Origins& origins) {
  for (auto&& [key, node] : table) {
    const std::string name = prefix + std::string(key.str());
    origins.note(name, fmt::format("{}:{}: {}", file, node.source().begin.line, name));
    if (const toml::table* inner = node.as_table()) note_origins(*inner, file, name + ".", origins);
    if (const toml::array* tables = node.as_array(); tables && tables->is_array_of_tables())
      for (size_t i = 0; i < tables->size(); ++i)
        note_origins(*tables->get(i)->as_table(), file, fmt::format("{}[{}].", name, i), origins);
  }
}

// The CPU lists of [threads]: CPUs this process may run on, and as many for the poll-mode threads
// as there will be (the NIC model's, and the driver's where it polls from host threads).
void validate_threads(const Config& c) {
  const std::vector<int> allowed = calling_thread_cores();
  for (auto [key, cpus] : {std::pair{"threads.cpus", &c.cpus}, std::pair{"threads.control_cpus", &c.control_cpus}})
    for (int cpu : *cpus)
      if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end())
        throw UserError(fmt::format("{}: CPU {} is not one this process may run on ({})", where(c, key), cpu,
                                    cpu_list_text(allowed)));
  if (c.cpus.empty()) return;
  if (!c.pin_threads)
    throw UserError(fmt::format("{}: a CPU list pins the poll-mode threads, and nic.pin_threads is false",
                                where(c, "threads.cpus")));
  const uint32_t queues = c.ports.front().nic.rx_queues;
  const uint32_t driver = path::path_row(c.path, c.file).driver_threads
                              ? (c.driver_threads ? std::min<uint32_t>(c.driver_threads, queues) : 1)
                              : 0;
  if (c.cpus.size() < c.nic_threads + driver)
    throw UserError(fmt::format("{}: {} CPU{} for {} poll-mode threads ({} NIC model, {} driver): list a CPU for each",
                                where(c, "threads.cpus"), c.cpus.size(), c.cpus.size() == 1 ? "" : "s",
                                c.nic_threads + driver, c.nic_threads, driver));
}

}  // namespace

std::string Origins::of(const std::string& key, const std::string& file) const {
  auto it = by_key_.find(key);
  if (it != by_key_.end()) return it->second;
  return file.empty() ? key : fmt::format("{}: {}", file, key);
}

std::string where(const Config& config, const std::string& key) { return config.origins.of(key, config.file); }

PathKind path_from_name(const std::string& name) { return from_name(path::kPathNames, name); }
std::vector<std::string> path_names() { return names_of(path::kPathNames); }

Config parse_config(std::string_view text, const std::string& file_name) {
  toml::table root;
  try {
    root = toml::parse(text, file_name);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}: {}", file_name, e.source().begin.line, e.description()));
  }
  Config c;
  c.file = file_name;
  TomlTable t(root, file_name, "");
  read_top(t, c);
  if (const toml::array* ports = t.table_array("port")) {
    for (size_t i = 0; i < ports->size(); ++i)
      c.ports.push_back(parse_port(TomlTable(*ports->get(i)->as_table(), file_name, fmt::format("port[{}]", i)), i));
  }
  parse_table(t, "driver", [&](TomlTable& driver) { read_driver(driver, c); });
  parse_table(t, "nic", [&](TomlTable& nic) { read_nic(nic, c); });
  parse_table(t, "threads", [&](TomlTable& threads) { read_threads(threads, c); });
  parse_table(t, "netlink", [&](TomlTable& netlink) { c.netlink_netns = netlink.get_string("netns", ""); });
  parse_table(t, "router", [&](TomlTable& router) {
    c.local_delivery_tap = router.get_choice("local_delivery", "none", {"none", "tap"}) == "tap";
  });
  parse_table(t, "ctl", [&](TomlTable& ctl) { c.ctl_socket = ctl.get_path("socket"); });
  parse_table(t, "metrics", [&](TomlTable& metrics) { c.metrics_listen = metrics.get_string("listen", ""); });
  if (const toml::array* nfs = t.table_array("nf")) {
    for (size_t i = 0; i < nfs->size(); ++i)
      c.nfs.push_back(parse_nf(TomlTable(*nfs->get(i)->as_table(), file_name, fmt::format("nf[{}]", i)), i));
  }
  t.reject_unknown();
  if (c.ports.empty()) throw UserError(fmt::format("{}:1: port: configure at least one [[port]]", file_name));
  note_origins(root, file_name, "", c.origins);
  return c;
}

Config load_config(const std::string& file_name) {
  // A config is a page or two; 16 MiB leaves room for generated ones and stops /dev/zero.
  constexpr size_t kMaxConfigBytes = size_t(16) << 20;
  return parse_config(read_input_file(file_name, kMaxConfigBytes), file_name);
}

std::map<std::string, uint16_t> port_numbers(const Config& config) {
  std::map<std::string, uint16_t> by_name;
  for (size_t p = 0; p < config.ports.size(); ++p) by_name[config.ports[p].nic.name] = uint16_t(p);
  return by_name;
}

void validate(const Config& c) {
  for_each_driver_count(c, [&](const char* key, const IntRule& rule, const auto& value) {
    std::string problem = rule.problem(int64_t(value), Given::InFile);
    if (!problem.empty()) throw UserError(fmt::format("{}: {}", where(c, fmt::format("driver.{}", key)), problem));
  });
  if (c.ports.empty()) throw UserError(fmt::format("{}: no ports configured", c.file));
  if (c.ports.size() > nf::kMaxPorts)
    throw UserError(fmt::format("{}: {} ports configured; at most {}", c.file, c.ports.size(), nf::kMaxPorts));
  const auto& first = c.ports.front().nic;
  for (size_t i = 0; i < c.ports.size(); ++i) {
    const PortSpec& p = c.ports[i];
    auto key = [&](const char* name) { return fmt::format("port[{}].{}", i, name); };
    if (p.nic.rx_queues != first.rx_queues || p.nic.tx_queues != first.tx_queues || p.nic.rx_queues != p.nic.tx_queues) {
      const char* given = c.origins.has(key("tx_queues")) ? "tx_queues"
                          : c.origins.has(key("rx_queues")) ? "rx_queues" : "queues";
      throw UserError(fmt::format(
          "{}: port '{}': every port needs the same number of rx and tx queues (queue q of each port belongs to "
          "driver plane q)", where(c, key(given)), p.nic.name));
    }
    if (p.nic.max_frame_bytes > c.driver.slot_size) {
      // Named by the key the user gave: the slot size, unless the frame size was given.
      if (!c.origins.has(key("max_frame")) && c.origins.has("driver.slot_size"))
        throw UserError(fmt::format("{}: {} B slots cannot hold the frames of port '{}' (max_frame {} B)",
                                    where(c, "driver.slot_size"), c.driver.slot_size, p.nic.name,
                                    p.nic.max_frame_bytes + wire::kFcsBytes));
      throw UserError(fmt::format("{}: {} B does not fit in driver.slot_size ({} B)", where(c, key("max_frame")),
                                  p.nic.max_frame_bytes + wire::kFcsBytes, c.driver.slot_size));
    }
    for (size_t j = 0; j < i; ++j)
      if (c.ports[j].nic.name == p.nic.name)
        throw UserError(fmt::format("{}: '{}' is port {}'s name too: ports are told apart by name", where(c, key("name")),
                                    p.nic.name, j));
  }
  if (c.netlink_netns && std::none_of(c.nfs.begin(), c.nfs.end(), [](const nf::NfSpec& n) { return n.type == "l3fwd"; }))
    throw UserError(fmt::format("{}: [netlink] feeds a router's tables: the chain needs an l3fwd", where(c, "netlink")));
  if (c.local_delivery_tap && !c.netlink_netns)
    throw UserError(fmt::format("{}: \"tap\" hands the router's own traffic to the kernel of the [netlink] namespace, "
                                "and there is no [netlink] (add it, with netns = \"NAME\")",
                                where(c, "router.local_delivery")));
  // Memory, before anything is allocated: every plane has a pool per port; each port its buffers.
  // A pool's size is named by the key given, pool_slots unless only slot_size was.
  const char* pool_key = c.origins.has("driver.pool_slots") ? "driver.pool_slots" : "driver.slot_size";
  const uint64_t queues = first.rx_queues, ports = c.ports.size();
  if (std::string problem = memory_problem(c.driver.pool_bytes() * queues * ports,
                                           fmt::format("{} pools of {} slots of {} B", queues * ports,
                                                       c.driver.slots_per_pool(), c.driver.slot_bytes()));
      !problem.empty())
    throw UserError(fmt::format("{}: {}", where(c, pool_key), problem));
  if (std::string problem = c.driver.pool_problem(); !problem.empty())
    throw UserError(fmt::format("{}: {}", where(c, pool_key), problem));
  uint64_t buffers = 0;
  for (const PortSpec& p : c.ports) buffers += uint64_t(p.nic.rx_buffer_bytes) + p.nic.tx_buffer_bytes;
  if (std::string problem = memory_problem(buffers, "the ports' rx and tx buffers"); !problem.empty())
    throw UserError(fmt::format("{}: {}", where(c, "port[0].rx_buffer_kib"), problem));
  if (c.driver.tx_completion == driver::TxCompletion::None && c.path != PathKind::Bypass)
    throw UserError(fmt::format("{}: \"none\" (no tx flow control) is a bypass-path experiment; the {} path needs a "
                                "completion mode", where(c, "driver.tx_completion"), path_name(c.path)));
  if (c.driver.tx_completion == driver::TxCompletion::None && c.driver.tx_full_wait)
    throw UserError(fmt::format("{}: \"wait\" needs tx completions, and tx_completion is \"none\"",
                                where(c, "driver.tx_full")));
  if (c.driver.one_way != driver::OneWay::Off && c.path != PathKind::Bypass)
    throw UserError(fmt::format("{}: \"{}\" times one side of the GPU driver; the {} path has none (use path = "
                                "\"bypass\")", where(c, "driver.one_way"), driver::one_way_name(c.driver.one_way),
                                path_name(c.path)));
  // A burst polls that many descriptors ahead: on the bypass path it must stay inside the ring.
  if (c.path == PathKind::Bypass && c.driver.burst >= c.driver.rx_ring_size)
    throw UserError(fmt::format("{}: must be smaller than driver.rx_ring ({}) on the bypass path (a burst polls that "
                                "many descriptors)", where(c, "driver.burst"), c.driver.rx_ring_size));
  validate_threads(c);
}

}  // namespace gnf::ctl
