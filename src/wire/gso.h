// What a NIC does with the offload metadata a Linux stack hands it beside a frame (struct
// virtio_net_hdr, which a packet socket with PACKET_VNET_HDR puts before each frame): complete a
// checksum the stack left partial, and cut a TCP (or UDP) super-frame of up to 64 KB into
// cable-sized segments (TSO/USO). On a veth the stack's segments cross whole: nothing else in the
// path finishes them, so a link that stands for the NIC at the far end of the cable does.
//
// Pure functions over bytes, no socket: the AF_PACKET link calls them, the unit tests, the scapy
// oracle (tests/oracle/test_gso_vs_scapy.py) and offload_fuzz check them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gnf::wire {

// The fields of a struct virtio_net_hdr (linux/virtio_net.h), as the kernel fills it for a packet
// socket (host byte order; the legacy header, 10 bytes).
struct VnetHeader {
  static constexpr size_t kBytes = 10;
  enum class Gso : uint8_t { None, TcpV4, TcpV6, UdpL4 };
  bool needs_csum = false;  // VIRTIO_NET_HDR_F_NEEDS_CSUM: csum_start/csum_offset are meaningful
  Gso gso = Gso::None;
  uint16_t hdr_len = 0, gso_size = 0, csum_start = 0, csum_offset = 0;
};

// Reads the header at `p` (kBytes). False for a GSO type gnf does not segment (VIRTIO_NET_HDR_GSO_UDP,
// the old UFO, which splits into IP fragments; unknown types). The ECN bit is accepted: segments
// carry the super-frame's CWR on the first only, as TSO does.
bool parse_vnet_header(const uint8_t* p, VnetHeader& out);

// The segments of one super-frame, back to back in `bytes`; frames[i] = {offset, length}.
struct GsoSegments {
  std::vector<uint8_t> bytes;
  struct Span {
    uint32_t offset, len;
  };
  std::vector<Span> frames;
};

enum class GsoResult {
  Ok,
  Malformed,  // headers that do not parse, disagree with the metadata or with the frame's length
  TooMany,    // more than kMaxGsoSegments: a gso_size no stack sends
};
constexpr uint32_t kMaxGsoSegments = 2048;  // 64 KB in Linux's smallest MSS (TCP_MIN_SND_MSS = 48)

// Cuts `frame` (Ethernet, at most one 802.1Q/802.1ad tag, IPv4 or IPv6, TCP or UDP as `vnet.gso`
// says) into segments of at most vnet.gso_size payload bytes each, as a NIC's TSO/USO does:
// every segment carries the headers; IPv4 total length, identification (+1 per segment) and
// header checksum, IPv6 payload length, TCP sequence number (+ payload offset) and UDP length are
// rewritten; FIN and PSH stay only on the last segment, CWR only on the first; each TCP/UDP
// checksum is computed whole (whatever the field held: partial or a GRO'd stale value). Where
// vnet.needs_csum, the transport header starts at csum_start (IPv6 extension headers allowed);
// otherwise right after the IP header. `out` is overwritten.
GsoResult gso_segment(const uint8_t* frame, uint32_t len, const VnetHeader& vnet, GsoSegments& out);

// The other way, for the transmit side: consecutive TCP segments of one flow, as gnf forwards
// them, made back into one super-frame that the kernel carries whole with its GSO metadata (the
// receiving stack then handles one 64 KB packet, as on a direct veth, not 45). Only what the
// segments' own order and headers allow: the same Ethernet, IP and TCP headers but for the fields
// segmentation changes (lengths, IPv4 id + 1 per segment, sequence number following on, PSH on
// the last), every segment but the last the first's size, each with a TCP checksum that verifies
// (a damaged segment is not hidden in a super-frame whose checksum the receiver does not check),
// as does an IPv4 header's.
class SuperFrameBuilder {
 public:
  // The largest super-frame (without the virtio_net_hdr).
  explicit SuperFrameBuilder(uint32_t max_bytes) : max_bytes_(max_bytes) {}
  // Takes `f` into the super-frame being built; false, leaving the builder as it was, if it does
  // not continue it (or, when empty, cannot start one: not TCP over IPv4/IPv6 with a payload).
  bool add(const uint8_t* f, uint32_t len);
  uint32_t segments() const { return segments_; }
  // Writes the virtio_net_hdr and the frame to `out` (room: VnetHeader::kBytes + max_bytes) and
  // empties the builder; returns the bytes written (0, writing nothing, when it is empty). One
  // segment goes as it came, with a header that asks for nothing.
  uint32_t finish(uint8_t* out);
  void clear();

 private:
  std::vector<uint8_t> frame_;
  uint32_t max_bytes_;
  uint32_t segments_ = 0;
  uint32_t l3_ = 0, l4_ = 0, headers_ = 0, mss_ = 0;
  bool v6_ = false, closed_ = false;  // closed: a short or PSH segment ended it
};

}  // namespace gnf::wire
