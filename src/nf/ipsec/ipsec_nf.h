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
// The cipher: on the cpu path the libraries' (host_cipher.h: intel-ipsec-mb's or OpenSSL's), one
// keyed set per plane, fed a burst at a time (process_in_bursts); on the GPU
// paths gnf's own (device_cipher.h), over the owner's GPU copies of the keys and tables
// (IpsecGateway::device_view). Both run the same per-packet templates. In the drivers' kernels the
// AES tables are read from global memory through L1, not staged into shared memory as the cipher's
// own kernel does: the NF runs inside the drivers' kernels, a thread per packet, where no barrier
// of the whole block can be placed before the first lookup.
#pragma once
#include <cstdint>

#include "nf/ipsec/device_cipher.h"
#include "nf/ipsec/ipsec.h"
#include "nf/ipsec/ipsec_burst_job.h"
#include "nf/packet.h"
#include "sync/ordering.h"
#include "util/hd.h"

namespace gnf::nf {

class HostEspCipher;
struct IpsecNfView;

// The host's process(): the CPU libraries are host code, kept out of the device build.
void ipsec_process_on_host(const IpsecNfView& view, PacketBatch& batch, NfCounters& counters);

GNF_INLINE bool ipsec_forwards(IpsecCounter c) {
  return c == kIpsecOutProtected || c == kIpsecInDecrypted || c == kIpsecBypassed;
}

struct IpsecNfView {
  static constexpr uint32_t kCounterCount = kIpsecCounterCount;
  static constexpr const char* const (&kCounterNames)[kIpsecCounterCount] = kIpsecCounterNames;

  // The tables' view is held by the owner, in the memory of the side that reads it: by value, its
  // two SPDs would make the chain's view outgrow a kernel's parameters.
  const IpsecView* tables;
  unsigned long long* sa_counters;  // per SA, kIpsecCounterCount of them
  HostEspCipher* const* ciphers;  // per plane; the host's
  uint32_t planes;
  uint32_t unprotected_ports;  // bit p set: frames from port p are inbound
  DeviceEspCipher device_cipher;  // over GPU memory in the device view; unused on the host

  // Every packet of `batch` through the gateway with `cipher`.
  template <typename Cipher>
  GNF_HD void process_with(Cipher& cipher, PacketBatch& batch, NfCounters& counters) const {
    for (uint32_t i = 0; i < batch.count; ++i) {
      PacketRef& p = batch.packets[i];
      if (p.verdict != Verdict::Forward) continue;
      uint8_t* data = p.data;
      uint32_t len = p.len, sa = kIpsecNoSa;
      IpsecCounter c = (unprotected_ports >> p.in_port) & 1
                           ? ipsec_inbound(*tables, cipher, data, len, sa)
                           : ipsec_outbound(*tables, cipher, data, len, FrameRoom{p.headroom, p.tailroom}, sa);
      settle(p, data, len, sa, c, counters);
    }
  }

#if defined(__CUDACC__)
  // A packet on a tile (nf/tile.cuh): the leader alone does what happens once per packet (SPD,
  // sequence number, anti-replay window, encapsulation, counters), all the tile's lanes run the
  // cipher (DeviceEspCipher::seal_tile: GCM's blocks dealt out over them). The same bytes and
  // counters as process().
  static constexpr bool kTiled = true;
  __device__ void process_tile(PacketRef& p, NfCounters& counters, const Tile& tile) const {
    if (p.verdict != Verdict::Forward) return;
    const bool inbound = (unprotected_ports >> p.in_port) & 1;
    uint8_t* data = p.data;
    uint32_t len = p.len, sa = kIpsecNoSa;
    EspCryptoJob job{};
    EspIp ip;
    IpsecCounter c = kIpsecGoOn;
    if (tile.leader())
      c = inbound ? ipsec_inbound_prepare(*tables, data, len, sa, job, ip)
                  : ipsec_outbound_prepare(*tables, data, len, FrameRoom{p.headroom, p.tailroom}, sa, job);
    // The leader's writes (the new headers) are in place before the other lanes read the packet.
    __syncwarp(tile.mask);
    if (tile.from(0, uint32_t(c)) == kIpsecGoOn) {
      sa = tile.from(0, sa);
      job.esp = reinterpret_cast<uint8_t*>(tile.from(0, reinterpret_cast<unsigned long long>(job.esp)));
      job.payload = tile.from(0, job.payload);
      job.seq = tile.from(0, static_cast<unsigned long long>(job.seq));
      const IpsecSa& s = tables->sas[sa];
      const bool good = inbound ? device_cipher.open_tile(sa, s, job, tile) : device_cipher.seal_tile(sa, s, job, tile);
      // Every lane's plaintext is in place before the leader reads the trailer to decapsulate.
      __syncwarp(tile.mask);
      if (tile.leader())
        c = !good ? (inbound ? kIpsecDropIcvMismatch : kIpsecDropCryptoError)
                  : inbound ? ipsec_inbound_finish(*tables, sa, ip, job, data, len) : kIpsecOutProtected;
    }
    if (tile.leader()) settle(p, data, len, sa, c, counters);
  }
#endif

