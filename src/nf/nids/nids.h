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
#include "nf/tile.cuh"
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
        count_uninspected(frame, counters);
        continue;
      }
      nids_detail::DistinctPatterns found;
      nids_scan(set.dfa, packet.payload, packet.payload_len, found);
      judge(set, packet, found, p, counters);
    }
  }

#if defined(__CUDACC__)
  // On a GPU a packet runs on a tile (nf/tile.cuh): each lane scans a piece of the payload
  // (nids_scan_piece), and the leader gathers the distinct patterns and judges the packet as
  // process() does. A 1500 B payload on 32 lanes is ~80 DFA steps a lane instead of 1,460.
  static constexpr bool kTiled = true;
  __device__ void process_tile(PacketRef& p, NfCounters& counters, const Tile& tile) const {
    if (p.verdict != Verdict::Forward) return;
    // Every lane acquires the rules itself, and all must hold one version: a swap published
    // between two lanes' loads would split the tile, so they load again until they agree.
    const NidsRuleSetView* set;
    do {
      set = &rule_set.load();
    } while (tile.any(tile.from(0, reinterpret_cast<unsigned long long>(set)) != reinterpret_cast<unsigned long long>(set)));
    NidsPacket packet;  // every lane parses the same bytes to the same answer
    const NidsFrame frame = nids_packet(p.data, p.len, packet);
    if (frame != NidsFrame::Ip) {
      if (tile.leader()) count_uninspected(frame, counters);
      return;
    }
    nids_detail::DistinctPatterns found;
    nids_scan_piece(set->dfa, packet.payload, packet.payload_len, tile.lane, tile.size, found);
    gather(found, tile);
    if (tile.leader()) judge(*set, packet, found, p, counters);
  }
#endif

 private:
  GNF_HD static void count_uninspected(NidsFrame frame, NfCounters& counters) {
    ++counters.value[frame == NidsFrame::NotIp ? kNotIp : kMalformed];
  }

  // Verdict, counters and alerts of a packet whose payload holds the patterns `found`.
  GNF_HD void judge(const NidsRuleSetView& set, const NidsPacket& packet, const nids_detail::DistinctPatterns& found,
                    PacketRef& p, NfCounters& counters) const {
    NidsMatches matches;
    nids_evaluate_found(set, packet, found, matches);
    counters.value[kPatternOverflow] += matches.pattern_overflow;
    counters.value[kVerifyLimit] += matches.verify_limit;
    if (matches.any_pass) {
      ++counters.value[kPassed];
      return;
    }
    if (matches.count == 0) {
      ++counters.value[kClean];
      return;
    }
    ++counters.value[matches.any_drop ? kDropped : kAlerted];
    if (matches.any_drop) p.verdict = Verdict::Drop;
    counters.value[kAlertsOverLimit] += matches.over_limit;
    emit(set, packet, matches, counters);
  }

#if defined(__CUDACC__)
  // The lanes' distinct patterns, gathered into the leader's `found`: the set a scan of the whole
  // payload finds, since each occurrence lies in one lane's piece. Clean payloads cost two shuffles.
  __device__ static void gather(nids_detail::DistinctPatterns& found, const Tile& tile) {
    constexpr uint32_t kNone = UINT32_MAX;
    const bool overflow = tile.any(found.overflow);
    const uint32_t most = tile.max(found.count);
    for (uint32_t j = 0; j < most; ++j) {
      const uint32_t mine = j < found.count ? found.ids[j] : kNone;
      for (uint32_t lane = 1; lane < tile.size; ++lane) {
        const uint32_t id = tile.from(lane, mine);
        if (tile.leader() && id != kNone) found(id, 0);
      }
    }
    found.overflow |= overflow;
  }
#endif

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
