// SAs and policies in the syntax of DPDK's ipsec-secgw configuration file (its -f file), the
// subset gnf implements; what it does not is refused by name.
//
//   sa out 5 cipher_algo aes-128-cbc cipher_key a0:a1:...:af auth_algo sha1-hmac auth_key b0:...:c3 \ (continued)
//        mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5
//   sa in 7 aead_algo aes-128-gcm aead_key 2b:7e:...:3d:de:ad:be:ef mode ipv6-tunnel src 1111::1 dst 2222::2
//   sa out 9 cipher_algo null auth_algo null mode transport
//   sp ipv4 out esp protect 5 pri 1 dst 192.168.0.0/16 sport 0:65535 dport 0:65535
//   sp ipv6 in esp bypass pri 10 src 2001:db8::/32 proto 17
//   sp ipv4 out esp discard pri 2 src 10.0.0.0/8
//
// sa: cipher_algo null | aes-128-cbc with auth_algo null | sha1-hmac (HMAC-SHA1-96), or aead_algo
// aes-128-gcm | aes-256-gcm (aead_key: the key, then the 4-byte salt, RFC 4106); keys as
// colon-separated hex bytes; mode ipv4-tunnel | ipv6-tunnel (src and dst: the outer addresses;
// inbound, the peer's is src) | transport (IPv4 packets only); optional type no-offload (or
// lookaside-none) and port_id. Extended sequence numbers and the anti-replay window apply to every
// SA, as ipsec-secgw's -e and -w flags do (IpsecOptions).
// sp: ipv4 | ipv6, in | out, esp, then protect <spi> | bypass | discard, and optional pri <n> (the
// higher wins, as rte_acl's priorities in ipsec-secgw; equal ones in file order), src <prefix>,
// dst <prefix>, proto <n>, sport <lo>:<hi>, dport <lo>:<hi>. A protect policy names an SA of its
// direction; a transport SA protects IPv4 policies only.
// '#' starts a comment; a line ending in '\' goes on on the next one. Errors read
// "name:line: field: problem", the field being the keyword (or the rule's word) at fault.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nf/ipsec/sa.h"
#include "nf/ipsec/spd.h"

namespace gnf::nf {

struct IpsecOptions {
  bool esn = false;
  uint32_t replay_window = 64;  // RFC 4303 §3.4.3's default
};

struct IpsecConfig {
  std::vector<IpsecSa> sas;  // in file order
  std::vector<uint32_t> sa_lines;
  std::vector<IpsecPolicy> policies;  // in file order
};

// Throws gnf::UserError "name:line: field: problem" on the first bad rule, or "name: replay
// window: ..." when options.replay_window is not 64-4096 and a multiple of 64.
IpsecConfig parse_ipsec_config(std::string_view text, const std::string& name, const IpsecOptions& options);
// Reads and parses the file at `path` (at most kMaxIpsecFileBytes).
IpsecConfig read_ipsec_config_file(const std::string& path, const IpsecOptions& options);
// Reads the files at `paths` in order into one configuration, whose sp lines may name the SAs of an
// earlier file (ipsec-secgw reads one file; the ipsec NF may take its sa and sp lines from two).
IpsecConfig read_ipsec_config_files(const std::vector<std::string>& paths, const IpsecOptions& options);
inline constexpr size_t kMaxIpsecFileBytes = size_t(64) << 20;

}  // namespace gnf::nf
