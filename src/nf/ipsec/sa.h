// Security associations (RFC 4301 §4.4.2) as the ESP code reads them: plain, trivially copyable
// data for CPU code and CUDA kernels alike. The text that describes them (ipsec-secgw's `sa`
// lines) is parsed in config_file.h; the keys' schedules live with the cipher (cipher.h).
#pragma once
#include <cstdint>
#include <type_traits>

#include "util/hd.h"

namespace gnf::nf {

enum class IpsecDirection : uint8_t { Out, In };

// What gnf implements of ipsec-secgw's algorithms (config_file.cpp names the ones it refuses).
enum class EspCipher : uint8_t { Null, AesCbc128, AesGcm128, AesGcm256 };
enum class EspAuth : uint8_t { Null, HmacSha1_96, Gcm };  // Gcm: the AEAD's own 16-byte tag
enum class EspMode : uint8_t { Ipv4Tunnel, Ipv6Tunnel, Transport };  // transport: IPv4 packets only

inline constexpr uint8_t kIpProtoEsp = 50;
inline constexpr uint8_t kIpProtoIpv4 = 4;   // IP in IP: tunnel mode's next header for an IPv4 packet
inline constexpr uint8_t kIpProtoIpv6 = 41;
inline constexpr uint8_t kIpProtoNone = 59;  // RFC 4303 §2.6: a dummy packet, discarded by the receiver
inline constexpr uint32_t kEspHeaderBytes = 8;  // SPI and sequence number
inline constexpr uint32_t kEspTrailerBytes = 2;  // pad length and next header
inline constexpr uint32_t kMaxCipherKeyBytes = 32;
inline constexpr uint32_t kGcmSaltBytes = 4;
inline constexpr uint32_t kMaxAuthKeyBytes = 20;
inline constexpr uint32_t kMaxIvBytes = 16;
inline constexpr uint32_t kMaxIcvBytes = 16;

// The anti-replay window's size bounds (replay.h), in packets.
inline constexpr uint32_t kMinReplayWindow = 64;
inline constexpr uint32_t kMaxReplayWindow = 4096;

struct IpsecSa {
  uint32_t spi;
  IpsecDirection direction;
  EspCipher cipher;
  EspAuth auth;
  EspMode mode;
  bool esn;                // extended (64-bit) sequence numbers, RFC 4303 §2.2.1
  uint32_t replay_window;  // inbound: packets the anti-replay window spans, a multiple of 64
  uint8_t cipher_key[kMaxCipherKeyBytes];
  uint8_t salt[kGcmSaltBytes];  // GCM: the last 4 bytes of ipsec-secgw's aead_key (RFC 4106 §8.1)
  uint8_t auth_key[kMaxAuthKeyBytes];
  // Tunnel mode: the outer header's addresses (outbound: written; inbound: required), network
  // order, IPv4 in the first 4 bytes.
  uint8_t tunnel_src[16];
  uint8_t tunnel_dst[16];
  int32_t port_id;  // ipsec-secgw's port_id; -1 when not given
};
static_assert(std::is_trivially_copyable_v<IpsecSa>);

GNF_INLINE uint32_t esp_cipher_key_bytes(EspCipher c) {
  return c == EspCipher::AesGcm256 ? 32 : c == EspCipher::Null ? 0 : 16;
}
GNF_INLINE uint32_t esp_auth_key_bytes(EspAuth a) { return a == EspAuth::HmacSha1_96 ? 20 : 0; }
// The explicit IV carried in each packet: CBC's block, GCM's 8 bytes (RFC 4106 §3.1).
GNF_INLINE uint32_t esp_iv_bytes(EspCipher c) {
  return c == EspCipher::AesCbc128 ? 16 : c == EspCipher::Null ? 0 : 8;
}
// What the padded payload (data, padding, trailer) is a multiple of: the cipher's block, and at
// least 4 bytes (RFC 4303 §2.4), as ipsec-secgw's block sizes say.
GNF_INLINE uint32_t esp_alignment(EspCipher c) { return c == EspCipher::AesCbc128 ? 16 : 4; }
GNF_INLINE uint32_t esp_icv_bytes(EspAuth a) {
  return a == EspAuth::HmacSha1_96 ? 12 : a == EspAuth::Gcm ? 16 : 0;
}
GNF_INLINE bool esp_is_tunnel(EspMode m) { return m != EspMode::Transport; }
GNF_INLINE uint32_t esp_outer_header_bytes(EspMode m) { return m == EspMode::Ipv6Tunnel ? 40 : 20; }

// The last sequence number an SA may send (RFC 4303 §3.3.3: it never cycles). With ESN the limit
// stays 2^32 below the counter's end, so that takers that push the shared counter past it
// concurrently (esp.h) can never wrap it around to numbers already sent.
GNF_INLINE uint64_t esp_last_sequence(bool esn) { return esn ? ~uint64_t(0) - 0xFFFFFFFFull : 0xFFFFFFFFull; }

}  // namespace gnf::nf
