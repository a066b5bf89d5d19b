// The ipsec NF on every path (the pcap oracle of test_paths.cpp): the same pcap through an ipsec
// gateway on cpu, the staged modes and bypass, CBC+SHA1 and GCM, outbound and inbound.
//
// Inbound, every path gives the cpu path's bytes. Outbound, the GPU's threads take one SA's sequence
// numbers in any order within a burst (nf/ipsec/ipsec.h), and GCM's IV and CBC's are the sequence
// number's (cipher.h): so each path's frames are checked to be the cpu path's sealing of the same
// input frame under the sequence number the frame carries, and each SA's numbers to be 1..n, once each.
#include <fstream>
#include <set>

#include "gpu_rig.h"
#include "nf/ipsec/config_file.h"
#include "nf/ipsec/openssl_cipher.h"
#include "nf/ipsec/tables.h"
#include "wire/bytes.h"

using namespace gnf;
using namespace gnf::test;

namespace {

constexpr uint32_t kFrames = 3000;
constexpr uint32_t kWindow = 4096;  // at least a burst: the GPU accepts a burst's numbers in any order
constexpr uint32_t kEspAt = 14 + 20;  // the ESP header, after Ethernet and the outer IPv4 header

struct Algorithm {
  const char* name;
  const char* sa;  // the sa line's algorithm part
};
const Algorithm kAlgorithms[] = {
    {"aes-128-cbc + hmac-sha1",
     "cipher_algo aes-128-cbc cipher_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d auth_algo sha1-hmac "
     "auth_key 00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:01:02:03:04"},
    {"aes-128-gcm", "aead_algo aes-128-gcm aead_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:de:ad:be:ef"},
};

// One SA each way with `algorithm`, tunnel mode, protecting every IPv4 packet.
std::string sa_file(const Algorithm& algorithm) {
  const std::string path = temp_path("gw.sa");
  const std::string tunnel = " mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5\n";
  std::ofstream(path) << "sa out 5 " << algorithm.sa << tunnel << "sa in 5 " << algorithm.sa << tunnel
                      << "sp ipv4 out esp protect 5 pri 1\nsp ipv4 in esp protect 5 pri 1\n";
  return path;
}

nf::NfSpec ipsec(const std::string& sa, const std::string& unprotected) {
  nf::Params params("gpu-test", 1, "nf[ipsec]");
  params.set("sa", nf::ParamValue{sa, 0});
  params.set("unprotected", nf::ParamValue{unprotected, 0});
  params.set("replay_window", nf::ParamValue{int64_t(kWindow), 0});
  return nf::NfSpec{"ipsec", params};
}

// `input` into port `port` of two ("lan" 0: protected, "wan" 1: unprotected), through the gateway
// and back out of the same port: the frames that came out. The gateway's `counter` must be `expected`.
std::vector<std::vector<uint8_t>> through_gateway(const PathVariant& v, const std::string& input, const std::string& sa,
                                                  uint32_t port, nf::IpsecCounter counter, uint64_t expected) {
  ctl::Config c;
  for (const char* name : {"lan", "wan"}) {
    ctl::PortSpec p;
    p.nic.name = name;
    nic::fill_reta_round_robin(p.nic.rss, 1);
    c.ports.push_back(p);
  }
  c.nfs.push_back(ipsec(sa, "1"));
  c.nfs.push_back(l2fwd("reflect", "none"));
  return pcap_through(c, v, port, input, counter, expected);
}

// What the cpu path makes of a frame when its SA gives it a chosen sequence number.
class CpuSealer {
 public:
  explicit CpuSealer(const nf::IpsecConfig& config)
      : tables_(config), cipher_(config.sas), sa_(tables_.sa_index(nf::IpsecDirection::Out, 5)) {}

  std::vector<uint8_t> seal(const std::vector<uint8_t>& plain, uint64_t seq) {
    const nf::IpsecView view = tables_.view();
    view.sequences[sa_] = seq - 1;
    std::vector<uint8_t> slot(kRoom + plain.size() + kRoom, 0);
    std::copy(plain.begin(), plain.end(), slot.begin() + kRoom);
    uint8_t* data = slot.data() + kRoom;
    uint32_t len = uint32_t(plain.size());
    if (nf::ipsec_outbound(view, cipher_, data, len, nf::FrameRoom{kRoom, kRoom}) != nf::kIpsecOutProtected) return {};
    return {data, data + len};
  }

 private:
  static constexpr uint32_t kRoom = 128;
  nf::IpsecTables tables_;
  nf::OpensslEspCipher cipher_;
  uint32_t sa_;
};

}  // namespace

TEST(IpsecGpuPaths, EveryPathSealsAsTheCpuPathAndOpensToTheCpuPathsBytes) {
  GNF_REQUIRE_GPU();
  const std::string plain_file = generated_pcap("plain.pcap", {64, 128, 594, 1400, 200}, 16, kFrames);
  const std::vector<std::vector<uint8_t>> plain = read_pcap(plain_file);
  ASSERT_EQ(plain.size(), kFrames);
  for (const Algorithm& a : kAlgorithms) {
    const std::string sa = sa_file(a);
    CpuSealer cpu(nf::read_ipsec_config_file(sa, nf::IpsecOptions{false, kWindow}));
    const std::string sealed_file = temp_path("sealed.pcap");
    std::vector<std::vector<uint8_t>> opened_on_cpu;
    for (const PathVariant& v : kPathVariants) {
      const std::string where = std::string(a.name) + ", " + v.name;
      // Outbound. Without headroom each frame moves towards its slot's end to make room for the
      // tunnel (esp.h's contract): the sealed bytes are the same, and each frame is sent from an
      // address that is no longer the slot's buffer (the agent's tx takes any byte address).
      const auto sealed = through_gateway(v, plain_file, sa, 0, nf::kIpsecOutProtected, kFrames);
      ASSERT_EQ(sealed.size(), plain.size()) << where;
      std::set<uint32_t> numbers;
      for (size_t i = 0; i < sealed.size(); ++i) {
        ASSERT_GE(sealed[i].size(), kEspAt + 8) << where << ", frame " << i;
        const uint32_t seq = wire::load_be32(sealed[i].data() + kEspAt + 4);
        if (v.path == ctl::PathKind::Cpu) {
          EXPECT_EQ(seq, i + 1) << where << ", frame " << i;
        }
        numbers.insert(seq);
        ASSERT_EQ(sealed[i], cpu.seal(plain[i], seq)) << where << ", frame " << i << ", sequence " << seq;
      }
      EXPECT_EQ(numbers.size(), plain.size()) << where << ": a sequence number given twice";
      EXPECT_EQ(*numbers.rbegin(), plain.size()) << where;
      if (v.path == ctl::PathKind::Cpu) write_pcap(sealed_file, sealed);
      // Inbound: the cpu path's ESP, opened.
      const auto opened = through_gateway(v, sealed_file, sa, 1, nf::kIpsecInDecrypted, kFrames);
      if (opened_on_cpu.empty()) {
        ASSERT_EQ(opened.size(), plain.size()) << where;
        opened_on_cpu = opened;
        continue;
      }
      ASSERT_EQ(opened.size(), opened_on_cpu.size()) << where;
      for (size_t i = 0; i < opened.size(); ++i) ASSERT_EQ(opened[i], opened_on_cpu[i]) << where << ", frame " << i;
    }
    std::filesystem::remove(sealed_file);
    std::filesystem::remove(sa);
  }
  std::filesystem::remove(plain_file);
}
