// ESP through gnf both ways (nf/ipsec/ipsec.h with the OpenSSL cipher): every cipher, mode, family,
// ESN or not, sizes up to 9000; with headroom and without; and the malformed packets each drop
// counter names.
#include <gtest/gtest.h>

#include <string>

#include "ipsec_frames.h"
#include "nf/ipsec/ipsec.h"
#include "nf/ipsec/openssl_cipher.h"

using namespace gnf;
using namespace gnf::nf;
using test::Slot;

namespace {

const char* const kAlgorithms[] = {
    "cipher_algo null auth_algo null",
    "cipher_algo null auth_algo sha1-hmac auth_key 00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:01:02:03:04",
    "cipher_algo aes-128-cbc cipher_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d auth_algo sha1-hmac "
    "auth_key 00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:01:02:03:04",
    "aead_algo aes-128-gcm aead_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:de:ad:be:ef",
    "aead_algo aes-256-gcm aead_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:"
    "09:cf:4f:3d:de:ad:be:ef",
};

const char* const kModes[] = {"mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5",
                              "mode ipv6-tunnel src 2001:db8:1::5 dst 2001:db8:2::5", "mode transport"};

// gnf as both gateways: SA 5 out and in with the same keys, protecting everything of both families
// (IPv4 only for transport).
std::string loopback_config(const std::string& algorithm, const std::string& mode, const std::string& extra_sp = "") {
  const bool transport = mode == "mode transport";
  std::string text = "sa out 5 " + algorithm + " " + mode + "\nsa in 5 " + algorithm + " " + mode + "\n" + extra_sp;
  for (const char* dir : {"out", "in"}) {
    text += std::string("sp ipv4 ") + dir + " esp protect 5 pri 1\n";
    if (!transport) text += std::string("sp ipv6 ") + dir + " esp protect 5 pri 1\n";
  }
  return text;
}

struct Gateway {
  explicit Gateway(const IpsecConfig& config) : tables(config), cipher(tables.sas()) {}
  IpsecCounter out(Slot& s) { return ipsec_outbound(tables.view(), cipher, s.data, s.len, s.room()); }
  IpsecCounter in(Slot& s) { return ipsec_inbound(tables.view(), cipher, s.data, s.len); }
  IpsecTables tables;
  OpensslEspCipher cipher;
};

// An ESP frame of a UDP frame, and the frame it must come back as.
struct Sealed {
  Slot esp;
  std::vector<uint8_t> plain;
};
Sealed seal(Gateway& g, const std::string& src = "10.0.0.1", const std::string& dst = "192.168.1.1",
            uint32_t size = 200) {
  const std::vector<uint8_t> plain = test::udp_frame(src, dst, size);
  Slot s(plain, 128, 128);
  EXPECT_EQ(g.out(s), kIpsecOutProtected);
  return {Slot(s.frame(), 0, 0), plain};
}

}  // namespace

TEST(IpsecEsp, RoundTripsEveryCipherModeAndFamilyWithAndWithoutHeadroom) {
  const std::pair<const char*, const char*> inner[] = {{"10.0.0.1", "192.168.1.1"}, {"2001:db8:a::1", "2001:db8:b::1"}};
  size_t checked = 0;
  for (const char* algorithm : kAlgorithms)
    for (const char* mode : kModes)
      for (const bool esn : {false, true}) {
        Gateway sender(test::ipsec_config(loopback_config(algorithm, mode), esn));
        Gateway receiver(test::ipsec_config(loopback_config(algorithm, mode), esn));
        for (const auto& [src, dst] : inner) {
          if (std::string(mode) == "mode transport" && std::string(src).find(':') != std::string::npos) continue;
          for (const uint32_t size : {60u, 64u, 65u, 66u, 67u, 100u, 1500u, 9000u}) {
            if (size < 62 && std::string(src).find(':') != std::string::npos) continue;
            const std::vector<uint8_t> plain = test::udp_frame(src, dst, size, uint8_t(size), 0xB8);
            const std::string where = std::string(algorithm) + " / " + mode + (esn ? " / esn" : "") + " / " + src +
                                      " / " + std::to_string(size);
            // The same sequence number both times: the headroom layout and the one that moves the
            // packet must give the same bytes.
            Slot with_headroom(plain, 128, 64), without(plain, 0, 192);
            const uint64_t seq = sender.tables.view().sequences[0];
            ASSERT_EQ(sender.out(with_headroom), kIpsecOutProtected) << where;
            EXPECT_LT(with_headroom.data, with_headroom.buffer.data() + 128) << where << ": not prepended into the headroom";
            sender.tables.view().sequences[0] = seq;
            ASSERT_EQ(sender.out(without), kIpsecOutProtected) << where;
            ASSERT_EQ(with_headroom.frame(), without.frame()) << where;
            EXPECT_NE(with_headroom.frame(), plain) << where;

            Slot received(with_headroom.frame(), 0, 0);
            ASSERT_EQ(receiver.in(received), kIpsecInDecrypted) << where;
            EXPECT_EQ(received.frame(), test::without_padding(plain)) << where;
            ++checked;
          }
        }
      }
  EXPECT_EQ(checked, 5u * 2 * (8 + 7 + 8 + 7 + 8));
}

