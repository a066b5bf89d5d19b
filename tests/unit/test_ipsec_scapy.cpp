// gnf's ESP against scapy's (tests/data/ipsec_scapy.py says what the cases cover): scapy encrypts
// and gnf decrypts, gnf encrypts the same frame with the same sequence number and must write the
// same bytes (where scapy's padding is the minimal one gnf writes), and scapy decrypts what gnf
// wrote.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "ipsec_frames.h"
#include "nf/ipsec/ipsec.h"
#include "nf/ipsec/openssl_cipher.h"

using namespace gnf;
using namespace gnf::nf;

namespace {

const std::string kScript = std::string(GNF_TEST_DATA_DIR) + "/ipsec_scapy.py";

// The standard output of /usr/bin/python3 (where Debian's python3-scapy is) running the script.
std::string run_script(const std::string& arguments) {
  const std::string command = "/usr/bin/python3 " + kScript + " " + arguments;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  std::string out;
  char chunk[1 << 16];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, pipe)) > 0;) out.append(chunk, n);
  const int status = pclose(pipe);
  EXPECT_EQ(status, 0) << command;
  return out;
}

std::vector<uint8_t> bytes(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string hex(const std::vector<uint8_t>& data) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : data) out += {digits[b >> 4], digits[b & 15]};
  return out;
}

}  // namespace

TEST(IpsecScapy, InteroperatesWithScapysEspBothWays) {
  if (std::system("/usr/bin/python3 -c 'import scapy.layers.ipsec' 2>/dev/null") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no scapy (Debian: python3-scapy, scripts/install-deps.sh)";
  const nlohmann::json cases = nlohmann::json::parse(run_script("cases"));
  ASSERT_GT(cases.size(), 2000u);
  nlohmann::json outputs = nlohmann::json::array();
  size_t identical = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const nlohmann::json& c = cases[i];
    const std::string name = c["name"];
    const bool esn = c["esn"];
    const uint64_t seq = c["seq"];
    const std::vector<uint8_t> plain = bytes(c["plain"]), scapy_esp = bytes(c["esp"]);
    IpsecTables tables(test::ipsec_config(c["config"], esn));
    OpensslEspCipher cipher(tables.sas());
    const IpsecView view = tables.view();
    const uint32_t out_sa = tables.sa_index(IpsecDirection::Out, 0x1007), in_sa = tables.sa_index(IpsecDirection::In, 0x1007);

    // scapy -> gnf. The window as if the packet before it had come, so that ESN's high half is inferred.
    view.windows[in_sa].top = seq - 1;
    test::Slot received(scapy_esp, 0, 0);
    ASSERT_EQ(ipsec_inbound(view, cipher, received.data, received.len), kIpsecInDecrypted) << name;
    ASSERT_EQ(received.frame(), plain) << name;

    // gnf -> the same bytes, and gnf -> scapy.
    view.sequences[out_sa] = seq - 1;
    test::Slot sent(plain, 128, 128);
    ASSERT_EQ(ipsec_outbound(view, cipher, sent.data, sent.len, sent.room()), kIpsecOutProtected) << name;
    if (c["minimal_padding"]) {
      ASSERT_EQ(hex(sent.frame()), hex(scapy_esp)) << name;
      ++identical;
    }
    outputs.push_back({{"case", i}, {"esp", hex(sent.frame())}});
  }
  EXPECT_GT(identical, 1000u);

  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("gnf_ipsec_scapy_" + std::to_string(getpid()) + ".json");
  std::ofstream(file) << outputs.dump();
  const nlohmann::json verdict = nlohmann::json::parse(run_script("decrypt " + file.string()));
  std::filesystem::remove(file);
  EXPECT_EQ(verdict["checked"], cases.size());
  EXPECT_EQ(verdict["failures"], nlohmann::json::array()) << verdict["failures"].dump(1);
}
