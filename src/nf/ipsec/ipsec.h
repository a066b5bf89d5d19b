// IPsec ESP per packet, outbound and inbound, host and device from one source: the policy lookup,
// the SA, the sequence number or anti-replay window, the ESP format (esp.h) and the cipher
// (cipher.h), each failure counted by name (counters.h).
//
// Outbound: SPD lookup (bypass: as it is; discard or no policy: dropped), the SA's next sequence
// number (an SA that has sent its last stops, RFC 4303 §3.3.3), encapsulation, seal.
// Inbound: a packet that is not ESP is checked against the inbound SPD (bypass passes it, a
// protect policy means it should have come encrypted: policy mismatch). ESP: SPI lookup, anti-replay
// check before the ICV, ICV check, window update after it, padding and next header checks,
// decapsulation, and the inner packet's policy, which must protect it with this very SA.
//
// Sequence numbers: one SA's packets may come from many rings (inner flows hash apart), so the
// counter is taken with an atomic add, on the CPU and the GPU alike: each number is given once and
// numbers only grow, but packets of one SA that leave through different rings or bursts may reach
// the wire out of the order of their numbers; the receiver's window (at least 64) absorbs that.
#pragma once
#include <cstdint>
#include <type_traits>

#include "nf/ipsec/cipher.h"
#include "nf/ipsec/counters.h"
#include "nf/ipsec/esp.h"
#include "nf/ipsec/replay.h"
#include "nf/ipsec/sa.h"
#include "nf/ipsec/spd.h"
#include "util/hd.h"

