// libFuzzer target: arbitrary frames into IPsec inbound processing (nf/ipsec/ipsec.h with the
// OpenSSL cipher), and each frame through outbound and back.
//
// One pair of gateways per configuration for the whole process, so that sequence numbers and
// anti-replay windows carry over between inputs as they do between packets: SA 5 out and in with
// the same keys, protecting every IPv4 and (tunnel modes) IPv6 packet; 15 configurations, each
// algorithm (NULL/NULL, whose trailer the fuzzer can forge, NULL/HMAC-SHA1, AES-CBC/HMAC-SHA1,
// AES-128-GCM, AES-256-GCM) in each mode (IPv4 tunnel, IPv6 tunnel, IPv4 transport).
//
// Input layout: a byte (its value modulo 15: the configuration; bit 7: no headroom, the packet
// moves instead; bit 6: ESN), then frames, each a 2-byte little-endian length (modulo 9100) and
// that many bytes (fewer if the input ends first).
//
// Invariants; a broken one prints what broke and traps, so libFuzzer records the input as a crash:
//  - every frame gets one counter, and the frame a forwarded one leaves as lies within its buffer
//    and is a whole IP packet in Ethernet (nothing is read or written outside the buffer: ASan);
//  - a frame outbound protects comes back from inbound decrypted, as the IP packet it was (in
//    transport mode with its IPv4 checksum made right), except that a transport-mode packet of
//    protocol 59 is discarded as RFC 4303 §2.6's dummy packet.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "nf/ipsec/config_file.h"
#include "nf/ipsec/openssl_cipher.h"
#include "nf/ipsec/tables.h"

using namespace gnf;

