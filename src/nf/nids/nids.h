// nids: intrusion detection and prevention with Snort rules, as one NF element.
//
// Per packet: its headers and payload (packet_fields.h), the rules that match it (evaluate.h: the
// automaton's scan, then each candidate rule verified), then Snort's and Suricata's action order:
// a pass rule that matches lets the packet go on with no alert; else every matched rule makes an
// alert record (at most kNidsMatchesPerPacket, the rest counted), and a drop rule among them drops
// the packet (IPS mode). Every matched rule adds one to its hit counter. Frames that are not IP
// pass untouched (not_ip); malformed ones (truncated headers) pass, counted, and are not inspected.
// No stream reassembly: each packet's payload alone (README).
//
// Alerts go to the writer through a bounded ring (alert_ring.h): on the cpu path the host's, in host
// memory; on a GPU the GPU's, in pinned host memory, which each GPU thread pushes its packet's
// records into. A full ring loses the record, counted as alerts_lost, never stalling the data path.
// A record's time is CLOCK_REALTIME's, on the GPU its global timer mapped onto it (alert_clock.h).
//
// Parameters (config table [[nf]] with type = "nids"):
//   rules       = "FILE"   Snort rules (rule_parser.h), relative to the config file's folder
//   vars        = "FILE"   optional: var/ipvar/portvar lines; HOME_NET = "[10.0.0.0/8]" and other
//                          upper-case keys in the table define variables too (over the file's)
//   unsupported = "refuse" a rule with an unsupported option refuses the load ("refuse") or is
//                          skipped, each listed on stderr ("skip")
//   eve_log     = "FILE"   Suricata EVE JSON alert lines; fast_log = "FILE": Snort fast.log lines
//   alert_queue = 65536    records a ring holds (64 B each); max_mib = 512: the automaton's memory bound
#pragma once
#include <cstdint>

#include "nf/nids/alert_clock.h"
#include "nf/nids/alert_ring.h"
#include "nf/nids/evaluate.h"
#include "nf/packet.h"
#include "sync/swapped.h"
#include "util/hd.h"
#if defined(__CUDACC__)
#include "util/gpu_timer.cuh"
#endif

namespace gnf::nf {

struct NidsNfView {
  enum Counter {
    kClean, kAlerted, kDropped, kPassed, kNotIp, kMalformed, kAlerts, kAlertsLost, kAlertsOverLimit,
    kPatternOverflow, kVerifyLimit, kCounterCount
  };
  static constexpr const char* kCounterNames[kCounterCount] = {
      "clean",       "alerted",           "dropped",          "passed",      "not_ip",      "malformed",
      "alerts",      "alerts_lost",       "alerts_over_limit", "pattern_overflow", "verify_limit"};

  sync::SwappedView<NidsRuleSetView> rule_set;
  NidsAlertRingRef alerts;  // the host's ring, or in a device view the GPU's
  int64_t unix_minus_gpu_timer_ns;  // in a device view: CLOCK_REALTIME = %globaltimer + this

  GNF_HD void process(PacketBatch& batch, NfCounters& counters) const {
    const NidsRuleSetView& set = rule_set.load();
    for (uint32_t i = 0; i < batch.count; ++i) {
      PacketRef& p = batch.packets[i];
      if (p.verdict != Verdict::Forward) continue;
      NidsPacket packet;
      const NidsFrame frame = nids_packet(p.data, p.len, packet);
      if (frame != NidsFrame::Ip) {
        ++counters.value[frame == NidsFrame::NotIp ? kNotIp : kMalformed];
        continue;
      }
      NidsMatches matches;
      nids_evaluate(set, packet, matches);
      counters.value[kPatternOverflow] += matches.pattern_overflow;
      counters.value[kVerifyLimit] += matches.verify_limit;
      if (matches.any_pass) {
        ++counters.value[kPassed];
        continue;
      }
      if (matches.count == 0) {
        ++counters.value[kClean];
        continue;
      }
      ++counters.value[matches.any_drop ? kDropped : kAlerted];
      if (matches.any_drop) p.verdict = Verdict::Drop;
      counters.value[kAlertsOverLimit] += matches.over_limit;
      emit(set, packet, matches, counters);
    }
  }

 private:
  GNF_HD void emit(const NidsRuleSetView& set, const NidsPacket& packet, const NidsMatches& matches,
                   NfCounters& counters) const {
    NidsAlert alert{};
#if defined(__CUDA_ARCH__)
    alert.unix_ns = global_timer_ns() + uint64_t(unix_minus_gpu_timer_ns);
#else
    alert.unix_ns = nids_unix_now_ns();
#endif
    alert.generation = set.generation;
    alert.family = packet.family;
    alert.proto = packet.proto;
    alert.blocked = matches.any_drop;
    alert.sport = packet.sport;
    alert.dport = packet.dport;
    for (int k = 0; k < 16; ++k) {
      alert.src[k] = packet.src[k];
      alert.dst[k] = packet.dst[k];
    }
    for (uint32_t m = 0; m < matches.count; ++m) {
      alert.rule = matches.rules[m];
      ++counters.value[alerts.push(alert) ? kAlerts : kAlertsLost];
    }
  }
};

}  // namespace gnf::nf