namespace gnf::nf {

// What the per-packet code reads (tables) and writes (sequence counters, windows): trivially
// copyable; the tables.h owner makes it for host memory, a device owner for GPU memory.
struct IpsecView {
  const IpsecSa* sas;
  uint32_t sa_count;
  const uint32_t* in_spis;  // the inbound SAs' SPIs, ascending; in_sas[i] is the index of in_spis[i]'s SA
  const uint32_t* in_sas;
  uint32_t in_count;
  SpdView out_spd;
  SpdView in_spd;
  uint64_t* sequences;      // per SA: the last sequence number given (outbound SAs)
  ReplayWindow* windows;    // per SA (inbound SAs)
};

// Passed to kernels by value, as the other NFs' views are.
static_assert(std::is_trivially_copyable_v<IpsecView>);

inline constexpr uint32_t kIpsecNoSa = 0xFFFFFFFFu;

GNF_INLINE uint32_t ipsec_inbound_sa(const IpsecView& v, uint32_t spi) {
  uint32_t first = 0, count = v.in_count;
  while (count > 0) {
    const uint32_t half = count / 2;
    if (v.in_spis[first + half] < spi) {
      first += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  return first < v.in_count && v.in_spis[first] == spi ? v.in_sas[first] : kIpsecNoSa;
}

// The SA's next sequence number, or 0 once it has given its last.
GNF_INLINE uint64_t ipsec_take_sequence(uint64_t* counter, bool esn) {
#if defined(__CUDA_ARCH__)
  const uint64_t seq = atomicAdd(reinterpret_cast<unsigned long long*>(counter), 1ull) + 1;
#else
  const uint64_t seq = __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
#endif
  return seq <= esp_last_sequence(esn) ? seq : 0;
}

// Outbound up to the cipher: kIpsecGoOn with the frame encapsulated around `job`, whose payload
// is then to be sealed under SA `sa_index`; any other counter ends the frame (ipsec_outbound).
GNF_HD inline IpsecCounter ipsec_outbound_prepare(const IpsecView& v, uint8_t*& data, uint32_t& len, FrameRoom room,
                                                  uint32_t& sa_index, EspCryptoJob& job) {
  sa_index = kIpsecNoSa;
  EspIp ip;
  if (!esp_parse_frame(data, len, ip)) return kIpsecDropBadHeader;
  const SpdEntry policy = spd_lookup(v.out_spd, data + net::kEthHeaderBytes, ip);
  if (policy.action == SpAction::Bypass) return kIpsecBypassed;
  if (policy.action == SpAction::Discard) return kIpsecDropDiscard;
  sa_index = policy.sa;
  const IpsecSa& sa = v.sas[policy.sa];
  const uint64_t seq = ipsec_take_sequence(&v.sequences[policy.sa], sa.esn);
  if (seq == 0) return kIpsecDropSequenceOverflow;
  return esp_encapsulate(sa, seq, ip, data, len, room, job);
}

// One frame from the protected side: `data`/`len` are updated to the frame to send. Returns the
// counter to count it under: kIpsecOutProtected or kIpsecBypassed to forward it, else a drop.
// `sa_index` is the SA that took it (per-SA counters), or kIpsecNoSa when none did.
template <typename Cipher>
GNF_HD IpsecCounter ipsec_outbound(const IpsecView& v, Cipher& cipher, uint8_t*& data, uint32_t& len,
                                   FrameRoom room, uint32_t& sa_index) {
  EspCryptoJob job;
  const IpsecCounter c = ipsec_outbound_prepare(v, data, len, room, sa_index, job);
  if (c != kIpsecGoOn) return c;
  return cipher.seal(sa_index, v.sas[sa_index], job) ? kIpsecOutProtected : kIpsecDropCryptoError;
}

// Inbound up to the cipher: kIpsecGoOn with `job` (its sequence number inferred and inside the
// window) to be opened under SA `sa_index`, and the outer header in `ip` for ipsec_inbound_finish;
// any other counter ends the frame.
GNF_HD inline IpsecCounter ipsec_inbound_prepare(const IpsecView& v, uint8_t* data, uint32_t len, uint32_t& sa_index,
                                                 EspCryptoJob& job, EspIp& ip) {
  sa_index = kIpsecNoSa;
  if (!esp_parse_frame(data, len, ip)) return kIpsecDropBadHeader;
  uint8_t* ip_start = data + net::kEthHeaderBytes;
  if (ip.proto != kIpProtoEsp) {
    const SpdEntry policy = spd_lookup(v.in_spd, ip_start, ip);
    return policy.action == SpAction::Bypass    ? kIpsecBypassed
           : policy.action == SpAction::Protect ? kIpsecDropPolicyMismatch
                                                : kIpsecDropDiscard;
  }
  // RFC 4303 §3.4.1: ESP is processed on whole packets; gnf does not reassemble.
  if (ip.family == 4 && (wire::load_be16(ip_start + 6) & (net::kIpv4MoreFragments | net::kIpv4FragOffsetMask)))
    return kIpsecDropBadHeader;
  if (ip.length - ip.header_bytes < kEspHeaderBytes) return kIpsecDropTruncated;
  const uint8_t* esp = ip_start + ip.header_bytes;
  sa_index = ipsec_inbound_sa(v, wire::load_be32(esp));
  if (sa_index == kIpsecNoSa) return kIpsecDropUnknownSpi;
  const IpsecSa& sa = v.sas[sa_index];
  const IpsecCounter layout = esp_locate(sa, ip, ip_start, job);
  if (layout != kIpsecGoOn) return layout;

  ReplayWindow& window = v.windows[sa_index];
  job.seq = replay_infer_sequence(window, sa.replay_window, sa.esn, wire::load_be32(esp + 4));
  const ReplayVerdict replay = replay_check(window, sa.replay_window, job.seq);
  if (replay == ReplayVerdict::Replayed) return kIpsecDropReplayed;
  if (replay == ReplayVerdict::OutsideWindow) return kIpsecDropOutsideWindow;
  return kIpsecGoOn;
}

// Inbound after the ICV was good and the payload decrypted: the window moves, then decapsulation
// and the inner policy check. `data`/`len` are updated to the decapsulated frame.
GNF_HD inline IpsecCounter ipsec_inbound_finish(const IpsecView& v, uint32_t sa_index, const EspIp& ip,
                                                const EspCryptoJob& job, uint8_t*& data, uint32_t& len) {
  const IpsecSa& sa = v.sas[sa_index];
  const ReplayVerdict replay = replay_accept(v.windows[sa_index], sa.replay_window, job.seq);
  if (replay == ReplayVerdict::Replayed) return kIpsecDropReplayed;
  if (replay == ReplayVerdict::OutsideWindow) return kIpsecDropOutsideWindow;

  EspIp inner;
  const IpsecCounter decap = esp_decapsulate(sa, ip, job, data, len, inner);
  if (decap != kIpsecGoOn) return decap;
  const SpdEntry policy = spd_lookup(v.in_spd, data + net::kEthHeaderBytes, inner);
  if (policy.action != SpAction::Protect || policy.sa != sa_index) return kIpsecDropPolicyMismatch;
  return kIpsecInDecrypted;
}

// One frame from the unprotected side: `data`/`len` are updated to the decapsulated frame. Returns
// kIpsecInDecrypted or kIpsecBypassed to forward it, else a drop; `sa_index` as for outbound.
template <typename Cipher>
GNF_HD IpsecCounter ipsec_inbound(const IpsecView& v, Cipher& cipher, uint8_t*& data, uint32_t& len,
                                  uint32_t& sa_index) {
  EspCryptoJob job;
  EspIp ip;
  const IpsecCounter c = ipsec_inbound_prepare(v, data, len, sa_index, job, ip);
  if (c != kIpsecGoOn) return c;
  if (!cipher.open(sa_index, v.sas[sa_index], job)) return kIpsecDropIcvMismatch;
  return ipsec_inbound_finish(v, sa_index, ip, job, data, len);
}

// The same, for callers that keep no per-SA counters.
template <typename Cipher>
GNF_HD IpsecCounter ipsec_outbound(const IpsecView& v, Cipher& cipher, uint8_t*& data, uint32_t& len, FrameRoom room) {
  uint32_t sa_index;
  return ipsec_outbound(v, cipher, data, len, room, sa_index);
}
template <typename Cipher>
GNF_HD IpsecCounter ipsec_inbound(const IpsecView& v, Cipher& cipher, uint8_t*& data, uint32_t& len) {
  uint32_t sa_index;
  return ipsec_inbound(v, cipher, data, len, sa_index);
}

}  // namespace gnf::nf
