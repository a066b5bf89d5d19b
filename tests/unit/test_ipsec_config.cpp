// ipsec-secgw's sa and sp rules (nf/ipsec/config_file.h): what gnf takes, and the "name:line:
// field: problem" it says about what it does not.
#include <gtest/gtest.h>

#include <string>

#include "nf/ipsec/config_file.h"
#include "util/error.h"

using namespace gnf;
using namespace gnf::nf;

namespace {

constexpr const char* kKey16 = "2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d";
constexpr const char* kKey20 = "2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:de:ad:be:ef";

std::string error_of(const std::string& text, const IpsecOptions& options = {}) {
  try {
    parse_ipsec_config(text, "ep0.cfg", options);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// ipsec-secgw's own sample lines (examples/ipsec-secgw/ep0.cfg's shapes), continuation included.
TEST(IpsecConfig, ReadsIpsecSecgwRules) {
  const std::string text = std::string("#SA rules\n") +
                           "sa out 5 cipher_algo aes-128-cbc cipher_key " + kKey16 + " auth_algo sha1-hmac auth_key " +
                           kKey20 + " \\\n  mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5 type no-offload port_id 1\n" +
                           "sa in 105 aead_algo aes-256-gcm aead_key " + kKey16 + ":" + kKey20 +
                           " mode ipv6-tunnel src 1111::5 dst 2222::5\n" +
                           "sa out 9 cipher_algo null auth_algo null mode transport\n"
                           "sp ipv4 out esp protect 5 pri 1 dst 192.168.105.0/24 sport 0:65535 dport 0:65535\n"
                           "sp ipv6 in esp protect 105 pri 3 src 2001:db8::/32 proto 17 dport 53:53\n"
                           "sp ipv4 out esp bypass pri 10 src 10.0.0.0/8   # management\n"
                           "sp ipv4 in esp discard\n";
  const IpsecConfig c = parse_ipsec_config(text, "ep0.cfg", IpsecOptions{true, 1024});
  ASSERT_EQ(c.sas.size(), 3u);
  const IpsecSa& cbc = c.sas[0];
  EXPECT_EQ(cbc.direction, IpsecDirection::Out);
  EXPECT_EQ(cbc.spi, 5u);
  EXPECT_EQ(cbc.cipher, EspCipher::AesCbc128);
  EXPECT_EQ(cbc.auth, EspAuth::HmacSha1_96);
  EXPECT_EQ(cbc.mode, EspMode::Ipv4Tunnel);
  EXPECT_EQ(cbc.cipher_key[0], 0x2b);
  EXPECT_EQ(cbc.auth_key[19], 0xef);
  EXPECT_EQ(cbc.tunnel_dst[3], 5);
  EXPECT_EQ(cbc.port_id, 1);
  EXPECT_TRUE(cbc.esn);
  EXPECT_EQ(cbc.replay_window, 1024u);
  EXPECT_EQ(c.sa_lines[0], 2u);
  const IpsecSa& gcm = c.sas[1];
  EXPECT_EQ(gcm.cipher, EspCipher::AesGcm256);
  EXPECT_EQ(gcm.auth, EspAuth::Gcm);
  EXPECT_EQ(gcm.cipher_key[31], 0x3d);  // 16 + 16 key bytes, then the salt
  EXPECT_EQ(gcm.salt[3], 0xef);
  EXPECT_EQ(gcm.tunnel_src[0], 0x11);
  EXPECT_EQ(c.sas[2].mode, EspMode::Transport);
  ASSERT_EQ(c.policies.size(), 4u);
  EXPECT_EQ(c.policies[0].action, SpAction::Protect);
  EXPECT_EQ(c.policies[0].spi, 5u);
  EXPECT_EQ(c.policies[0].match.dst.length, 24);
  EXPECT_EQ(c.policies[0].line, 6u);
  EXPECT_EQ(c.policies[1].match.proto, 17);
  EXPECT_EQ(c.policies[1].match.proto_mask, 0xFF);
  EXPECT_EQ(c.policies[1].match.dport_lo, 53);
  EXPECT_EQ(c.policies[2].action, SpAction::Bypass);
  EXPECT_EQ(c.policies[2].priority, 10u);
  EXPECT_EQ(c.policies[3].action, SpAction::Discard);
  EXPECT_EQ(c.policies[3].match.src.length, 0);  // no selector: everything
}

TEST(IpsecConfig, NamesTheLineAndFieldOfEveryProblem) {
  const std::string gcm = std::string("sa out 5 aead_algo aes-128-gcm aead_key ") + kKey20;
  EXPECT_EQ(error_of("\n\nsa up 5"), "ep0.cfg:3: direction: 'up' is neither in nor out");
  EXPECT_EQ(error_of("sa out 0"), "ep0.cfg:1: spi: '0' is not a number from 1 to 4294967295");
  EXPECT_EQ(error_of("sa out 5 cipher_algo aes-256-cbc"),
            "ep0.cfg:1: cipher_algo: 'aes-256-cbc' is not an algorithm gnf implements (null, aes-128-cbc)");
  EXPECT_EQ(error_of("sa out 5 cipher_algo aes-128-cbc cipher_key 01:02"),
            "ep0.cfg:1: cipher_key: 2 bytes where the algorithm takes 16");
  EXPECT_EQ(error_of("sa out 5 cipher_algo aes-128-cbc cipher_key zz"),
            "ep0.cfg:1: cipher_key: 'zz' is not hex bytes separated by colons, like 2b:7e:15:16");
  EXPECT_EQ(error_of("sa out 5 cipher_algo aes-128-cbc auth_algo null"),
            "ep0.cfg:1: cipher_key: expected here, but the rule says 'auth_algo'");
  EXPECT_EQ(error_of(gcm + " mode ipv4-tunnel src 1.2.3.4 \\\n dst ::1"),
            "ep0.cfg:2: dst: '::1' is not an IPv4 address, which the mode needs");
  EXPECT_EQ(error_of(gcm + " mode ipv4-tunnel src 1.2.3.4"), "ep0.cfg:1: dst: missing: a tunnel's outer address");
  EXPECT_EQ(error_of(gcm + " mode transport udp-encap"), "ep0.cfg:1: udp-encap: ipsec-secgw's, but not implemented by gnf");
  EXPECT_EQ(error_of(gcm + " mode transport type inline-crypto-offload"),
            "ep0.cfg:1: type: 'inline-crypto-offload' is not supported: gnf does the crypto itself (no-offload)");
  EXPECT_EQ(error_of(gcm + " mode transport auth_algo null"),
            "ep0.cfg:1: aead_algo: an AEAD SA takes no cipher_algo or auth_algo");
  EXPECT_EQ(error_of(gcm + " mode transport\n" + gcm + " mode transport"), "ep0.cfg:2: spi: sa out 5 is defined twice");
  EXPECT_EQ(error_of("sa out 5 cipher_algo null mode transport"), "ep0.cfg:1: auth_algo: missing (null for none)");
  EXPECT_EQ(error_of("sa out 5 cipher_algo null auth_algo null"),
            "ep0.cfg:1: mode: missing: ipv4-tunnel, ipv6-tunnel or transport");
  EXPECT_EQ(error_of("sp ipv4 out esp protect 5 pri 1"), "ep0.cfg:1: protect: no sa out 5 before this line");
  EXPECT_EQ(error_of(gcm + " mode transport\nsp ipv6 out esp protect 5"),
            "ep0.cfg:2: protect: sa out 5 is transport mode, which gnf does for IPv4 only");
  EXPECT_EQ(error_of("sp ipv4 out ah bypass"), "ep0.cfg:1: esp: 'ah': gnf does ESP only");
  EXPECT_EQ(error_of("sp ipv4 out esp allow"), "ep0.cfg:1: action: 'allow' is not protect <spi>, bypass or discard");
  EXPECT_EQ(error_of("sp ipv4 in esp bypass dst 2001:db8::/32"),
            "ep0.cfg:1: dst: '2001:db8::/32' is not an IPv4 prefix like 192.168.0.0/16");
  EXPECT_EQ(error_of("sp ipv4 in esp bypass sport 10:1"), "ep0.cfg:1: sport: the range 10:1 ends below its start");
  EXPECT_EQ(error_of("sp ipv4 in esp bypass pri 1 pri 2"), "ep0.cfg:1: pri: given twice");
  EXPECT_EQ(error_of("sp ipv4 in esp bypass sport"), "ep0.cfg:1: sport: missing at the end of the rule");
  EXPECT_EQ(error_of("rt ipv4 dst 172.16.2.5/32 port 1"),
            "ep0.cfg:1: rule: 'rt': routes and neighbours go in l3fwd's files, not here");
  EXPECT_EQ(error_of(std::string("sa out 5\0", 9)), "ep0.cfg:1: rule: the line holds a NUL byte: this is not a text file");
  EXPECT_EQ(error_of("", IpsecOptions{false, 100}), "ep0.cfg: replay window: 100 is not a multiple of 64 from 64 to 4096");
}
