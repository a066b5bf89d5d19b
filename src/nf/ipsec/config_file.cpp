#include "nf/ipsec/config_file.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "nf/ipsec/config_rule.h"
#include "util/error.h"
#include "util/files.h"

namespace gnf::nf {

namespace {

// ipsec-secgw's keywords that gnf does not implement, refused by name rather than as unknown.
constexpr const char* kSecgwSaKeywords[] = {"fallback", "flow-direction", "udp-encap", "reassembly_en",
                                           "esn",      "telemetry",      "mss"};

std::optional<uint64_t> parse_decimal(std::string_view text, uint64_t largest) {
  uint64_t value = 0;
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || err != std::errc() || end != text.data() + text.size() || value > largest) return std::nullopt;
  return value;
}

uint32_t parse_number(RuleReader& in, const char* field, uint64_t smallest, uint64_t largest) {
  const std::string& text = in.next(field);
  auto value = parse_decimal(text, largest);
  if (!value || *value < smallest)
    in.fail(field, fmt::format("'{}' is not a number from {} to {}", text, smallest, largest));
  return uint32_t(*value);
}

// "a0:a1:...": exactly `bytes` bytes, each one or two hex digits (ipsec-secgw's key strings).
void parse_key(RuleReader& in, const char* field, uint32_t bytes, uint8_t* out) {
  const std::string& text = in.next(field);
  uint32_t count = 0;
  for (size_t at = 0; at <= text.size(); ++count) {
    const size_t colon = std::min(text.find(':', at), text.size());
    const std::string_view digits = std::string_view(text).substr(at, colon - at);
    unsigned value = 0;
    auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
    if (digits.empty() || digits.size() > 2 || err != std::errc() || end != digits.data() + digits.size())
      in.fail(field, fmt::format("'{}' is not hex bytes separated by colons, like 2b:7e:15:16", text));
    if (count < bytes) out[count] = uint8_t(value);
    at = colon + 1;
  }
  if (count != bytes) in.fail(field, fmt::format("{} bytes where the algorithm takes {}", count, bytes));
}

IpAddress parse_address(RuleReader& in, const char* field, uint8_t family) {
  const std::string& text = in.next(field);
  auto address = parse_ip_address(text);
  if (!address || address->family != family)
    in.fail(field, fmt::format("'{}' is not an IPv{} address, which the mode needs", text, family));
  return *address;
}

template <typename Algo>
Algo parse_algorithm(RuleReader& in, const char* field, std::initializer_list<std::pair<const char*, Algo>> known) {
  const std::string& word = in.next(field);
  std::string names;
  for (const auto& [name, algo] : known) {
    if (word == name) return algo;
    names += names.empty() ? name : std::string(", ") + name;
  }
  in.fail(field, fmt::format("'{}' is not an algorithm gnf implements ({})", word, names));
}

void parse_sa(RuleReader& in, const IpsecOptions& options, IpsecConfig& config) {
  IpsecSa sa{};
  sa.port_id = -1;
  sa.esn = options.esn;
  sa.replay_window = options.replay_window;
  const std::string& direction = in.next("direction");
  if (direction != "in" && direction != "out") in.fail("direction", fmt::format("'{}' is neither in nor out", direction));
  sa.direction = direction == "in" ? IpsecDirection::In : IpsecDirection::Out;
  sa.spi = parse_number(in, "spi", 1, 0xFFFFFFFF);
  for (const IpsecSa& other : config.sas)
    if (other.spi == sa.spi && other.direction == sa.direction)
      in.fail("spi", fmt::format("sa {} {} is defined twice", direction, sa.spi));
  std::set<std::string> seen;
  bool has_mode = false, has_cipher = false, has_auth = false, has_aead = false, has_src = false, has_dst = false;
  while (!in.at_end()) {
    const std::string& key = in.next("sa");
    const char* field = key.c_str();
    if (!seen.insert(key).second) in.fail(field, "given twice");
    if (key == "cipher_algo") {
      sa.cipher = parse_algorithm<EspCipher>(in, field, {{"null", EspCipher::Null}, {"aes-128-cbc", EspCipher::AesCbc128}});
      has_cipher = true;
      if (sa.cipher != EspCipher::Null) parse_key(in.expect("cipher_key"), "cipher_key", 16, sa.cipher_key);
    } else if (key == "auth_algo") {
      sa.auth = parse_algorithm<EspAuth>(in, field, {{"null", EspAuth::Null}, {"sha1-hmac", EspAuth::HmacSha1_96}});
      has_auth = true;
      if (sa.auth != EspAuth::Null) parse_key(in.expect("auth_key"), "auth_key", 20, sa.auth_key);
    } else if (key == "aead_algo") {
      sa.cipher = parse_algorithm<EspCipher>(
          in, field, {{"aes-128-gcm", EspCipher::AesGcm128}, {"aes-256-gcm", EspCipher::AesGcm256}});
      sa.auth = EspAuth::Gcm;
      has_aead = true;
      uint8_t key_and_salt[kMaxCipherKeyBytes + kGcmSaltBytes];
      const uint32_t key_bytes = esp_cipher_key_bytes(sa.cipher);
      parse_key(in.expect("aead_key"), "aead_key", key_bytes + kGcmSaltBytes, key_and_salt);
      std::memcpy(sa.cipher_key, key_and_salt, key_bytes);
      std::memcpy(sa.salt, key_and_salt + key_bytes, kGcmSaltBytes);
    } else if (key == "mode") {
      sa.mode = parse_algorithm<EspMode>(in, field, {{"ipv4-tunnel", EspMode::Ipv4Tunnel},
                                                     {"ipv6-tunnel", EspMode::Ipv6Tunnel},
                                                     {"transport", EspMode::Transport}});
      has_mode = true;
    } else if (key == "src" || key == "dst") {
      if (!has_mode) in.fail(field, "comes before mode, which says the address family");
      if (!esp_is_tunnel(sa.mode)) in.fail(field, "transport mode takes no addresses: the packet's own are kept");
      const IpAddress address = parse_address(in, field, sa.mode == EspMode::Ipv4Tunnel ? 4 : 6);
      std::memcpy(key == "src" ? sa.tunnel_src : sa.tunnel_dst, address.bytes, 16);
      (key == "src" ? has_src : has_dst) = true;
    } else if (key == "type") {
      const std::string& type = in.next(field);
      if (type != "no-offload" && type != "lookaside-none")
        in.fail(field, fmt::format("'{}' is not supported: gnf does the crypto itself (no-offload)", type));
    } else if (key == "port_id") {
      sa.port_id = int32_t(parse_number(in, field, 0, 0xFFFF));
    } else if (key == "cipher_key" || key == "auth_key" || key == "aead_key") {
      in.fail(field, "comes without the algorithm it is the key of, right before it");
    } else {
      const bool secgw = std::find(std::begin(kSecgwSaKeywords), std::end(kSecgwSaKeywords), key) !=
                         std::end(kSecgwSaKeywords);
      in.fail(field, secgw ? "ipsec-secgw's, but not implemented by gnf" : "not a keyword of an sa rule");
    }
  }
  if (has_aead && (has_cipher || has_auth)) in.fail("aead_algo", "an AEAD SA takes no cipher_algo or auth_algo");
  if (!has_aead && !has_cipher) in.fail("cipher_algo", "missing (or aead_algo)");
  if (!has_aead && !has_auth) in.fail("auth_algo", "missing (null for none)");
  if (!has_mode) in.fail("mode", "missing: ipv4-tunnel, ipv6-tunnel or transport");
  if (esp_is_tunnel(sa.mode) && !(has_src && has_dst)) in.fail(has_src ? "dst" : "src", "missing: a tunnel's outer address");
  config.sas.push_back(sa);
  config.sa_lines.push_back(in.first_line());
}

void parse_port_range(RuleReader& in, const char* field, uint16_t& lo, uint16_t& hi) {
  const std::string& text = in.next(field);
  const size_t colon = text.find(':');
  auto low = parse_decimal(std::string_view(text).substr(0, colon), 0xFFFF);
  auto high = colon == text.npos ? std::nullopt : parse_decimal(std::string_view(text).substr(colon + 1), 0xFFFF);
  if (!low || !high) in.fail(field, fmt::format("'{}' is not a port range like 0:65535", text));
  if (*high < *low) in.fail(field, fmt::format("the range {}:{} ends below its start", *low, *high));
  lo = uint16_t(*low);
  hi = uint16_t(*high);
}

void parse_sp(RuleReader& in, IpsecConfig& config) {
  IpsecPolicy policy{};
  policy.line = in.first_line();
  const std::string& version = in.next("ip_version");
  if (version != "ipv4" && version != "ipv6") in.fail("ip_version", fmt::format("'{}' is neither ipv4 nor ipv6", version));
  const uint8_t family = version == "ipv4" ? 4 : 6;
  policy.match.src = policy.match.dst = IpPrefix{IpAddress{family, {}}, 0};
  const std::string& direction = in.next("direction");
  if (direction != "in" && direction != "out") in.fail("direction", fmt::format("'{}' is neither in nor out", direction));
  policy.direction = direction == "in" ? IpsecDirection::In : IpsecDirection::Out;
  if (const std::string& esp = in.next("esp"); esp != "esp")
    in.fail("esp", fmt::format("'{}': gnf does ESP only", esp));
  const std::string& action = in.next("action");
  if (action == "protect") {
    policy.action = SpAction::Protect;
    policy.spi = parse_number(in, "protect", 1, 0xFFFFFFFF);
    const IpsecSa* sa = nullptr;
    for (const IpsecSa& s : config.sas)
      if (s.spi == policy.spi && s.direction == policy.direction) sa = &s;
    if (!sa) in.fail("protect", fmt::format("no sa {} {} before this line", direction, policy.spi));
    if (sa->mode == EspMode::Transport && family != 4)
      in.fail("protect", fmt::format("sa {} {} is transport mode, which gnf does for IPv4 only", direction, policy.spi));
  } else if (action == "bypass" || action == "discard") {
    policy.action = action == "bypass" ? SpAction::Bypass : SpAction::Discard;
  } else {
    in.fail("action", fmt::format("'{}' is not protect <spi>, bypass or discard", action));
  }
  std::set<std::string> seen;
  while (!in.at_end()) {
    const std::string& key = in.next("sp");
    const char* field = key.c_str();
    if (!seen.insert(key).second) in.fail(field, "given twice");
    if (key == "pri") {
      policy.priority = parse_number(in, field, 0, 0x1FFFFFFF);
    } else if (key == "src" || key == "dst") {
      const std::string& text = in.next(field);
      auto prefix = parse_ip_prefix(text);
      if (!prefix || prefix->address.family != family)
        in.fail(field, fmt::format("'{}' is not an IPv{} prefix like {}", text, family,
                                   family == 4 ? "192.168.0.0/16" : "2001:db8::/32"));
      (key == "src" ? policy.match.src : policy.match.dst) = *prefix;
    } else if (key == "proto") {
      policy.match.proto = uint8_t(parse_number(in, field, 0, 255));
      policy.match.proto_mask = 0xFF;
    } else if (key == "sport") {
      parse_port_range(in, field, policy.match.sport_lo, policy.match.sport_hi);
    } else if (key == "dport") {
      parse_port_range(in, field, policy.match.dport_lo, policy.match.dport_hi);
    } else {
      in.fail(field, "not a keyword of an sp rule");
    }
  }
  config.policies.push_back(policy);
}

}  // namespace

