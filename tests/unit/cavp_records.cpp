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

}  // namespace gnf::test
