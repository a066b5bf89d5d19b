#include "app/run_flags.h"

#include "ctl/config_builder.h"

namespace gnf::app {

void add_run_options(CLI::App& cmd, RunFlags& f) {
  ConfigFlags& c = f.config;
  // Files are checked when they are read (exit 1, naming the flag), not as flags (a usage error).
  auto* config_opt = cmd.add_option("-c,--config", f.config_file, "TOML config file (see configs/)");
  c.add(cmd, "--path", Table::Top, "path", ctl::path_names(), "Data path");
  c.add(cmd, "--duration", Table::Top, "duration", ctl::rule::kSeconds, "Seconds to run (0: until the sources end or Ctrl-C)");
  cmd.add_option("--json", f.json_file, "Write the JSON summary to FILE ('-' for stdout)");
  cmd.add_option("--stats-interval", f.stats_interval, "Seconds between stats lines")->check(CLI::PositiveNumber);
  cmd.add_flag("!--no-stats", f.stats, "No per-second stats lines (the end-of-run summary stays)");
  cmd.add_option("--ctl-socket", f.ctl_socket, "The control socket gnf ctl talks to (default: [ctl] socket, else "
                                                "gnf-PID.sock under $XDG_RUNTIME_DIR or /tmp)");
  cmd.add_option("--metrics-listen", f.metrics_listen,
                 "Serve Prometheus metrics on ADDRESS:PORT, e.g. 127.0.0.1:9464 (default: [metrics] listen, else none)");
  add_log_options(cmd, f.log, "No stats lines, no end-of-run summary");
  add_thread_options(cmd, c);
  c.add(cmd, "--driver-threads", Table::Driver, "threads", ctl::rule::kDriverThreads,
        "Driver threads (each owns whole planes; 0: one per queue)");
  // The single-port quick forms; a config file says all of this and more.
  auto group = "Single port without a config file";
  CLI::Option* pcap_in = c.add_file(cmd, "--pcap-in", Table::Source, "file", "Replay this pcap into port0");
  CLI::Option* gen = c.add_switch(cmd, "--gen", Table::Source, "type", "generator", "Feed port0 from the traffic generator");
  gen->excludes(pcap_in);
  std::vector<CLI::Option*> port_opts = {
      pcap_in,
      c.add(cmd, "--timing", Table::Source, "timing", ctl::pcap_timing_names(), "pcap timing"),
      gen,
      c.add_list(cmd, "--size", Table::Source, "size", ctl::rule::kFrameSize, "Generator frame size(s) in bytes with FCS"),
      c.add_switch(cmd, "--imix", Table::Source, "imix", "true", "Generator: simple IMIX (7:4:1 of 64/594/1518 B)"),
      c.add(cmd, "--flows", Table::Source, "flows", ctl::rule::kFlows, "Generator flows"),
      c.add(cmd, "--rate-pps", Table::Source, "rate_pps", ctl::rule::kRatePps, "Offered rate in packets/s"),
      c.add(cmd, "--rate-gbps", Table::Source, "rate_gbps", ctl::rule::kRateGbps, "Offered rate in Gbit/s, layer 1"),
      c.add(cmd, "--count", Table::Source, "count", ctl::rule::kCount, "Generator: frames to send"),
      c.add(cmd, "--ip", Table::Source, "ip", ctl::rule::kIpVersion, "Generator IP version"),
      c.add(cmd, "--speed", Table::Port, "speed", ctl::rule::kSpeedGbps, "Port speed in Gbit/s"),
      c.add(cmd, "--queues", Table::Port, "queues", ctl::rule::kQueues, "rx/tx queue pairs (RSS)"),
      c.add_switch(cmd, "--flow-control", Table::Port, "flow_control", "true",
                   "Pause the source instead of dropping when the rx buffer is full"),
      c.add_file(cmd, "--pcap-out", Table::Sink, "pcap", "Write what port0 transmits to this pcap"),
      // l2fwd's parameters: l2fwd checks them; the quick form offers what one port can do.
      cmd.add_option("--nf", f.nf, "Network function")->check(CLI::IsMember({"l2fwd"})),
      cmd.add_option("--mode", f.mode, "l2fwd mode")->check(CLI::IsMember({"reflect", "to"})),
      cmd.add_option("--mac", f.mac, "l2fwd MAC handling")->check(CLI::IsMember({"none", "swap", "rewrite"})),
  };
  for (CLI::Option* o : port_opts) o->group(group)->excludes(config_opt);
}

namespace {

// Port 0 as the quick-form flags describe it: a pcap file (--pcap-in) or the generator (--gen) in, l2fwd, a pcap file out.
ctl::Config single_port(const RunFlags& f) {
  ctl::Config c;
  ctl::PortSpec port = ctl::new_port(0);
  ctl::FlagOptions port_flags = f.config.given(Table::Port);
  ctl::read_port(port_flags, port);
  ctl::FlagOptions source = f.config.given(Table::Source);
  if (source.has("file")) source.give("type", "--pcap-in", {"pcap"});
  if (source.has("type")) ctl::read_source(source, port.source, port.nic.speed_gbps);
  ctl::FlagOptions sink = f.config.given(Table::Sink);
  ctl::read_sink(sink, port.sink);
  c.ports.push_back(port);
  c.nfs.push_back(ctl::command_line_nf(f.nf, "--nf " + f.nf, {{"mode", f.mode}, {"mac", f.mac}}));
  return c;
}

}  // namespace

ctl::Config config_from_flags(const RunFlags& f) {
  ctl::Config c = f.config_file.empty() ? single_port(f) : ctl::load_config(f.config_file);
  ctl::FlagOptions top = f.config.given(Table::Top), driver = f.config.given(Table::Driver),
                   nic = f.config.given(Table::Nic), threads = f.config.given(Table::Threads);
  ctl::read_top(top, c);
  ctl::read_driver(driver, c);
  ctl::read_nic(nic, c);
  ctl::read_threads(threads, c);
  f.config.note_origins(c);
  return c;
}

}  // namespace gnf::app