TEST(IpsecEsp, CountsAndDropsEveryMalformedPacketByName) {
  Gateway gcm_out(test::ipsec_config(loopback_config(kAlgorithms[3], kModes[0]))),
      gcm_in(test::ipsec_config(loopback_config(kAlgorithms[3], kModes[0])));
  Sealed ok = seal(gcm_out);
  {
    Slot s(ok.esp.frame(), 0, 0);
    ASSERT_EQ(gcm_in.in(s), kIpsecInDecrypted);
    EXPECT_EQ(s.frame(), test::without_padding(ok.plain));
    Slot again(ok.esp.frame(), 0, 0);
    EXPECT_EQ(gcm_in.in(again), kIpsecDropReplayed);
  }
  {
    // A forged packet is dropped at its ICV without taking its number: the genuine one still passes.
    Sealed genuine = seal(gcm_out);
    Slot forged(genuine.esp.frame(), 0, 0);
    forged.data[forged.len - 20] ^= 1;  // in the ciphertext
    EXPECT_EQ(gcm_in.in(forged), kIpsecDropIcvMismatch);
    EXPECT_EQ(gcm_in.in(genuine.esp), kIpsecInDecrypted);
  }
  {
    Sealed late = seal(gcm_out);
    for (int i = 0; i < 70; ++i) {
      Sealed newer = seal(gcm_out);
      ASSERT_EQ(gcm_in.in(newer.esp), kIpsecInDecrypted);
    }
    EXPECT_EQ(gcm_in.in(late.esp), kIpsecDropOutsideWindow);
  }
  {
    Sealed s = seal(gcm_out);
    s.esp.data[14 + 20] ^= 0x80;  // the SPI
    EXPECT_EQ(gcm_in.in(s.esp), kIpsecDropUnknownSpi);
  }
  {
    Sealed s = seal(gcm_out);
    s.esp.data[14 + 12] ^= 1;  // the outer source: not the tunnel's peer
    esp_set_ipv4_checksum(s.esp.data + 14, 20);
    EXPECT_EQ(gcm_in.in(s.esp), kIpsecDropUnknownSpi);
  }
  {
    Sealed s = seal(gcm_out);
    wire::store_be16(s.esp.data + 14 + 2, 20 + 8 + 8 + 16 + 1);  // header, IV, ICV, and one byte of payload
    s.esp.len = 14 + 20 + 8 + 8 + 16 + 1;
    EXPECT_EQ(gcm_in.in(s.esp), kIpsecDropTruncated);
    wire::store_be16(s.esp.data + 14 + 2, 20 + 7);
    s.esp.len = 14 + 20 + 7;
    EXPECT_EQ(gcm_in.in(s.esp), kIpsecDropTruncated);
  }
  {
    Sealed s = seal(gcm_out);
    wire::store_be16(s.esp.data + 14 + 6, 0x2000);  // a first fragment
    EXPECT_EQ(gcm_in.in(s.esp), kIpsecDropBadHeader);
    Slot arp(std::vector<uint8_t>(60, 0), 0, 0);
    arp.data[12] = 0x08, arp.data[13] = 0x06;
    EXPECT_EQ(gcm_in.in(arp), kIpsecDropBadHeader);
    EXPECT_EQ(gcm_out.out(arp), kIpsecDropBadHeader);
  }
  {
    Gateway transport(test::ipsec_config(loopback_config(kAlgorithms[3], kModes[2])));
    Slot fragment(test::udp_frame("10.0.0.1", "192.168.1.1", 200), 128, 128);
    wire::store_be16(fragment.data + 14 + 6, 0x2000);  // transport mode protects whole datagrams only
    esp_set_ipv4_checksum(fragment.data + 14, 20);
    EXPECT_EQ(transport.out(fragment), kIpsecDropBadHeader);
  }
  {
    Slot big(test::udp_frame("10.0.0.1", "10.0.0.2", 1500), 16, 16);
    EXPECT_EQ(gcm_out.out(big), kIpsecDropNoRoom);
    Slot huge(test::udp_frame("10.0.0.1", "10.0.0.2", 65535 + 14 - 20), 128, 128);
    EXPECT_EQ(gcm_out.out(huge), kIpsecDropNoRoom);  // the outer IPv4 length would overflow
  }
}

