// Receive-side scaling (RSS) of the 82599 model: Intel 82599 datasheet, section 7.1.2.8.
//
// RSS spreads received packets over receive queues by flow: the NIC hashes a packet's
// addresses (and ports, when the packet type's hash is enabled) with the Toeplitz hash and
// the key in RSSRK (7.1.2.8.1), then uses the hash's 7 least significant bits to pick one of
// the 128 entries of the redirection table RETA, which holds the queue index (7.1.2.8.2).
// Every packet of a flow therefore lands in the same queue, so the core polling that queue
// sees the flow in order without locking.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace gnf::nic {

inline constexpr size_t kRssKeyBytes = 40;       // RSSRK[0..9]: 10 registers of 4 bytes
inline constexpr size_t kRssRetaEntries = 128;   // RETA[0..31]: 4 entries per register
inline constexpr size_t kRssMaxInputBytes = 36;  // IPv6 source + destination + two ports
inline constexpr unsigned kRssMaxQueues = 64;    // what fill_reta_round_robin accepts

// The key of Microsoft's "Verifying the RSS Hash Calculation" page (also DPDK's default key
// for the ixgbe/igb drivers). The published test vectors are computed with it, so a model
// using it by default can be checked against them.
inline constexpr std::array<uint8_t, kRssKeyBytes> kDefaultRssKey = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,  //
    0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,  //
    0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,  //
    0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

// The Toeplitz hash of 7.1.2.8.1: for every bit of `input` that is set (most significant bit
// of input[0] first), XOR in the 32 key bits that start at the same bit position of `key`.
// Key bits past `key_len` count as zero, so any key length is safe; with the 40-byte RSSRK
// key, inputs up to 36 bytes use real key bits throughout.
uint32_t toeplitz_hash(const uint8_t* key, size_t key_len, const uint8_t* input, size_t input_len);

// The software view of RSSRK, the RSS field-enable bits of MRQC and RETA.
//
// Each flag enables one hash type, as MRQC's RSS Field Enable bits do
// (TcpIPv4, IPv4, UdpIPv4, IPv6, TcpIPv6, UdpIPv6). A TCP or UDP packet whose L4 type is
// disabled falls back to the address-only hash of its IP version when that one is enabled.
// The "IPv6Ex" variants (hashing the home address option / routing header addresses) are not
// modelled.
struct RssConfig {
  std::array<uint8_t, kRssKeyBytes> key = kDefaultRssKey;
  bool ipv4 = true;
  bool ipv4_tcp = true;
  bool ipv4_udp = true;
  bool ipv6 = true;
  bool ipv6_tcp = true;
  bool ipv6_udp = true;
  // Redirection table: the queue index for each value of the hash's 7 LSBs. All zeros
  // (everything to queue 0) is RETA's reset value; fill_reta_round_robin spreads the load.
  // Note: the real 82599's RETA entries are 4 bits wide in RSS-only mode (16 queues); the
  // model stores a full byte so that up to 64 queues can be addressed.
  std::array<uint8_t, kRssRetaEntries> reta{};
};

// Sets reta[i] = i % num_queues, the layout drivers program for an even spread.
// Throws std::invalid_argument unless 1 <= num_queues <= 64.
void fill_reta_round_robin(RssConfig& cfg, unsigned num_queues);

// The Toeplitz hash is linear in its input, so it is the XOR of one precomputed value per
// (input byte position, byte value): 36 x 256 words, one lookup per input byte instead of eight
// shift-and-XOR steps. Built once per key (a port's construction).
struct ToeplitzTable {
  explicit ToeplitzTable(const std::array<uint8_t, kRssKeyBytes>& key);
  uint32_t hash(const uint8_t* input, size_t input_len) const {
    uint32_t h = 0;
    for (size_t i = 0; i < input_len; ++i) h ^= table[i][input[i]];
    return h;
  }
  uint32_t table[kRssMaxInputBytes][256];
};

struct RssResult {
  // Which hash was computed; mirrors the RSS Type field of the receive descriptor.
  enum class Type : uint8_t { None, Ipv4, Ipv4Tcp, Ipv4Udp, Ipv6, Ipv6Tcp, Ipv6Udp };
  uint32_t hash = 0;   // 0 when type is None
  uint16_t queue = 0;  // reta[hash & 0x7f], or 0 when type is None
  Type type = Type::None;
};

// Classifies one frame (Ethernet II, no FCS) as the 82599's RSS stage does.
//
// Parsing: at most one 802.1Q (0x8100) or 802.1ad (0x88a8) tag; IPv4 with version 4,
// IHL >= 5 and the whole header inside `len`; IPv6 with up to 4 hop-by-hop, routing or
// destination-options extension headers, each inside `len`. Ports are hashed only for TCP
// and UDP when the first 4 bytes of the L4 header lie inside `len`, the packet is not a
// fragment and the matching hash type is enabled; otherwise the hash covers the addresses
// alone. Input order is Microsoft's: source address, destination address, source port,
// destination port, all in network byte order as they appear in the packet.
//
// Frames that are not IP, are malformed, or whose hash type is disabled get no hash and go
// to queue 0 (7.1.2.8: packets that RSS does not apply to use the default queue).
//
// Never reads outside [frame, frame + len), whatever the bytes are.
RssResult rss_classify(const RssConfig& cfg, const uint8_t* frame, uint32_t len);
// The same with the hash taken from `table`, which must have been built from cfg.key.
RssResult rss_classify(const RssConfig& cfg, const ToeplitzTable& table, const uint8_t* frame, uint32_t len);

}  // namespace gnf::nic
