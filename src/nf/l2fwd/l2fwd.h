// l2fwd: forward every frame to a fixed output port (or back out of its input port), optionally
// rewriting its Ethernet addresses. The DPDK l2fwd example's behaviour, as an NF element.
//
// Parameters (config table [[nf]] with type = "l2fwd"):
//   mode   = "pairs"   port 0 <-> 1, 2 <-> 3, ... (DPDK l2fwd); the default with 2+ ports
//            "reflect" out of the port it came in on; the default with one port
//            "to"      every frame to port `to_port`
//   to_port = N        with mode = "to"
//   mac    = "none"    leave the addresses alone (default)
//            "swap"    swap source and destination
//            "rewrite" source = the output port's MAC, destination = 02:00:00:00:00:<out port>
//                      (as DPDK l2fwd's --mac-updating does)
#pragma once
#include <cstdint>

#include "nf/context.h"
#include "nf/packet.h"
#include "nf/params.h"
#include "util/hd.h"

namespace gnf::nf {

struct L2FwdView {
  enum class MacMode : uint8_t { None, Swap, Rewrite };
  enum Counter { kForwarded, kMalformed, kCounterCount };
  static constexpr const char* kCounterNames[kCounterCount] = {"forwarded", "malformed"};

  uint16_t out_port[kMaxPorts];
  MacMode mac_mode;
  uint8_t src_mac[kMaxPorts][6];  // per output port
  uint8_t dst_mac[kMaxPorts][6];  // per output port

  GNF_HD void process(PacketBatch& batch, NfCounters& counters) const {
    for (uint32_t i = 0; i < batch.count; ++i) {
      PacketRef& p = batch.packets[i];
      if (p.verdict != Verdict::Forward) continue;
      // Too short for an Ethernet header: nothing to forward by. Count and drop.
      if (p.len < 14 || p.in_port >= kMaxPorts) {
        p.verdict = Verdict::Drop;
        ++counters.value[kMalformed];
        continue;
      }
      p.out_port = out_port[p.in_port];
      rewrite_macs(p.data, p.out_port);
      ++counters.value[kForwarded];
    }
  }

 private:
  GNF_HD void rewrite_macs(uint8_t* eth, uint16_t port) const {
    if (mac_mode == MacMode::Swap) {
      for (int b = 0; b < 6; ++b) {
        uint8_t t = eth[b];
        eth[b] = eth[6 + b];
        eth[6 + b] = t;
      }
    } else if (mac_mode == MacMode::Rewrite) {
      for (int b = 0; b < 6; ++b) {
        eth[b] = dst_mac[port][b];
        eth[6 + b] = src_mac[port][b];
      }
    }
  }
};

// Validates the parameters and builds the view. Throws gnf::UserError naming file, line and key.
L2FwdView configure_l2fwd(const Params& params, const NfContext& context);

}  // namespace gnf::nf
