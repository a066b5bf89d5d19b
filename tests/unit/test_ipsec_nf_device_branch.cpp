// The ipsec NF's device branch run on the host: the device cipher over a byte-for-byte copy of the
// tables' image (what IpsecGateway::device_view copies to the GPU) gives the bytes, verdicts and
// counters of the cpu path's OpenSSL cipher over the host tables, outbound and inbound, CBC+SHA1 and
// GCM, and keeps the per-SA state (sequence numbers, windows) in the copy.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ipsec_frames.h"
#include "nf/ipsec/ipsec_nf.h"
#include "nf/ipsec/host_cipher.h"

using namespace gnf;
using namespace gnf::nf;

namespace {

constexpr char kGateway[] =
    "sa out 5 cipher_algo aes-128-cbc cipher_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d auth_algo sha1-hmac "
    "auth_key 00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:01:02:03:04 mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5\n"
    "sa in 5 cipher_algo aes-128-cbc cipher_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d auth_algo sha1-hmac "
    "auth_key 00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:01:02:03:04 mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5\n"
    "sa out 6 aead_algo aes-128-gcm aead_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:de:ad:be:ef "
    "mode ipv4-tunnel src 172.16.1.6 dst 172.16.2.6\n"
    "sa in 6 aead_algo aes-128-gcm aead_key 2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d:de:ad:be:ef "
    "mode ipv4-tunnel src 172.16.1.6 dst 172.16.2.6\n"
    "sp ipv4 out esp protect 5 pri 2 dst 192.168.1.0/24 sport 0:65535 dport 0:65535\n"
    "sp ipv4 out esp protect 6 pri 1 dst 192.168.0.0/16 sport 0:65535 dport 0:65535\n"
    "sp ipv4 in esp protect 5 pri 2 dst 192.168.1.0/24 sport 0:65535 dport 0:65535\n"
    "sp ipv4 in esp protect 6 pri 1 dst 192.168.0.0/16 sport 0:65535 dport 0:65535\n";

constexpr uint32_t kUnprotected = 1u << 1;  // port 1

struct Batch {
  std::vector<test::Slot> slots;
  std::vector<PacketRef> refs;
  NfCounters counters{};

  Batch(const std::vector<std::vector<uint8_t>>& frames, uint16_t port) {
    for (const auto& f : frames) slots.emplace_back(f, 128, 64);
    for (test::Slot& s : slots) {
      const FrameRoom room = s.room();
      refs.push_back(PacketRef{s.data, s.len, 0, port, 0, Verdict::Forward, HostReason::Unspecified,
                               uint16_t(room.head), uint16_t(room.tail)});
    }
  }
  PacketBatch batch() { return PacketBatch{refs.data(), uint32_t(refs.size())}; }
  std::vector<std::vector<uint8_t>> forwarded() const {
    std::vector<std::vector<uint8_t>> out;
    for (const PacketRef& r : refs)
      if (r.verdict == Verdict::Forward) out.emplace_back(r.data, r.data + r.len);
    return out;
  }
};

}  // namespace

TEST(IpsecNfDeviceBranch, OverACopyOfTheTablesImageGivesTheCpuPathsBytesAndCounters) {
  const IpsecConfig config = test::ipsec_config(kGateway, false, 256);
  IpsecTables host_tables(config), copied_tables(config);
  const IpsecView host_view = host_tables.view();
  const IpsecTables::Image image = copied_tables.image();
  std::vector<uint64_t> copy = image.words;
  const IpsecView copy_view = copied_tables.view_at(image, reinterpret_cast<uint8_t*>(copy.data()));

  HostEspCipher host(config.sas, CpuCryptoLibrary::Auto);
  HostEspCipher* const ciphers[] = {&host};
  const EspKeys keys(config.sas);
  std::vector<unsigned long long> host_sa_counters(config.sas.size() * kIpsecCounterCount, 0);
  std::vector<unsigned long long> copy_sa_counters = host_sa_counters;
  const IpsecNfView cpu_nf{&host_view, host_sa_counters.data(), ciphers, 1, kUnprotected, DeviceEspCipher{}};
  const IpsecNfView device_nf{&copy_view, copy_sa_counters.data(), nullptr, 0, kUnprotected, keys.host_view()};

  std::vector<std::vector<uint8_t>> plain;
  for (uint32_t i = 0; i < 64; ++i)
    plain.push_back(test::udp_frame("10.0.0.1", i % 2 ? "192.168.1.7" : "192.168.9.7", 60 + 37 * i, uint8_t(i)));
  plain.push_back(test::udp_frame("10.0.0.1", "10.9.9.9", 100));  // no policy: discarded

  Batch cpu_out(plain, 0), device_out(plain, 0);
  PacketBatch cpu_batch = cpu_out.batch(), device_batch = device_out.batch();
  cpu_nf.process(cpu_batch, cpu_out.counters);
  device_nf.process_with(device_nf.device_cipher, device_batch, device_out.counters);
  const std::vector<std::vector<uint8_t>> sealed = cpu_out.forwarded();
  ASSERT_EQ(sealed.size(), 64u);
  EXPECT_EQ(device_out.forwarded(), sealed);
  EXPECT_EQ(device_out.counters.value[kIpsecOutProtected], 64u);
  EXPECT_EQ(device_out.counters.value[kIpsecDropDiscard], 1u);
  for (uint32_t c = 0; c < kIpsecCounterCount; ++c) EXPECT_EQ(device_out.counters.value[c], cpu_out.counters.value[c]) << c;
  const uint32_t sa5 = copied_tables.sa_index(IpsecDirection::Out, 5), sa6 = copied_tables.sa_index(IpsecDirection::Out, 6);
  EXPECT_EQ(copy_view.sequences[sa5], 32u);
  EXPECT_EQ(copy_view.sequences[sa6], 32u);
  EXPECT_EQ(host_view.sequences[sa5], 32u);

  Batch cpu_in(sealed, 1), device_in(sealed, 1);
  cpu_batch = cpu_in.batch();
  device_batch = device_in.batch();
  cpu_nf.process(cpu_batch, cpu_in.counters);
  device_nf.process_with(device_nf.device_cipher, device_batch, device_in.counters);
  const std::vector<std::vector<uint8_t>> opened = device_in.forwarded();
  ASSERT_EQ(opened.size(), 64u);
  EXPECT_EQ(cpu_in.forwarded(), opened);
  for (size_t i = 0; i < opened.size(); ++i) EXPECT_EQ(opened[i], test::without_padding(plain[i])) << i;
  for (uint32_t c = 0; c < kIpsecCounterCount; ++c) EXPECT_EQ(device_in.counters.value[c], cpu_in.counters.value[c]) << c;
  EXPECT_EQ(copy_sa_counters, host_sa_counters);

  // The windows in the copy took the sequence numbers: the same ESP again is a replay.
  Batch again(sealed, 1);
  PacketBatch again_batch = again.batch();
  device_nf.process_with(device_nf.device_cipher, again_batch, again.counters);
  EXPECT_EQ(again.counters.value[kIpsecDropReplayed], 64u);
}
