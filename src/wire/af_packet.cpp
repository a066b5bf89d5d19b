#include "wire/af_packet.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include "util/clock.h"
#include "util/error.h"
#include "wire/bytes.h"
#include "wire/gso.h"
#include "wire/offload.h"

namespace gnf::wire {

namespace {

// TPACKET_V2 for both rings. V3 batches rx into blocks that reach user space only when full or
// when their retire timer (milliseconds) fires: at a ping's rate every frame would wait for the
// timer, and gnf measures latency in microseconds. V2 gives each frame its own status word, handed
// over the moment the kernel has written it; what V3 saves (variable-size frames packed in blocks,
// fewer status words) matters at rates one veth or NIC queue through one socket does not reach.
//
// Both rings carry a struct virtio_net_hdr before each frame (PACKET_VNET_HDR): on rx the kernel's
// offload metadata (a checksum left partial, a TSO/GRO super-frame and its segment size), which gnf
// acts on as the NIC at the far end of the cable would (wire/gso.h); on tx a zero header, "nothing
// to do", since what gnf sends is finished, or, for consecutive TCP segments of one flow that gnf
// made back into a super-frame (SuperFrameBuilder), TSO metadata: the kernel carries it whole to
// the peer's stack, as it does between two veths, instead of 45 frames. (linux/virtio_net.h itself does not compile as C++: a
// member named `class`; wire/gso.h reads the header's 10 bytes.)
// Slots of both rings hold a whole super-frame (an IPv4 packet of 64 KB behind a tagged Ethernet
// header), so they are few: 1 MiB blocks (15 slots each), 32 MiB a ring. A slot per frame
// (TPACKET_V2) wastes most of a big slot on a small frame; a ring is sized by memory, not frames.
constexpr uint32_t kMaxGsoFrameBytes = 18 + 65535;
constexpr uint32_t kBlockBytes = 1u << 20;
constexpr uint32_t kRingBytes = 32u << 20;
// Where the kernel puts the frame in an rx slot: after the tpacket2_hdr and a sockaddr_ll, with the
// network header aligned to 16 (tpacket_rcv's macoff/netoff), and the virtio_net_hdr right before
// it. This much of a slot is not frame.
constexpr uint32_t kRxSlotOverhead = TPACKET_ALIGN(TPACKET2_HDRLEN + 16) + VnetHeader::kBytes;
// Where a tx slot's virtio_net_hdr starts (no PACKET_TX_HAS_OFF): right after the header; the frame follows it.
constexpr uint32_t kTxDataOffset = TPACKET2_HDRLEN - sizeof(sockaddr_ll);

uint32_t rx_slot_bytes(uint32_t max_frame) {
  return TPACKET_ALIGN(std::max(max_frame, kMaxGsoFrameBytes) + kRxSlotOverhead);
}
uint32_t tx_slot_bytes(uint32_t max_frame) {
  return TPACKET_ALIGN(std::max(max_frame, kMaxGsoFrameBytes) + kTxDataOffset + VnetHeader::kBytes);
}
tpacket_req ring_request(uint32_t slot) {
  uint32_t per_block = kBlockBytes / slot, blocks = kRingBytes / kBlockBytes;
  return tpacket_req{kBlockBytes, blocks, slot, blocks * per_block};
}

// The status word is how the kernel and gnf hand a slot to each other; it is the only field
// either side polls. The kernel writes a frame and then its status (smp_wmb before the store in
// __packet_set_status), and reads the status before the frame it asks for, so:
//  - acquire on loading it: the frame's bytes are read only after the status says they are ours;
//  - release on storing it: our reads of an rx frame (or writes of a tx frame) are done before the
//    kernel can see the slot as its own again.
uint32_t load_status(tpacket2_hdr* h) {
  return std::atomic_ref<uint32_t>(h->tp_status).load(std::memory_order_acquire);
}
void store_status(tpacket2_hdr* h, uint32_t status) {
  std::atomic_ref<uint32_t>(h->tp_status).store(status, std::memory_order_release);
}

// What the constructor made is undone even when a later step throws.
struct Socket {
  int fd = -1;
  Socket() = default;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};
struct Mapping {
  uint8_t* base = nullptr;
  size_t bytes = 0;
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (base) munmap(base, bytes);
  }
};

// The slots of a ring, block after block; a block's tail that holds no whole slot is skipped.
struct Ring {
  uint8_t* base = nullptr;
  uint32_t slot = 0, per_block = 1, block = 0, frames = 0;
  uint32_t next = 0;  // the slot gnf looks at next
  tpacket2_hdr* at(uint32_t i) const {
    return reinterpret_cast<tpacket2_hdr*>(base + size_t(i / per_block) * block + size_t(i % per_block) * slot);
  }
  tpacket2_hdr* current() const { return at(next); }
  void advance() { next = (next + 1) % frames; }
};

class AfPacketLink final : public Link {
 public:
  AfPacketLink(const LinkOptions& options, const InterfaceInfo& interface);