namespace {

// Adds the rules of `text` to `config`, whose SAs its sp lines may name.
void parse_into(std::string_view text, const std::string& name, const IpsecOptions& options, IpsecConfig& config) {
  if (options.replay_window < kMinReplayWindow || options.replay_window > kMaxReplayWindow ||
      options.replay_window % 64 != 0)
    throw UserError(fmt::format("{}: replay window: {} is not a multiple of 64 from {} to {}", name,
                                options.replay_window, kMinReplayWindow, kMaxReplayWindow));
  for (RuleReader& in : split_rules(text, name)) {
    const std::string& kind = in.next("rule");
    if (kind == "sa")
      parse_sa(in, options, config);
    else if (kind == "sp")
      parse_sp(in, config);
    else if (kind == "rt" || kind == "neigh")
      in.fail("rule", fmt::format("'{}': routes and neighbours go in l3fwd's files, not here", kind));
    else
      in.fail("rule", fmt::format("'{}' is neither sa nor sp", kind));
  }
}

}  // namespace

IpsecConfig parse_ipsec_config(std::string_view text, const std::string& name, const IpsecOptions& options) {
  IpsecConfig config;
  parse_into(text, name, options, config);
  return config;
}

IpsecConfig read_ipsec_config_file(const std::string& path, const IpsecOptions& options) {
  return read_ipsec_config_files({path}, options);
}

IpsecConfig read_ipsec_config_files(const std::vector<std::string>& paths, const IpsecOptions& options) {
  IpsecConfig config;
  for (const std::string& path : paths) parse_into(read_input_file(path, kMaxIpsecFileBytes), path, options, config);
  return config;
}

}  // namespace gnf::nf