// With NULL/NULL the trailer can be forged, so every trailer check is reached.
TEST(IpsecEsp, ChecksPaddingAndNextHeader) {
  Gateway out(test::ipsec_config(loopback_config(kAlgorithms[0], kModes[0]))),
      in(test::ipsec_config(loopback_config(kAlgorithms[0], kModes[0])));
  const auto trailer = [](Slot& s) { return s.data + s.len - 2; };  // pad length, next header
  const auto sealed = [&] { return seal(out, "10.0.0.1", "192.168.1.1", 198); };
  Sealed s = sealed();  // a 184-byte inner packet and the trailer: 2 bytes of padding for 4-byte alignment
  ASSERT_EQ(trailer(s.esp)[0], 2);
  trailer(s.esp)[-1] = 3;
  EXPECT_EQ(in.in(s.esp), kIpsecDropBadPadding);
  s = sealed();
  trailer(s.esp)[0] = 200;
  EXPECT_EQ(in.in(s.esp), kIpsecDropBadPadding);
  s = sealed();
  trailer(s.esp)[1] = 59;
  EXPECT_EQ(in.in(s.esp), kIpsecDropBadNextHeader);
  s = sealed();
  trailer(s.esp)[1] = 17;
  EXPECT_EQ(in.in(s.esp), kIpsecDropBadNextHeader);
  s = sealed();
  s.esp.data[14 + 20 + 8] = 0x55;  // the inner header's version and IHL
  EXPECT_EQ(in.in(s.esp), kIpsecDropBadHeader);
}

TEST(IpsecEsp, AppliesPoliciesBothWays) {
  const std::string sp = "sp ipv4 out esp bypass pri 5 dst 192.168.9.0/24\nsp ipv4 out esp discard pri 5 dst 192.168.8.0/24\n"
                         "sp ipv4 in esp bypass pri 5 src 10.9.0.0/16\nsp ipv4 in esp protect 5 pri 9 dst 192.168.7.0/24\n";
  const std::string text = "sa out 5 " + std::string(kAlgorithms[3]) + " " + kModes[0] + "\nsa in 5 " + kAlgorithms[3] +
                           " " + kModes[0] + "\nsa in 6 " + kAlgorithms[3] + " " + kModes[0] + "\n" + sp +
                           "sp ipv4 out esp protect 5 pri 1\nsp ipv4 in esp protect 6 pri 1\n";
  Gateway g(test::ipsec_config(text));
  Slot bypass(test::udp_frame("10.0.0.1", "192.168.9.1", 100), 128, 128);
  EXPECT_EQ(g.out(bypass), kIpsecBypassed);
  EXPECT_EQ(bypass.frame(), test::udp_frame("10.0.0.1", "192.168.9.1", 100));
  Slot discard(test::udp_frame("10.0.0.1", "192.168.8.1", 100), 128, 128);
  EXPECT_EQ(g.out(discard), kIpsecDropDiscard);
  Slot v6(test::udp_frame("2001:db8::1", "2001:db8::2", 100), 128, 128);
  EXPECT_EQ(g.out(v6), kIpsecDropDiscard);  // no IPv6 policy at all

  Slot clear(test::udp_frame("10.9.1.1", "192.168.1.1", 100), 0, 0);
  EXPECT_EQ(g.in(clear), kIpsecBypassed);
  Slot should_be_protected(test::udp_frame("10.8.1.1", "192.168.1.1", 100), 0, 0);
  EXPECT_EQ(g.in(should_be_protected), kIpsecDropPolicyMismatch);
  // SA 5 carries a packet that policy gives to SA 6; the one for 192.168.7.0/24 is SA 5's.
  Sealed wrong_sa = seal(g, "10.0.0.1", "192.168.1.1");
  EXPECT_EQ(g.in(wrong_sa.esp), kIpsecDropPolicyMismatch);
  Sealed right_sa = seal(g, "10.0.0.1", "192.168.7.1");
  EXPECT_EQ(g.in(right_sa.esp), kIpsecInDecrypted);
}

