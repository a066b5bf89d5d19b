// IPv4 options (RFC 791 3.1) as the router's slow path acts on them for a packet in transit, as
// Linux's ip_options_compile and ip_forward_options do:
//   - Record route (RFC 1812 5.3.13.5, a router MUST support it): the router's address goes into the
//     next slot and the pointer moves on; with no room left the option travels on unchanged.
//   - Timestamp (RFC 1812 5.3.13.6, RFC 791): flag 0 the time alone, flag 1 an address and the
//     time, flag 3 the time after a prespecified address, only where that address is the router's
//     own (else the option is left for the router it names). With no room left the overflow counter
//     goes up (not for flag 3: every prespecified router has had its turn), and one that would wrap
//     is a parameter problem. Other flags are left alone, as Linux leaves them.
//   - Source routes are for the caller to drop (RFC 7126 4.3-4.4, Linux's accept_source_route=0).
//   - A malformed option (its length, its pointer; a record route or timestamp twice) is a parameter
//     problem pointing at the offending byte (RFC 1812 4.3.3.5, RFC 792).
#pragma once
#include <cstdint>
#include <functional>

namespace gnf::ctl {

// What the router writes into options.
struct OptionStamp {
  uint32_t record_address;     // for record route: its address where the packet leaves (RFC 791 3.1)
  uint32_t timestamp_address;  // for timestamps with addresses: its address facing the source (Linux's spec_dst)
  uint32_t milliseconds;       // since midnight UT (RFC 791)
  std::function<bool(uint32_t address)> ours;  // whether a prespecified address is the router's
};

struct OptionVerdict {
  enum Kind { kForward, kSourceRoute, kProblem } kind;
  uint32_t pointer = 0;  // kProblem: the offending byte's offset in the IPv4 header
};

// Acts on the options of the IPv4 header at `ip` (its IHL and checksum checked before), as above:
// kForward with the options filled in and the header checksum updated; otherwise the header is
// left as it was.
OptionVerdict act_on_ipv4_options(uint8_t* ip, const OptionStamp& stamp);

// RFC 791 3.1: an option whose copied flag is clear travels in the first fragment only. Later ones
// carry no-operations in its place (as Linux's ip_options_fragment does), so every header keeps its
// length. A malformed option ends the walk.
void nop_uncopied_options(uint8_t* options, uint32_t len);

}  // namespace gnf::ctl