namespace {

constexpr const char* kAlgorithms[] = {
    "cipher_algo null auth_algo null",
    "cipher_algo null auth_algo sha1-hmac auth_key 00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:01:02:03:04",
    "cipher_algo aes-128-cbc cipher_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d auth_algo sha1-hmac "
    "auth_key 00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:01:02:03:04",
    "aead_algo aes-128-gcm aead_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:de:ad:be:ef",
    "aead_algo aes-256-gcm aead_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:2b:7e:15:16:28:ae:d2:a6:ab:f7:15:"
    "88:09:cf:4f:3d:de:ad:be:ef",
};
constexpr const char* kModes[] = {"mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5",
                                  "mode ipv6-tunnel src 2001:db8:1::5 dst 2001:db8:2::5", "mode transport"};
constexpr uint32_t kConfigs = 15;
constexpr uint32_t kRoom = 128;

struct Gateways {
  Gateways(uint32_t config, bool esn) {
    const std::string algorithm = kAlgorithms[config / 3], mode = kModes[config % 3];
    std::string text = "sa out 5 " + algorithm + " " + mode + "\nsa in 5 " + algorithm + " " + mode + "\n";
    for (const char* dir : {"out", "in"}) {
      text += std::string("sp ipv4 ") + dir + " esp protect 5 pri 1\n";
      if (config % 3 != 2) text += std::string("sp ipv6 ") + dir + " esp protect 5 pri 1\n";
    }
    const nf::IpsecConfig parsed = nf::parse_ipsec_config(text, "esp_fuzz", nf::IpsecOptions{esn, 64});
    transport = config % 3 == 2;
    sender = std::make_unique<nf::IpsecTables>(parsed);
    receiver = std::make_unique<nf::IpsecTables>(parsed);
    peer = std::make_unique<nf::IpsecTables>(parsed);
    sender_cipher = std::make_unique<nf::OpensslEspCipher>(parsed.sas);
    receiver_cipher = std::make_unique<nf::OpensslEspCipher>(parsed.sas);
    peer_cipher = std::make_unique<nf::OpensslEspCipher>(parsed.sas);
  }
  bool transport;
  // receiver takes the fuzzer's frames; peer only what sender protected, so its window follows sender's numbers.
  std::unique_ptr<nf::IpsecTables> sender, receiver, peer;
  std::unique_ptr<nf::OpensslEspCipher> sender_cipher, receiver_cipher, peer_cipher;
};

Gateways& gateways(uint32_t config, bool esn) {
  static std::unique_ptr<Gateways> all[kConfigs][2];
  auto& g = all[config][esn];
  if (!g) g = std::make_unique<Gateways>(config, esn);
  return *g;
}

bool forwarded(nf::IpsecCounter c) {
  return c == nf::kIpsecOutProtected || c == nf::kIpsecInDecrypted || c == nf::kIpsecBypassed;
}

// The frame a forwarded packet leaves as: within the buffer, a whole IP packet.
void check_frame(const std::vector<uint8_t>& buffer, const uint8_t* data, uint32_t len) {
  FUZZ_CHECK(data >= buffer.data() && data + len <= buffer.data() + buffer.size(), "a frame outside its buffer");
  nf::EspIp ip;
  FUZZ_CHECK(nf::esp_parse_frame(data, len, ip), "a forwarded frame that is not IP in Ethernet");
  FUZZ_CHECK_EQ(len, net::kEthHeaderBytes + ip.length, "a forwarded frame longer than its IP packet");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  Gateways& g = gateways(data[0] % kConfigs, data[0] & 0x40);
  const uint32_t head = data[0] & 0x80 ? 0 : kRoom;
  size_t at = 1;
  while (at + 2 <= size) {
    const uint32_t len = uint32_t(data[at] | data[at + 1] << 8) % 9100;
    at += 2;
    const uint32_t n = uint32_t(std::min<size_t>(len, size - at));
    const std::vector<uint8_t> frame(data + at, data + at + n);
    at += n;

    std::vector<uint8_t> in_buffer(frame);
    uint8_t* in_data = in_buffer.data();
    uint32_t in_len = n;
    const nf::IpsecCounter in = nf::ipsec_inbound(g.receiver->view(), *g.receiver_cipher, in_data, in_len);
    FUZZ_CHECK(in < nf::kIpsecCounterCount, "inbound gave no counter");
    if (forwarded(in)) check_frame(in_buffer, in_data, in_len);

    std::vector<uint8_t> out_buffer(head + n + 2 * kRoom);
    std::copy(frame.begin(), frame.end(), out_buffer.begin() + head);
    uint8_t* out_data = out_buffer.data() + head;
    uint32_t out_len = n;
    const nf::IpsecCounter out = nf::ipsec_outbound(g.sender->view(), *g.sender_cipher, out_data, out_len,
                                                    nf::FrameRoom{head, 2 * kRoom});
    FUZZ_CHECK(out < nf::kIpsecCounterCount, "outbound gave no counter");
    if (!forwarded(out)) continue;
    check_frame(out_buffer, out_data, out_len);
    if (out != nf::kIpsecOutProtected) continue;
    std::vector<uint8_t> back_buffer(out_data, out_data + out_len);
    uint8_t* back_data = back_buffer.data();
    uint32_t back_len = out_len;
    const nf::IpsecCounter back = nf::ipsec_inbound(g.peer->view(), *g.peer_cipher, back_data, back_len);
    nf::EspIp original;
    nf::esp_parse_frame(frame.data(), n, original);
    if (g.transport && original.proto == nf::kIpProtoNone) {
      FUZZ_CHECK_EQ(back, nf::kIpsecDropBadNextHeader, "a dummy packet (next header 59) was not discarded");
      continue;
    }
    FUZZ_CHECK_EQ(back, nf::kIpsecInDecrypted, "a packet outbound protected did not come back decrypted");
    FUZZ_CHECK_EQ(back_len, net::kEthHeaderBytes + original.length, "the decrypted packet's length");
    // Transport mode rewrote the IPv4 header and its checksum: a wrong one comes back right.
    std::vector<uint8_t> want(frame.begin(), frame.begin() + back_len);
    if (g.transport) std::memcpy(want.data() + net::kEthHeaderBytes + 10, back_data + net::kEthHeaderBytes + 10, 2);
    FUZZ_CHECK(std::memcmp(back_data + 12, want.data() + 12, back_len - 12) == 0,
               "the decrypted packet differs from the one protected");
  }
  return 0;
}
