#include "cavp_records.h"

#include <fstream>

namespace gnf::test {

std::vector<uint8_t> hex(const std::string& text) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < text.size(); i += 2) out.push_back(uint8_t(std::stoul(text.substr(i, 2), nullptr, 16)));
  return out;
}

namespace {

std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(' ');
  return first == s.npos ? "" : s.substr(first, s.find_last_not_of(' ') + 1 - first);
}

}  // namespace

std::vector<Record> read_records(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<Record> records;
  Record header, current;
  auto flush = [&] {
    if (!current.empty()) {
      for (const auto& [k, v] : header) current.emplace(k, v);
      records.push_back(current);
      current.clear();
    }
  };
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') {
      if (line.empty()) flush();
      continue;
    }
    const bool section = line[0] == '[';
    if (section) {
      flush();
      line = line.substr(1, line.find(']') - 1);
    }
    const size_t eq = line.find('=');
    const std::string name = eq == line.npos ? (section ? "Section" : line) : trim(line.substr(0, eq));
    const std::string value = eq == line.npos ? (section ? line : "") : trim(line.substr(eq + 1));
    (section ? header : current)[name] = value;
  }
  flush();
  return records;
}

std::vector<CbcRecord> cbc_records(const std::vector<std::string>& key_bits) {
  std::vector<CbcRecord> out;
  for (const std::string& bits : key_bits) {
    for (const char* kind : {"CBCGFSbox", "CBCKeySbox", "CBCVarKey", "CBCVarTxt", "CBCMMT"}) {
      const std::string file = kind + bits + ".rsp";
      for (const Record& r : read_records(kCryptoVectors / "ciphers/AES/CBC" / file))
        out.push_back(CbcRecord{file + " " + r.at("Section") + " COUNT " + r.at("COUNT"), r.at("Section") == "ENCRYPT",
                                hex(r.at("KEY")), hex(r.at("IV")), hex(r.at("PLAINTEXT")), hex(r.at("CIPHERTEXT"))});
    }
  }
  return out;
}

std::vector<GcmRecord> gcm_records(const std::vector<std::string>& key_bits) {
  std::vector<GcmRecord> out;
  for (const std::string& bits : key_bits) {
    for (const bool encrypt : {true, false}) {
      const std::string file = std::string(encrypt ? "gcmEncryptExtIV" : "gcmDecrypt") + bits + ".rsp";
      for (const Record& r : read_records(kCryptoVectors / "ciphers/AES/GCM" / file)) {
        if (r.at("IVlen") != "96" || r.at("Taglen") != "128") continue;
        const bool forged = r.count("FAIL") != 0;
        out.push_back(GcmRecord{file + " Count " + r.at("Count") + " Keylen " + r.at("Keylen"), encrypt, forged,
                                hex(r.at("Key")), hex(r.at("IV")), hex(r.at("AAD")), forged ? std::vector<uint8_t>{} : hex(r.at("PT")),
                                hex(r.at("CT")), hex(r.at("Tag"))});
      }
    }
  }
  return out;
}

}  // namespace gnf::test
