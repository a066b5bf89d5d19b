// The GPU's ESP cipher (nf/ipsec/device_cipher.h), its device code run on the host, byte for byte
// against the CPU's OpensslEspCipher: every cipher, ESN on and off, payloads of 0 to 9000 bytes,
// keys changing as they go; what one seals the other opens; a flipped bit anywhere the ICV
// covers, or a wrong high sequence half with ESN, is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "ipsec_frames.h"
#include "random_esp.h"
#include "nf/ipsec/device_cipher.h"
#include "nf/ipsec/ipsec.h"
#include "nf/ipsec/openssl_cipher.h"

using namespace gnf;
using namespace gnf::nf;

using test::job_of;
using test::random_packet;

TEST(DeviceEspCipher, SealsByteForByteAsOpensslAndOpensWhatItSeals) {
  std::mt19937_64 rng(13);
  size_t packets = 0, refused = 0;
  for (const test::EspAlgorithm& a : test::kEspAlgorithms) {
    for (const bool esn : {false, true}) {
      for (int key_set = 0; key_set < 10; ++key_set) {
        const std::vector<IpsecSa> sas = test::random_sa_pair(a, esn, rng);
        OpensslEspCipher openssl(sas);
        const EspKeys keys(sas);
        DeviceEspCipher device = keys.host_view();
        for (int i = 0; i < 100; ++i) {
          // Half small payloads (partial blocks, empty ones), half up to a jumbo frame's.
          const uint32_t bytes = uint32_t(i % 2 ? rng() % 9001 : rng() % 97);
          const uint32_t payload = bytes - bytes % esp_alignment(a.cipher);
          const uint64_t seq = esn ? rng() >> 1 : uint32_t(rng());
          const std::string where = std::string(a.name) + (esn ? " esn" : "") + " payload " + std::to_string(payload);
          const std::vector<uint8_t> plain = random_packet(sas[0], seq, payload, rng);

          std::vector<uint8_t> by_openssl = plain, by_device = plain;
          ASSERT_TRUE(openssl.seal(0, sas[0], job_of(by_openssl, payload, seq))) << where;
          ASSERT_TRUE(device.seal(0, sas[0], job_of(by_device, payload, seq))) << where;
          ASSERT_EQ(by_device, by_openssl) << where;
          if (a.cipher != EspCipher::Null || a.auth != EspAuth::Null) {
            ASSERT_NE(by_device, plain) << where;
          }

          std::vector<uint8_t> opened = by_openssl;
          ASSERT_TRUE(device.open(1, sas[1], job_of(opened, payload, seq))) << where;
          const size_t payload_at = kEspHeaderBytes + esp_iv_bytes(a.cipher);
          EXPECT_TRUE(std::equal(plain.begin() + payload_at, plain.begin() + payload_at + payload, opened.begin() + payload_at))
              << where;
          ++packets;
          if (a.auth == EspAuth::Null) continue;

          // From the sequence number on: a flipped SPI finds another SA (or none) before the
          // cipher, and the receiver takes the sequence number from the packet as it came.
          std::vector<uint8_t> flipped = by_openssl;
          const size_t bit = 32 + rng() % (flipped.size() * 8 - 32);
          flipped[bit / 8] ^= uint8_t(1 << bit % 8);
          const uint64_t seq_as_sent = (seq & ~0xFFFFFFFFull) | wire::load_be32(flipped.data() + 4);
          EXPECT_FALSE(device.open(1, sas[1], job_of(flipped, payload, seq_as_sent))) << where << ", bit " << bit << " flipped";
          if (esn) {
            std::vector<uint8_t> other_high = by_openssl;
            EXPECT_FALSE(device.open(1, sas[1], job_of(other_high, payload, seq ^ 1ull << (32 + rng() % 31))))
                << where << ": the wrong high sequence half";
          }
          ++refused;
        }
      }
    }
  }
  EXPECT_EQ(packets, 5u * 2 * 10 * 100);
  EXPECT_EQ(refused, 4u * 2 * 10 * 100);
}

// The cipher in ipsec.h's templates, gateway to gateway: the device code seals what OpenSSL opens
// and the reverse, tunnel and transport, every algorithm.
TEST(DeviceEspCipher, InterworksWithOpensslThroughTheEspCode) {
  const char* const algorithms[] = {
      "cipher_algo aes-128-cbc cipher_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d auth_algo sha1-hmac "
      "auth_key 00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:01:02:03:04",
      "aead_algo aes-128-gcm aead_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:de:ad:be:ef",
      "aead_algo aes-256-gcm aead_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:2b:7e:15:16:28:ae:d2:a6:ab:f7:"
      "15:88:09:cf:4f:3d:de:ad:be:ef"};
  size_t checked = 0;
  for (const char* algorithm : algorithms)
    for (const char* mode : {"mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5", "mode transport"})
      for (const bool esn : {false, true}) {
        const std::string text = std::string("sa out 5 ") + algorithm + " " + mode + "\nsa in 5 " + algorithm + " " +
                                 mode + "\nsp ipv4 out esp protect 5 pri 1\nsp ipv4 in esp protect 5 pri 1\n";
        IpsecTables gpu_side(test::ipsec_config(text, esn)), cpu_side(test::ipsec_config(text, esn));
        const EspKeys keys(gpu_side.sas());
        DeviceEspCipher device = keys.host_view();
        OpensslEspCipher openssl(cpu_side.sas());
        for (const uint32_t size : {60u, 64u, 1420u, 9000u}) {
          const std::vector<uint8_t> plain = test::udp_frame("10.0.0.1", "192.168.1.1", size, uint8_t(size));
          const std::string where = std::string(algorithm) + " / " + mode + (esn ? " / esn / " : " / ") + std::to_string(size);
          test::Slot there(plain, 128, 64), back(plain, 128, 64);
          ASSERT_EQ(ipsec_outbound(gpu_side.view(), device, there.data, there.len, there.room()), kIpsecOutProtected) << where;
          ASSERT_EQ(ipsec_inbound(cpu_side.view(), openssl, there.data, there.len), kIpsecInDecrypted) << where;
          EXPECT_EQ(there.frame(), test::without_padding(plain)) << where;
          ASSERT_EQ(ipsec_outbound(cpu_side.view(), openssl, back.data, back.len, back.room()), kIpsecOutProtected) << where;
          ASSERT_EQ(ipsec_inbound(gpu_side.view(), device, back.data, back.len), kIpsecInDecrypted) << where;
          EXPECT_EQ(back.frame(), test::without_padding(plain)) << where;
          ++checked;
        }
      }
  EXPECT_EQ(checked, 3u * 2 * 2 * 4);
}
