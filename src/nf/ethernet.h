// Where a frame's network header starts, for the NFs that parse one (acl, nids). Host and device code.
#pragma once
#include <cstdint>

#include "util/hd.h"
#include "util/net_headers.h"
#include "wire/bytes.h"

namespace gnf::nf {

// Ethernet II, optionally behind one 802.1Q tag: the EtherType of what follows and its offset.
// False when the frame is too short for its Ethernet header and tag.
GNF_INLINE bool ethernet_payload(const uint8_t* frame, uint32_t len, uint16_t& type, uint32_t& at) {
  if (len < net::kEthHeaderBytes) return false;
  at = net::kEthHeaderBytes;
  type = wire::load_be16(frame + 12);
  if (type != net::kEtherTypeVlan) return true;
  if (len < net::kEthHeaderBytes + net::kVlanTagBytes) return false;
  type = wire::load_be16(frame + 16);
  at += net::kVlanTagBytes;
  return true;
}

}  // namespace gnf::nf
