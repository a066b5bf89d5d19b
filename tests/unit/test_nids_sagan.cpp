// Real rule material: Debian's sagan-rules (/etc/sagan-rules) and modsecurity-crs's phrase lists
// (scripts/install-deps.sh installs both). sagan-rules are
// Snort-syntax rules over log lines, converted the least that makes them packet rules: protocol
// syslog becomes udp, and the options that say which log line to read (program, facility,
// parse_src_ip, default_proto, normalize, ...) are removed. Every other option is left for the
// parser, which skips what it does not support and says why: the test prints the reasons with
// their counts. With a rule per CRS phrase (nocase), the set has over 2,000 patterns; the test
// states the automaton's size and build time.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "nf/nids/rule_parser.h"
#include "nf/nids/rule_set.h"

using namespace gnf;

namespace {

const char* const kSaganFolder = "/etc/sagan-rules";
const char* const kCrsFolder = "/usr/share/modsecurity-crs/rules";
const nf::NidsVars kVars = {{"HOME_NET", "any"},   {"EXTERNAL_NET", "any"}, {"HTTP_SERVERS", "any"},
                            {"HTTP_PORT", "80"}, {"HTTPS_PORT", "443"},   {"FTP_PORT", "21"}};

const char* const kLogSourceOptions[] = {
    "program",        "facility",        "level",         "tag",           "normalize",        "parse_src_ip",
    "parse_dst_ip",   "parse_port",      "parse_proto",   "parse_proto_program", "parse_hash", "default_proto",
    "default_prot",   "default_src_port", "default_dst_port", "syslog_facility", "syslog_level", "syslog_tag",
    "syslog_program", "event_id",        "email",         "alert_time"};

bool is_log_source_option(std::string_view option) {
  std::string_view name = option.substr(0, option.find_first_of(":;"));
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  for (const char* known : kLogSourceOptions)
    if (name == known) return true;
  return false;
}

// One Sagan rule line as a packet rule (above); other lines unchanged.
std::string converted(const std::string& line) {
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
std::string sagan_rules(size_t& rule_lines) {
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
std::string crs_phrase_rules() {
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

}  // namespace

TEST(NidsSagan, DebiansSaganRulesLoadWithEveryRefusalExplained) {
  if (!std::filesystem::is_directory(kSaganFolder)) GTEST_SKIP() << "sagan-rules is not installed (scripts/install-deps.sh)";
  size_t rule_lines = 0;
  const nf::NidsRuleFile loaded = nf::parse_nids_rules(sagan_rules(rule_lines), "sagan", kVars, nf::UnsupportedRules::Skip);
  EXPECT_EQ(loaded.rules.size() + loaded.skipped.size(), rule_lines);  // every rule loaded or explained
  std::map<std::string, size_t> reasons;  // "field: problem" without the line, and how often
  for (const std::string& skipped : loaded.skipped) {
    const size_t after_line = skipped.find(": ");
    ASSERT_NE(after_line, std::string::npos) << skipped;
    ++reasons[skipped.substr(after_line + 2)];
  }
  std::printf("sagan-rules: %zu rules: %zu loaded, %zu skipped:\n", rule_lines, loaded.rules.size(), loaded.skipped.size());
  for (const auto& [reason, count] : reasons) std::printf("  %5zu  %s\n", count, reason.c_str());
  EXPECT_GT(loaded.rules.size(), rule_lines / 2);
}

TEST(NidsSagan, SaganAndCrsPhrasesMakeASetOfOver2000Patterns) {
  if (!std::filesystem::is_directory(kSaganFolder) || !std::filesystem::is_directory(kCrsFolder))
    GTEST_SKIP() << "sagan-rules or modsecurity-crs is not installed (scripts/install-deps.sh)";
  size_t rule_lines = 0;
  const std::string text = sagan_rules(rule_lines) + crs_phrase_rules();
  const nf::NidsRuleFile loaded = nf::parse_nids_rules(text, "sagan+crs", kVars, nf::UnsupportedRules::Skip);
  const auto start = std::chrono::steady_clock::now();
  nf::NidsCompiledRules compiled(loaded.rules, nf::kNidsDefaultMaxBytes, 0);
  const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("sagan + crs phrases: %zu rules, %zu patterns, %u states, %u classes, %.1f MiB, built in %.0f ms\n",
              loaded.rules.size(), compiled.patterns().size(), compiled.automaton().states(),
              compiled.host_view().dfa.classes, compiled.automaton().arena_bytes() / 1048576.0, build_ms);
  EXPECT_GE(compiled.patterns().size(), 2000u);
}
