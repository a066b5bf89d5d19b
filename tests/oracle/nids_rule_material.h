// Real rule material for the nids tests and gnf-nids-bench: Debian's sagan-rules (/etc/sagan-rules)
// and modsecurity-crs's phrase lists (scripts/install-deps.sh installs both). sagan-rules are
// Snort-syntax rules over log lines, converted the least that makes them packet rules: protocol
// syslog becomes udp, and the options that say which log line to read (program, facility,
// parse_src_ip, default_proto, normalize, ...) are removed. The phrases become a nocase rule each.
#pragma once
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "nf/nids/rule_parser.h"

namespace gnf::test {

inline const char* const kSaganFolder = "/etc/sagan-rules";
inline const char* const kCrsFolder = "/usr/share/modsecurity-crs/rules";
inline const nf::NidsVars kSaganVars = {{"HOME_NET", "any"},   {"EXTERNAL_NET", "any"}, {"HTTP_SERVERS", "any"},
                                       {"HTTP_PORT", "80"}, {"HTTPS_PORT", "443"},   {"FTP_PORT", "21"}};

inline const char* const kLogSourceOptions[] = {
    "program",        "facility",        "level",         "tag",           "normalize",        "parse_src_ip",
    "parse_dst_ip",   "parse_port",      "parse_proto",   "parse_proto_program", "parse_hash", "default_proto",
    "default_prot",   "default_src_port", "default_dst_port", "syslog_facility", "syslog_level", "syslog_tag",
    "syslog_program", "event_id",        "email",         "alert_time"};

inline bool is_log_source_option(std::string_view option) {
  std::string_view name = option.substr(0, option.find_first_of(":;"));
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  for (const char* known : kLogSourceOptions)
    if (name == known) return true;
  return false;
}

// One Sagan rule line as a packet rule (above); other lines unchanged.
inline std::string converted(const std::string& line) {
  const size_t open = line.find('(');
  if (open == std::string::npos || (line.rfind("alert", 0) != 0 && line.rfind("drop", 0) != 0)) return line;
  std::string header = line.substr(0, open);
  if (const size_t syslog = header.find(" syslog "); syslog != std::string::npos) header.replace(syslog, 8, " udp ");
  std::string out = header + "(";
  bool quoted = false;
  size_t start = open + 1;
  for (size_t i = start; i < line.size(); ++i) {
    if (line[i] == '\\') ++i;
    else if (line[i] == '"') quoted = !quoted;
    else if (line[i] == ';' && !quoted) {
      const std::string option = line.substr(start, i + 1 - start);
      if (!is_log_source_option(option)) out += option;
      start = i + 1;
    }
  }
  return out + line.substr(start);
}

// The converted rules of every file, and how many rule lines (neither blank nor comments) they had.
inline std::string sagan_rules(size_t& rule_lines) {
  std::set<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kSaganFolder))
    if (entry.path().extension() == ".rules") files.insert(entry.path());
  std::ostringstream all;
  rule_lines = 0;
  for (const auto& path : files) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      const size_t first = line.find_first_not_of(" \t\r");
      rule_lines += first != std::string::npos && line[first] != '#';
      all << converted(line) << '\n';
    }
  }
  return all.str();
}

// modsecurity-crs's phrase lists (@pmFromFile: case-insensitive phrases), a rule per phrase.
inline std::string crs_phrase_rules() {
  std::ostringstream rules;
  uint32_t sid = 9'000'000;
  for (const auto& entry : std::filesystem::directory_iterator(kCrsFolder)) {
    if (entry.path().extension() != ".data") continue;
    std::ifstream in(entry.path());
    for (std::string phrase; std::getline(in, phrase);) {
      if (phrase.empty() || phrase[0] == '#') continue;
      std::string quoted;
      for (const char c : phrase) {
        if (c == '"' || c == ';' || c == '\\') quoted += {'\\', c};
        else if (c == '|') quoted += "|7c|";
        else quoted += c;
      }
      rules << "alert tcp any any -> any any (msg:\"crs " << entry.path().filename().string() << "\"; content:\""
            << quoted << "\"; nocase; sid:" << ++sid << ";)\n";
    }
  }
  return rules.str();
}

}  // namespace gnf::test
