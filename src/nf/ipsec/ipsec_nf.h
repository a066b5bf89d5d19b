// ipsec: an IPsec ESP gateway as one NF element, the way DPDK's ipsec-secgw is one: frames that
// arrive on a protected port go out through the outbound SPD (protect: encrypted and encapsulated
// by their SA; bypass: in the clear; discard or no policy: dropped), frames that arrive on an
// unprotected port (ipsec-secgw's -u ports) come in through the inbound SAs and SPD (ESP decrypted
// and decapsulated; clear traffic only where a bypass policy lets it). Routing is the next
// element's business: chain `ipsec` before `l3fwd`, which routes the outer packet after
// encapsulation and the inner one after decapsulation.
//
// The per-packet work is nf/ipsec/ipsec.h's. A frame grows into its slot's headroom (`[driver]
// headroom`), and shrinks in place; one whose slot has not the room is dropped as drop_no_room.
// Every outcome is counted by name (the NF's counters, counters.h), and per SA in the owner's
// table (ipsec_gateway.h), with relaxed atomic adds shared by every plane.
//
// The cipher is OpenSSL's (openssl_cipher.h), one keyed set per plane: the chain runs on the CPU
// only. The GPU paths are refused when the chain is configured until a device cipher lands
// (cipher.h's interface); the device build of process() is therefore never run.
#pragma once
#include <cstdint>

#include "nf/ipsec/ipsec.h"
#include "nf/packet.h"
#include "util/hd.h"

namespace gnf::nf {

class OpensslEspCipher;
struct IpsecNfView;

// The host's process(): OpenSSL is host code, kept out of the device build.
void ipsec_process_on_host(const IpsecNfView& view, PacketBatch& batch, NfCounters& counters);

struct IpsecNfView {
  static constexpr uint32_t kCounterCount = kIpsecCounterCount;
  static constexpr const char* const (&kCounterNames)[kIpsecCounterCount] = kIpsecCounterNames;

  // The tables' view is held by the owner: by value, its two SPDs would make the chain's view
  // outgrow a kernel's parameters.
  const IpsecView* tables;
  unsigned long long* sa_counters;  // per SA, kIpsecCounterCount of them
  OpensslEspCipher* const* ciphers;  // per plane
  uint32_t planes;
  uint32_t unprotected_ports;  // bit p set: frames from port p are inbound

  GNF_HD void process(PacketBatch& batch, NfCounters& counters) const {
#if defined(__CUDA_ARCH__)
    // Unreachable (see above); should it ever run, nothing leaves unencrypted or undecrypted.
    for (uint32_t i = 0; i < batch.count; ++i) {
      PacketRef& p = batch.packets[i];
      if (p.verdict != Verdict::Forward) continue;
      ++counters.value[kIpsecDropCryptoError];
      p.verdict = Verdict::Drop;
    }
#else
    ipsec_process_on_host(*this, batch, counters);
#endif
  }
};

}  // namespace gnf::nf
