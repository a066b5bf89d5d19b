// The ipsec NF's parameters ([[nf]] type = "ipsec"): each mistake named by file, line and key; the
// GPU paths configure as the cpu path does (the device branch: test_ipsec_nf_device_branch.cpp,
// tests/gpu/test_ipsec_paths.cpp). Its packets are tested end to end in
// tests/e2e/test_ipsec.py and, for the slot's room, in test_headroom.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "nf/chain.h"
#include "util/error.h"

using namespace gnf;
using namespace gnf::nf;

namespace {

const std::string kSa = "sa out 5 aead_algo aes-128-gcm aead_key 00:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13 "
                        "mode ipv4-tunnel src 172.16.0.1 dst 172.16.0.2\nsp ipv4 out esp protect 5 pri 1\n";

std::string sa_file() {
  const std::filesystem::path path = std::filesystem::path(testing::TempDir()) /
                                     (std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + ".sa");
  std::ofstream(path) << kSa;
  return path.string();
}

// The error configuring a two-port chain of one ipsec with `values` (key, value, line) gives.
std::string error_of(const std::vector<std::tuple<std::string, ParamValue>>& values, bool on_gpu = false) {
  Params params("gw.toml", 7, "nf[0]");
  for (const auto& [key, value] : values) params.set(key, value);
  NfContext context;
  context.ports = 2;
  context.chain_on_gpu = on_gpu;
  try {
    NfChain chain({NfSpec{"ipsec", params}}, context);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

ParamValue text(const std::string& s, int line) { return ParamValue{s, line}; }

}  // namespace

TEST(IpsecNf, TakesAnSaFileAndTheUnprotectedPorts) {
  EXPECT_EQ(error_of({{"sa", text(sa_file(), 8)}, {"unprotected", text("1", 9)}}), "");
}

TEST(IpsecNf, NeedsAnSaFile) {
  EXPECT_EQ(error_of({{"unprotected", text("1", 9)}}),
            "gw.toml:7: nf[0].sa: an ipsec needs its SAs: sa = \"FILE\" with ipsec-secgw sa lines (and sp lines, or "
            "sp = \"FILE\")");
}

TEST(IpsecNf, NamesAnUnprotectedPortThatIsNotOne) {
  EXPECT_EQ(error_of({{"sa", text(sa_file(), 8)}, {"unprotected", text("1, 2", 9)}}),
            "gw.toml:9: nf[0].unprotected: '2' is not a port number below 2 (the ports are numbered as configured, "
            "from 0)");
  EXPECT_EQ(error_of({{"sa", text(sa_file(), 8)}}),
            "gw.toml:7: nf[0].unprotected: no unprotected port: name the ports encrypted traffic arrives on "
            "(ipsec-secgw's -u)");
}

TEST(IpsecNf, NamesAReplayWindowThatIsNotAMultipleOf64) {
  EXPECT_EQ(error_of({{"sa", text(sa_file(), 8)}, {"unprotected", text("1", 9)}, {"replay_window", ParamValue{int64_t(100), 10}}}),
            "gw.toml:10: nf[0].replay_window: 100 is not a multiple of 64");
}

TEST(IpsecNf, TakesACpuLibraryByNameAndNamesOneItDoesNotKnow) {
  for (const char* library : {"auto", "openssl", "ipsec-mb"}) {
    EXPECT_EQ(error_of({{"sa", text(sa_file(), 8)}, {"unprotected", text("1", 9)}, {"cpu_library", text(library, 10)}}), "")
        << library;
  }
  const std::string error =
      error_of({{"sa", text(sa_file(), 8)}, {"unprotected", text("1", 9)}, {"cpu_library", text("aesni_mb", 10)}});
  EXPECT_EQ(error.rfind("gw.toml:10: nf[0].cpu_library: ", 0), 0u) << error;
}

TEST(IpsecNf, TakesThePathsThatRunTheChainOnAGpu) {
  EXPECT_EQ(error_of({{"sa", text(sa_file(), 8)}, {"unprotected", text("1", 9)}}, true), "");
}

TEST(IpsecNf, NamesTheLineOfABadSaRule) {
  const std::filesystem::path path = std::filesystem::path(testing::TempDir()) / "IpsecNfBadRule.sa";
  std::ofstream(path) << "# two lines\nsa out 5 cipher_algo des\n";
  const std::string error = error_of({{"sa", text(path.string(), 8)}, {"unprotected", text("1", 9)}});
  EXPECT_EQ(error.rfind(path.string() + ":2: cipher_algo: 'des' is not an algorithm gnf implements", 0), 0u) << error;
}
