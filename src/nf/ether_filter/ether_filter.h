// ether_filter: sorts frames by EtherType (the outer one; for an 802.1Q-tagged frame the tag's
// own type "vlan" if listed, else the one behind the tag): listed types go to the host's slow path
// or are dropped, everything else passes on unchanged.
// Click's Classifier(12/0806, -) in one element; a router puts it first so that ARP and LLDP
// reach the control plane (the exception ring on the bypass path).
//
// Parameters (config table [[nf]] with type = "ether_filter"):
//   to_host = "arp, 0x88cc"   EtherTypes punted to the host: names (arp, ipv4, ipv6, lldp) or hex
//   drop    = "0x86dd"        EtherTypes dropped
// A type in both lists is an error; at most 8 types per list.
#pragma once
#include <cstdint>

#include "nf/context.h"
#include "nf/packet.h"
#include "nf/params.h"
#include "util/hd.h"

namespace gnf::nf {

struct EtherFilterView {
  enum Counter { kPassed, kToHost, kDropped, kMalformed, kCounterCount };
  static constexpr const char* kCounterNames[kCounterCount] = {"passed", "to_host", "dropped", "malformed"};
  static constexpr int kMaxTypes = 8;

  uint16_t to_host[kMaxTypes];
  uint16_t drop[kMaxTypes];
  uint8_t to_host_count;
  uint8_t drop_count;

  GNF_HD void process(PacketBatch& batch, NfCounters& counters) const {
    for (uint32_t i = 0; i < batch.count; ++i) {
      PacketRef& p = batch.packets[i];
      if (p.verdict != Verdict::Forward) continue;
      if (p.len < 14) {
        p.verdict = Verdict::Drop;
        ++counters.value[kMalformed];
        continue;
      }
      uint16_t type = read_be16(p.data + 12);
      // A listed "vlan" (0x8100) is every single-tagged frame, whatever it carries; otherwise a
      // tagged frame is sorted by the type behind its tag.
      if (type == kVlanTpid && !listed(to_host, to_host_count, type) && !listed(drop, drop_count, type)) {
        if (p.len < 18) {
          p.verdict = Verdict::Drop;
          ++counters.value[kMalformed];
          continue;
        }
        type = read_be16(p.data + 16);
      }
      if (listed(to_host, to_host_count, type)) {
        p.verdict = Verdict::ToHost;
        p.reason = HostReason::Filtered;
        ++counters.value[kToHost];
      } else if (listed(drop, drop_count, type)) {
        p.verdict = Verdict::Drop;
        ++counters.value[kDropped];
      } else {
        ++counters.value[kPassed];
      }
    }
  }

 private:
  static constexpr uint16_t kVlanTpid = 0x8100;
  GNF_HD static uint16_t read_be16(const uint8_t* at) { return uint16_t(at[0] << 8 | at[1]); }
  GNF_HD static bool listed(const uint16_t* types, uint8_t count, uint16_t type) {
    for (uint8_t k = 0; k < count; ++k)
      if (types[k] == type) return true;
    return false;
  }
};

// Validates the parameters and builds the view. Throws gnf::UserError naming file, line and key.
EtherFilterView configure_ether_filter(const Params& params, const NfContext& context);

}  // namespace gnf::nf
