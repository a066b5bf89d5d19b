// What happened to each packet the IPsec code saw: one counter per outcome, every drop under the
// name of its reason. Sixteen, so that they fit an NF's counter block (nf/packet.h NfCounters).
#pragma once
#include <cstdint>

namespace gnf::nf {

enum IpsecCounter : uint8_t {
  kIpsecOutProtected,       // encrypted and encapsulated
  kIpsecInDecrypted,        // authenticated, decrypted, decapsulated, and its inner policy allowed it
  kIpsecBypassed,           // a bypass policy let it through in the clear
  kIpsecDropDiscard,        // a discard policy, or no policy at all (ipsec-secgw: what no rule matches is discarded)
  kIpsecDropUnknownSpi,     // no inbound SA has its SPI (and, for a tunnel SA, its outer addresses)
  kIpsecDropReplayed,       // its sequence number was received before
  kIpsecDropOutsideWindow,  // its sequence number lies below the anti-replay window
  kIpsecDropIcvMismatch,
  kIpsecDropBadPadding,     // pad length beyond the payload, or pad bytes other than 1, 2, 3, ...
  kIpsecDropTruncated,      // shorter than its SA's header, IV and ICV, or a payload not a whole number of blocks
  kIpsecDropBadNextHeader,  // tunnel mode: neither IPv4 nor IPv6; a dummy packet (59)
  kIpsecDropPolicyMismatch, // decrypted, but its SA is not the one its inbound policy names; or protected traffic in the clear
  kIpsecDropSequenceOverflow,  // the SA has sent its last sequence number and stopped (RFC 4303 §3.3.3)
  kIpsecDropNoRoom,         // encapsulated, it would not fit its buffer or an IP packet's length
  kIpsecDropBadHeader,      // not IPv4 or IPv6 over Ethernet, a malformed IP header (outer or inner), an ESP
                            // fragment, a fragment or an IPv6 packet for a transport SA
  kIpsecDropCryptoError,    // the cipher failed for another reason than the ICV (a library error)
  kIpsecCounterCount
};

// Not a counter: the step went well, go on to the next.
inline constexpr IpsecCounter kIpsecGoOn = kIpsecCounterCount;

inline constexpr const char* kIpsecCounterNames[kIpsecCounterCount] = {
    "out_protected",      "in_decrypted",      "bypassed",           "drop_discard",
    "drop_unknown_spi",   "drop_replayed",     "drop_outside_window", "drop_icv_mismatch",
    "drop_bad_padding",   "drop_truncated",    "drop_bad_next_header", "drop_policy_mismatch",
    "drop_sequence_overflow", "drop_no_room",  "drop_bad_header",    "drop_crypto_error"};

}  // namespace gnf::nf
