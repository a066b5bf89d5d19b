// The one builder of gnf's configuration: a config file (ctl/config.cpp), `gnf run`'s flags and
// `gnf bench`'s flags (app/) all make their Config with these. Defaults are the structs'
// initializers, and new_port's for what depends on a port's number. Each reader takes the options
// of one config table from an OptionSource (the table in a file, or the flags that set its keys),
// each through its rule (ctl/option_rules.h), and leaves what the source does not give as it was:
// flags given on top of a config file override those keys alone. validate() (ctl/config.h) then
// checks across tables, however the Config was made.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "ctl/config.h"
#include "ctl/option_source.h"

namespace gnf::ctl {

// Port `index` with its defaults: named "port<index>", MAC 02:00:00:00:01:<index>.
PortSpec new_port(size_t index);

// The top level: path, duration.
void read_top(OptionSource& options, Config& c);
// [[port]]: name, speed, queues (or rx_queues and tx_queues), rx_buffer_kib, tx_buffer_kib,
// max_frame, flow_control, mac, ipv4, ipv6.
void read_port(OptionSource& options, PortSpec& port);
// [port.source]: type = "pcap" (file, timing, rate_pps or rate_gbps, repeat) or "generator".
void read_source(OptionSource& options, SourceSpec& source, uint32_t line_gbps);
// A generator's options: ip, size or imix, flows, rate_pps or rate_gbps, count, duration, src_mac,
// dst_mac.
void read_generator(OptionSource& options, wire::GeneratorOptions& generator);
// [port.sink]: pcap.
void read_sink(OptionSource& options, SinkSpec& sink);
// [driver]: the driver's options and its threads.
void read_driver(OptionSource& options, Config& c);
// [nic]: threads, dma.
void read_nic(OptionSource& options, Config& c);
// [threads]: idle, idle_sleep_us_max, cpus, control_cpus (CPU lists, "" for none, checked against
// this process's CPUs by validate()).
void read_threads(OptionSource& options, Config& c);

// An NF whose parameters come from the command line rather than an [[nf]] table; `where` names it
// in its errors ("--nf l2fwd").
nf::NfSpec command_line_nf(const std::string& type, const std::string& where,
                           const std::map<std::string, std::string>& params);

// A generator's rate above its port's line rate (line_gbps set): which key says so ("rate_gbps" or
// "rate_pps"), and what is wrong; an empty message when the rate fits. A rate_pps within a frame per
// second of the line rate (a harness rounds it) fits.
struct RateProblem {
  std::string key;
  std::string message;
};
RateProblem above_line_rate(const wire::GeneratorOptions& generator, const std::string& port);

// The names of a pcap source's timing ("max", "original", "rate").
std::vector<std::string> pcap_timing_names();

// The driver's whole-number options, by key, with their rules and fields: read_driver takes them
// from a file or flags, and validate() checks them again on Configs built in code, whose values
// the drivers rely on (the bypass kernel's block holds at most kMaxBurst threads).
template <typename AnyConfig, typename Visit>  // Config or const Config
void for_each_driver_count(AnyConfig& c, Visit&& visit) {
  visit("rx_ring", rule::kRingSize, c.driver.rx_ring_size);
  visit("tx_ring", rule::kRingSize, c.driver.tx_ring_size);
  visit("burst", rule::kBurst, c.driver.burst);
  visit("slot_size", rule::kSlotSize, c.driver.slot_size);
  visit("headroom", rule::kHeadroom, c.driver.headroom);
  visit("pool_slots", rule::kPoolSlots, c.driver.pool_slots);
  visit("rx_tail_batch", rule::kTailBatch, c.driver.rx_tail_batch);
  visit("tx_tail_batch", rule::kTailBatch, c.driver.tx_tail_batch);
  visit("tail_timeout_ns", rule::kTailTimeoutNs, c.driver.tail_timeout_ns);
  visit("staged_depth", rule::kStagedDepth, c.driver.staged_depth);
  visit("nf_blocks", rule::kNfBlocks, c.driver.nf_blocks);
  visit("threads", rule::kDriverThreads, c.driver_threads);
}

}  // namespace gnf::ctl