  // The host's: the packets of `batch` a chunk of up to kChunk at a time, each prepared (SPD,
  // sequence number, window check, encapsulation), the chunk's crypto in one burst per direction
  // (`cipher.seal_burst`/`open_burst`: intel-ipsec-mb fills its multi-buffer lanes), then each
  // finished and counted. The bytes and counters are process_with's but for one case: a forged
  // copy of a packet earlier in the same chunk passes the window check before the original has
  // moved the window, and is then counted as drop_icv_mismatch instead of drop_replayed.
  template <typename Cipher>
  void process_in_bursts(Cipher& cipher, PacketBatch& batch, NfCounters& counters) const {
    constexpr uint32_t kChunk = 64;
    struct Pending {
      uint32_t packet, sa;
      uint8_t* data;
      uint32_t len;
      IpsecCounter c;
      EspIp ip;
    };
    for (uint32_t first = 0; first < batch.count; first += kChunk) {
      const uint32_t end = batch.count - first < kChunk ? batch.count : first + kChunk;
      Pending pending[kChunk];
      EspBurstJob jobs[2][kChunk];  // outbound, inbound
      uint32_t slot[2][kChunk], count[2] = {0, 0}, n = 0;
      for (uint32_t i = first; i < end; ++i) {
        PacketRef& p = batch.packets[i];
        if (p.verdict != Verdict::Forward) continue;
        Pending& q = pending[n];
        q = Pending{i, kIpsecNoSa, p.data, p.len, kIpsecGoOn, {}};
        const bool inbound = (unprotected_ports >> p.in_port) & 1;
        EspCryptoJob job{};
        q.c = inbound ? ipsec_inbound_prepare(*tables, q.data, q.len, q.sa, job, q.ip)
                      : ipsec_outbound_prepare(*tables, q.data, q.len, FrameRoom{p.headroom, p.tailroom}, q.sa, job);
        if (q.c == kIpsecGoOn) {
          jobs[inbound][count[inbound]] = EspBurstJob{q.sa, job};
          slot[inbound][count[inbound]++] = n;
        }
        ++n;
      }
      bool ok[2][kChunk];
      if (count[0]) cipher.seal_burst(jobs[0], count[0], ok[0]);
      if (count[1]) cipher.open_burst(jobs[1], count[1], ok[1]);
      for (uint32_t k = 0; k < count[0]; ++k)
        pending[slot[0][k]].c = ok[0][k] ? kIpsecOutProtected : kIpsecDropCryptoError;
      for (uint32_t k = 0; k < count[1]; ++k) {
        Pending& q = pending[slot[1][k]];
        q.c = ok[1][k] ? ipsec_inbound_finish(*tables, q.sa, q.ip, jobs[1][k].job, q.data, q.len) : kIpsecDropIcvMismatch;
      }
      for (uint32_t k = 0; k < n; ++k) {
        const Pending& q = pending[k];
        settle(batch.packets[q.packet], q.data, q.len, q.sa, q.c, counters);
      }
    }
  }

  GNF_HD void process(PacketBatch& batch, NfCounters& counters) const {
#if defined(__CUDA_ARCH__)
    process_with(device_cipher, batch, counters);
#else
    ipsec_process_on_host(*this, batch, counters);
#endif
  }

 private:
  // A packet's outcome `c`: the frame becomes data/len, counted (per SA too), dropped unless forwarded.
  GNF_HD void settle(PacketRef& p, uint8_t* data, uint32_t len, uint32_t sa, IpsecCounter c, NfCounters& counters) const {
    if (ipsec_forwards(c) && !packet_reframe(p, data, len)) c = kIpsecDropNoRoom;
    ++counters.value[c];
    if (sa != kIpsecNoSa) add_relaxed(&sa_counters[size_t(sa) * kIpsecCounterCount + c], 1);
    if (!ipsec_forwards(c)) p.verdict = Verdict::Drop;
  }
};

}  // namespace gnf::nf