TEST(IpsecEsp, StopsAnSaAtItsLastSequenceNumber) {
  for (const bool esn : {false, true}) {
    Gateway out(test::ipsec_config(loopback_config(kAlgorithms[3], kModes[0]), esn));
    Gateway in(test::ipsec_config(loopback_config(kAlgorithms[3], kModes[0]), esn));
    const uint64_t last = esp_last_sequence(esn);
    // Start a little below 2^32: with ESN the numbers go on past it, and the receiver follows.
    out.tables.view().sequences[0] = 0xFFFFFFFFull - 3;
    in.tables.view().windows[1].top = 0xFFFFFFFFull - 10;
    for (int i = 0; i < 6; ++i) {
      Slot s(test::udp_frame("10.0.0.1", "192.168.1.1", 100), 128, 128);
      const IpsecCounter c = out.out(s);
      if (!esn && i >= 3) {
        EXPECT_EQ(c, kIpsecDropSequenceOverflow) << i;
        continue;
      }
      ASSERT_EQ(c, kIpsecOutProtected) << i;
      Slot r(s.frame(), 0, 0);
      EXPECT_EQ(in.in(r), kIpsecInDecrypted) << (esn ? "esn " : "") << i;
    }
    out.tables.view().sequences[0] = last - 1;
    Slot s(test::udp_frame("10.0.0.1", "192.168.1.1", 100), 128, 128);
    EXPECT_EQ(out.out(s), kIpsecOutProtected);
    EXPECT_EQ(out.out(s), kIpsecDropSequenceOverflow);
    EXPECT_EQ(out.out(s), kIpsecDropSequenceOverflow);  // and it stays stopped
  }
}

// configs/ipsec-site-{a,b}.cfg, the README's example, are the two ends of one tunnel.
TEST(IpsecEsp, ExampleSiteConfigsTalkToEachOther) {
  const std::string configs = std::string(GNF_TEST_DATA_DIR) + "/../../configs/";
  Gateway a(read_ipsec_config_file(configs + "ipsec-site-a.cfg", {})), b(read_ipsec_config_file(configs + "ipsec-site-b.cfg", {}));
  for (int i = 0; i < 3; ++i) {
    Slot to_b(test::udp_frame("192.168.1.10", "192.168.2.20", 1000, uint8_t(i)), 128, 128);
    ASSERT_EQ(a.out(to_b), kIpsecOutProtected);
    ASSERT_EQ(b.in(to_b), kIpsecInDecrypted);
    EXPECT_EQ(to_b.frame(), test::udp_frame("192.168.1.10", "192.168.2.20", 1000, uint8_t(i)));
    Slot to_a(test::udp_frame("192.168.2.20", "192.168.1.10", 64, uint8_t(i)), 128, 128);
    ASSERT_EQ(b.out(to_a), kIpsecOutProtected);
    ASSERT_EQ(a.in(to_a), kIpsecInDecrypted);
  }
  Slot elsewhere(test::udp_frame("192.168.1.10", "10.1.1.1", 100), 128, 128);
  EXPECT_EQ(a.out(elsewhere), kIpsecDropDiscard);
  Slot clear_to_a(test::udp_frame("192.168.2.20", "192.168.1.10", 100), 0, 0);
  EXPECT_EQ(a.in(clear_to_a), kIpsecDropPolicyMismatch);  // site B's traffic must come encrypted
}
