#include "nf/nids/alerts.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "nf/l3fwd/ip_address.h"
#include "util/error.h"

namespace gnf::nf {

namespace {

std::FILE* open_output(const std::string& path) {
  if (path.empty()) return nullptr;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw UserError(fmt::format("{}: cannot be written: {}", path, std::strerror(errno)));
  return f;
}

std::string address_text(uint8_t family, const uint8_t* bytes) {
  IpAddress a;
  a.family = family;
  std::memcpy(a.bytes, bytes, sizeof(a.bytes));
  return a.str();
}

std::string proto_text(uint8_t proto) {
  switch (proto) {
    case 6: return "TCP";
    case 17: return "UDP";
    case 1: return "ICMP";
    case 58: return "IPv6-ICMP";
  }
  return fmt::format("{:03}", proto);  // as Suricata names protocols it does not know
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += {'\\', c};
    else if (uint8_t(c) < 0x20) out += fmt::format("\\u{:04x}", unsigned(uint8_t(c)));
    else out += c;
  }
  return out + "\"";
}

// UTC, to the microsecond; `eve` in EVE's form, else fast.log's.
std::string timestamp(uint64_t unix_ns, bool eve) {
  const std::time_t seconds = std::time_t(unix_ns / 1'000'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof(text), eve ? "%Y-%m-%dT%H:%M:%S" : "%m/%d/%y-%H:%M:%S", &utc);
  return fmt::format("{}.{:06}{}", text, unix_ns / 1000 % 1'000'000, eve ? "+0000" : "");
}

uint32_t severity(const NidsRuleInfo& rule) { return rule.priority ? rule.priority : 3; }

}  // namespace

std::string nids_eve_line(const NidsAlert& a, const NidsRuleInfo& rule) {
  const bool ports = a.proto == 6 || a.proto == 17;
  return fmt::format(
      "{{\"timestamp\":\"{}\",\"event_type\":\"alert\",\"src_ip\":\"{}\",{}\"dest_ip\":\"{}\",{}\"proto\":\"{}\","
      "\"alert\":{{\"action\":\"{}\",\"gid\":1,\"signature_id\":{},\"rev\":{},\"signature\":{},\"category\":{},"
      "\"severity\":{}}}}}",
      timestamp(a.unix_ns, true), address_text(a.family, a.src), ports ? fmt::format("\"src_port\":{},", a.sport) : "",
      address_text(a.family, a.dst), ports ? fmt::format("\"dest_port\":{},", a.dport) : "", proto_text(a.proto),
      a.blocked ? "blocked" : "allowed", rule.sid, rule.rev, json_string(rule.msg), json_string(rule.classtype),
      severity(rule));
}

std::string nids_fast_line(const NidsAlert& a, const NidsRuleInfo& rule) {
  const bool ports = a.proto == 6 || a.proto == 17;
  auto endpoint = [&](const uint8_t* address, uint16_t port) {
    const std::string text = address_text(a.family, address);
    return ports ? fmt::format("{}:{}", text, port) : text;
  };
  return fmt::format("{}  {}[**] [1:{}:{}] {} [**] [Classification: {}] [Priority: {}] {{{}}} {} -> {}",
                     timestamp(a.unix_ns, false), a.blocked ? "[Drop] " : "", rule.sid, rule.rev, rule.msg,
                     rule.classtype.empty() ? "(null)" : rule.classtype, severity(rule), proto_text(a.proto),
                     endpoint(a.src, a.sport), endpoint(a.dst, a.dport));
}

NidsAlertWriter::NidsAlertWriter(const std::string& eve_path, const std::string& fast_path)
    : eve_(open_output(eve_path)) {
  try {
    fast_ = open_output(fast_path);
  } catch (...) {
    if (eve_) std::fclose(eve_);
    throw;
  }
  thread_ = std::thread([this] { run(); });
}

NidsAlertWriter::~NidsAlertWriter() {
  // After every push the producers made: the planes and kernels have stopped.
  stop_.store(true, std::memory_order_release);
  thread_.join();
  for (std::FILE* f : {eve_, fast_})
    if (f) std::fclose(f);
}

void NidsAlertWriter::add_rule_set(uint32_t generation, std::shared_ptr<const std::vector<NidsRuleInfo>> rules) {
  std::lock_guard lock(mutex_);
  rule_sets_[generation] = std::move(rules);
}

void NidsAlertWriter::add_ring(NidsAlertRing& ring) {
  std::lock_guard lock(mutex_);
  rings_.push_back(&ring);
}

void NidsAlertWriter::run() {
  NidsAlert alert;
  std::vector<NidsAlertRing*> rings;
  for (;;) {
    // Stop is read (acquire: every push made before it) before the last drain, so that a record
    // pushed before the producers stopped is written.
    const bool stopping = stop_.load(std::memory_order_acquire);
    {
      std::lock_guard lock(mutex_);
      rings = rings_;
    }
    bool any = false;
    for (NidsAlertRing* ring : rings)
      while (ring->pop(alert)) {
        write(alert);
        any = true;
      }
    if (any)
      for (std::FILE* f : {eve_, fast_})
        if (f) std::fflush(f);
    if (stopping) return;
    if (!any) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void NidsAlertWriter::write(const NidsAlert& alert) {
  std::shared_ptr<const std::vector<NidsRuleInfo>> rules;
  {
    std::lock_guard lock(mutex_);
    rules = rule_sets_.at(alert.generation);
  }
  const NidsRuleInfo& rule = rules->at(alert.rule);
  if (eve_) fmt::print(eve_, "{}\n", nids_eve_line(alert, rule));
  if (fast_) fmt::print(fast_, "{}\n", nids_fast_line(alert, rule));
  written_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace gnf::nf