  Next next(Frame& out) override;
  void deliver(const uint8_t* data, uint32_t len, uint64_t time_ns) override;
  void flush() override;

 private:
  uint64_t kernel_rx_drops() const override;
  [[noreturn]] void fail(const char* step) const;
  void set_option(int name, const void* value, socklen_t len, const char* step);
  bool restore_vlan_tag(tpacket2_hdr* h, uint8_t*& frame, uint32_t& len);
  // What becomes of a slot's frame: handed out from the slot, handed out as copies (its segments;
  // the slot can go back at once), or dropped.
  enum class Taken { InSlot, Copied, Dropped };
  Taken take(tpacket2_hdr* h, Frame& out);
  bool next_segment(Frame& out);
  void hand_out(uint8_t* frame, uint32_t len, Frame& out);
  // The next tx slot if the kernel has given it back; else counts `frames` as dropped for it.
  tpacket2_hdr* free_tx_slot(uint32_t frames);
  void queue_tx(tpacket2_hdr* h, uint32_t bytes_with_header, uint32_t frames, uint64_t frame_bytes);
  void queue_super_frame();

  InterfaceInfo interface_;
  Socket socket_;
  Mapping map_;
  Ring rx_ring_, tx_ring_;
  bool holding_rx_ = false;      // the frame handed out last still sits in rx_ring_.current()
  GsoSegments segments_;         // a super-frame's segments, handed out one per next() ...
  size_t next_segment_ = 0;      // ... from this one on
  SuperFrameBuilder super_frame_;  // consecutive TCP segments not yet queued ...
  uint64_t super_frame_bytes_ = 0;  // ... and their bytes as the port sent them
  bool tx_unsent_ = false;       // frames queued that the kernel has not taken yet
  uint32_t tx_last_queued_ = 0;  // slot of the newest queued frame
  mutable std::mutex drops_mutex_;
  mutable uint64_t drops_ = 0;  // PACKET_STATISTICS resets on each read: the sum so far
};

AfPacketLink::AfPacketLink(const LinkOptions& options, const InterfaceInfo& interface)
    : Link("af_packet", options),
      interface_(interface),
      super_frame_(tx_slot_bytes(options.max_frame_bytes) - kTxDataOffset - VnetHeader::kBytes) {
  set_mode("TPACKET_V2 rx and tx rings, qdisc bypassed, virtio_net_hdr: rx checksums and GSO done by gnf, tx TCP "
           "segments as TSO super-frames");
  // Protocol 0: the socket receives nothing until bind() names the interface, so no frame of
  // another interface lands in the ring first.
  socket_.fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
  if (socket_.fd < 0) fail("socket(AF_PACKET)");
  int version = TPACKET_V2;
  set_option(PACKET_VERSION, &version, sizeof(version), "PACKET_VERSION");
  int vnet = 1;  // before the rings: their layout depends on it
  set_option(PACKET_VNET_HDR, &vnet, sizeof(vnet), "PACKET_VNET_HDR");
  // Without this a frame the kernel will not send (say, larger than the MTU) stops the whole tx
  // ring at its slot for good; with it the kernel skips the frame. deliver() keeps such frames
  // out and counts them, so this is the guard behind that check.
  int loss = 1;
  set_option(PACKET_LOSS, &loss, sizeof(loss), "PACKET_LOSS");
  // Straight to the driver, as a NIC's own transmit would be: no qdisc, and no copy of each frame
  // to the interface's packet taps (tcpdump on this interface does not see what gnf sends; on the
  // veth peer it does).
  int bypass = 1;
  set_option(PACKET_QDISC_BYPASS, &bypass, sizeof(bypass), "PACKET_QDISC_BYPASS");

  tpacket_req rx_req = ring_request(rx_slot_bytes(options.max_frame_bytes));
  tpacket_req tx_req = ring_request(tx_slot_bytes(options.max_frame_bytes));
  set_option(PACKET_RX_RING, &rx_req, sizeof(rx_req), "PACKET_RX_RING");
  set_option(PACKET_TX_RING, &tx_req, sizeof(tx_req), "PACKET_TX_RING");
  // One mapping, rx ring first, then tx ring (packet_mmap's layout).
  size_t rx_bytes = size_t(rx_req.tp_block_size) * rx_req.tp_block_nr;
  size_t tx_bytes = size_t(tx_req.tp_block_size) * tx_req.tp_block_nr;
  void* map = mmap(nullptr, rx_bytes + tx_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, socket_.fd, 0);
  if (map == MAP_FAILED) fail("mmap of the rings");
  map_.base = static_cast<uint8_t*>(map);
  map_.bytes = rx_bytes + tx_bytes;
  rx_ring_ = Ring{map_.base, rx_req.tp_frame_size, kBlockBytes / rx_req.tp_frame_size, kBlockBytes, rx_req.tp_frame_nr};
  tx_ring_ = Ring{map_.base + rx_bytes, tx_req.tp_frame_size, kBlockBytes / tx_req.tp_frame_size, kBlockBytes,
                  tx_req.tp_frame_nr};

  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(ETH_P_ALL);
  addr.sll_ifindex = int(interface_.index);
  if (bind(socket_.fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) fail("bind");
  // Every frame on the cable, not only those addressed to the interface; dropped with the socket.
  packet_mreq promisc{};
  promisc.mr_ifindex = int(interface_.index);
  promisc.mr_type = PACKET_MR_PROMISC;
  set_option(PACKET_ADD_MEMBERSHIP, &promisc, sizeof(promisc), "PACKET_ADD_MEMBERSHIP (promiscuous mode)");
}

void AfPacketLink::fail(const char* step) const {
  int err = errno;
  throw UserError(fmt::format("AF_PACKET on {}: {}: {}", link_where(options()), step, std::strerror(err)));
}

void AfPacketLink::set_option(int name, const void* value, socklen_t len, const char* step) {
  if (setsockopt(socket_.fd, SOL_PACKET, name, value, len) != 0) fail(step);
}

// The kernel takes an 802.1Q/802.1ad tag out of the frame before packet sockets see it and reports
// it beside the frame. The port must see the frame as the cable carried it, so the tag goes back
// in: the MAC addresses move 4 bytes towards the slot's header (the kernel leaves more than that
// free before the frame) and the tag fills the gap.
bool AfPacketLink::restore_vlan_tag(tpacket2_hdr* h, uint8_t*& frame, uint32_t& len) {
  if (!(h->tp_status & TP_STATUS_VLAN_VALID)) return true;
  constexpr uint32_t kMacs = 12, kTag = 4;
  if (h->tp_mac < TPACKET2_HDRLEN + kTag || len < kMacs) return false;
  uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) ? h->tp_vlan_tpid : ETH_P_8021Q;
  std::memmove(frame - kTag, frame, kMacs);
  frame -= kTag;
  store_be16(frame + kMacs, tpid);
  store_be16(frame + kMacs + 2, h->tp_vlan_tci);
  len += kTag;
  return true;
}

Next AfPacketLink::next(Frame& out) {
  if (holding_rx_) {
    store_status(rx_ring_.current(), TP_STATUS_KERNEL);
    rx_ring_.advance();
    holding_rx_ = false;
  }
  if (next_segment(out)) return Next::Frame;
  for (;;) {
    tpacket2_hdr* h = rx_ring_.current();
    if (!(load_status(h) & TP_STATUS_USER)) return Next::Later;
    Taken taken = take(h, out);
    if (taken == Taken::InSlot) {
      holding_rx_ = true;  // the slot is ours until the next call
      return Next::Frame;
    }
    store_status(h, TP_STATUS_KERNEL);
    rx_ring_.advance();
    if (taken == Taken::Copied) return Next::Frame;
  }
}

AfPacketLink::Taken AfPacketLink::take(tpacket2_hdr* h, Frame& out) {
  const auto* from = reinterpret_cast<const sockaddr_ll*>(reinterpret_cast<uint8_t*>(h) + TPACKET_ALIGN(sizeof(*h)));
  // Frames the local stack sends out of the interface: not from the cable.
  if (from->sll_pkttype == PACKET_OUTGOING) return Taken::Dropped;
  uint8_t* frame = reinterpret_cast<uint8_t*>(h) + h->tp_mac;
  uint32_t len = h->tp_snaplen;
  // The header sits right before the frame; read it before a restored tag moves the MACs over it.
  VnetHeader vnet;
  bool known = parse_vnet_header(frame - VnetHeader::kBytes, vnet);
  bool tagged = h->tp_status & TP_STATUS_VLAN_VALID;
  if (h->tp_snaplen != h->tp_len || !restore_vlan_tag(h, frame, len)) {
    rx_stats_.truncated.add();
    return Taken::Dropped;
  }
  if (!known) {
    rx_stats_.bad_offload.add();
    return Taken::Dropped;
  }
  // The kernel counts csum_start from the frame it saw, without the tag it took out.
  if (tagged) vnet.csum_start = uint16_t(vnet.csum_start + 4);
  if (vnet.gso != VnetHeader::Gso::None) {
    GsoResult result = gso_segment(frame, len, vnet, segments_);
    if (result != GsoResult::Ok) {
      rx_stats_.bad_offload.add();
      return Taken::Dropped;
    }
    rx_stats_.gso_frames.add();
    rx_stats_.gso_segments.add(segments_.frames.size());
    // Every segment but the last is the largest: if it does not fit the port, none is handed on.
    if (segments_.frames[0].len > options().max_frame_bytes) {
      rx_stats_.too_big.add();
      segments_.frames.clear();
      return Taken::Dropped;
    }
    next_segment_ = 0;
    next_segment(out);
    return Taken::Copied;
  }
  if (len > options().max_frame_bytes) {
    rx_stats_.too_big.add();
    return Taken::Dropped;
  }
  if (vnet.needs_csum) {
    if (!complete_checksum_at(frame, len, vnet.csum_start, vnet.csum_offset)) {
      rx_stats_.bad_offload.add();
      return Taken::Dropped;
    }
    rx_stats_.csum_completed.add();
  }
  // The slot is ours until released: the frame is finished in place and handed out from there.
  hand_out(frame, len, out);
  return Taken::InSlot;
}

bool AfPacketLink::next_segment(Frame& out) {
  if (next_segment_ >= segments_.frames.size()) return false;
  GsoSegments::Span span = segments_.frames[next_segment_++];
  hand_out(segments_.bytes.data() + span.offset, span.len, out);
  return true;
}

void AfPacketLink::hand_out(uint8_t* frame, uint32_t len, Frame& out) {
  out = Frame{frame, pad_to_minimum(frame, len), now_ns()};
  rx_stats_.frames.add();
  rx_stats_.bytes.add(out.len);
}

void AfPacketLink::deliver(const uint8_t* data, uint32_t len, uint64_t) {
  if (len + kTxDataOffset + VnetHeader::kBytes > tx_ring_.slot || !fits_mtu(data, len, interface_.mtu)) {
    tx_stats_.errors.add();
    return;
  }
  if (!super_frame_.add(data, len)) {
    queue_super_frame();  // what was being built goes first, in order
    if (!super_frame_.add(data, len)) {
      tpacket2_hdr* h = free_tx_slot(1);
      if (!h) return;
      uint8_t* slot = reinterpret_cast<uint8_t*>(h) + kTxDataOffset;
      std::memset(slot, 0, VnetHeader::kBytes);  // no offload asked for: the frame is finished
      std::memcpy(slot + VnetHeader::kBytes, data, len);
      queue_tx(h, len + VnetHeader::kBytes, 1, len);
      return;
    }
  }
  super_frame_bytes_ += len;
}

tpacket2_hdr* AfPacketLink::free_tx_slot(uint32_t frames) {
  tpacket2_hdr* h = tx_ring_.current();
  if (load_status(h) == TP_STATUS_AVAILABLE) return h;
  tx_stats_.ring_full.add(frames);  // the kernel still owns the slot: it has not sent the frame a ring ago
  return nullptr;
}

void AfPacketLink::queue_tx(tpacket2_hdr* h, uint32_t bytes_with_header, uint32_t frames, uint64_t frame_bytes) {
  h->tp_len = bytes_with_header;
  store_status(h, TP_STATUS_SEND_REQUEST);
  tx_last_queued_ = tx_ring_.next;
  tx_ring_.advance();
  tx_unsent_ = true;
  tx_stats_.frames.add(frames);
  tx_stats_.bytes.add(frame_bytes);
}

void AfPacketLink::queue_super_frame() {
  uint32_t frames = super_frame_.segments();
  if (frames == 0) return;
  uint64_t bytes = std::exchange(super_frame_bytes_, 0);
  tpacket2_hdr* h = free_tx_slot(frames);
  if (!h) {
    super_frame_.clear();
    return;
  }
  uint32_t written = super_frame_.finish(reinterpret_cast<uint8_t*>(h) + kTxDataOffset);
  queue_tx(h, written, frames, bytes);
  if (frames > 1) {
    tx_stats_.gso_frames.add();
    tx_stats_.gso_segments.add(frames);
  }
}

void AfPacketLink::flush() {
  queue_super_frame();
  if (!tx_unsent_) return;
  // One send() hands the kernel every slot marked SEND_REQUEST, in ring order. It may stop early
  // (socket send buffer full: EAGAIN/ENOBUFS); what it left keeps its status for the next round.
  if (sendto(socket_.fd, nullptr, 0, MSG_DONTWAIT, nullptr, 0) < 0 && errno != EAGAIN && errno != ENOBUFS)
    tx_stats_.send_errors.add();
  tx_unsent_ = load_status(tx_ring_.at(tx_last_queued_)) == TP_STATUS_SEND_REQUEST;
}

uint64_t AfPacketLink::kernel_rx_drops() const {
  tpacket_stats stats{};
  socklen_t len = sizeof(stats);
  std::lock_guard lock(drops_mutex_);
  if (getsockopt(socket_.fd, SOL_PACKET, PACKET_STATISTICS, &stats, &len) == 0) drops_ += stats.tp_drops;
  return drops_;
}

}  // namespace

std::unique_ptr<Link> open_af_packet(const LinkOptions& options, const InterfaceInfo& interface) {
  return std::make_unique<AfPacketLink>(options, interface);
}

}  // namespace gnf::wire
